"""How the text search of the alarms finds rare texts fast: a step budget, then the trigram index.

`alarms.recent_alarms` first walks the activities newest first (quick when a text is common), within a
budget of SQLite virtual-machine steps. Past it the text is rare, and this module narrows the walk to the
rows the trigram index (schema v4) says may hold it. Nothing here decides whether a row matches: the LIKE of
`alarms.alarm_where` does, so every way gives the same rows.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Generator
from typing import Any

from core.cache.schema import ACTIVITIES_FTS
from core.read.rows import column, like, marks
from core.sqlite_lib import sqlite_utils

# The trigram index finds substrings of 3 characters or more; shorter text is searched with LIKE alone.
TRIGRAM = 3
# How far recent_alarms walks the newest activities for a text before it asks the text index instead:
# about 20 ms of scanning (some 10,000 rows) on the 2-core machine.
SCAN_BUDGET_STEPS = 250_000
_STEPS_PER_TICK = 10_000
# Trigrams of a searched text looked up in the index (each costs a doclist read), and up to how many
# candidate rows are fetched by rowid rather than probed along the newest-first walk.
TEXT_TRIGRAMS = 4
FETCH_CANDIDATES = 20_000


@contextlib.contextmanager
def step_budget(db: sqlite_utils.Database, steps: int) -> Generator[None, None, None]:
    """Interrupt the statements run inside after about `steps` virtual-machine steps: a count, not a clock,
    so the same query takes the same way on a busy machine as on an idle one."""
    calls = 0

    def tick() -> int:
        nonlocal calls
        calls += 1
        return int(calls * _STEPS_PER_TICK > steps)

    db.conn.set_progress_handler(tick, _STEPS_PER_TICK)
    try:
        yield
    finally:
        db.conn.set_progress_handler(None, 0)


def text_candidates(db: sqlite_utils.Database, text: str) -> tuple[str, list[Any]] | None:
    """A condition narrowing `activities a` to the rows that may hold `text` (a superset of the LIKE matches:
    every trigram of the text is in a matching row, and the tokenizer folds case at least as widely as
    LIKE), with its parameters; None when no row can. The rows come from the trigram index (description,
    violation name) and from the panels whose name holds the text."""
    fts_query = _text_query(text.lower())
    fts = f"SELECT rowid FROM {ACTIVITIES_FTS} WHERE {ACTIVITIES_FTS} MATCH ?"
    panels = column(db, "SELECT resource_id FROM panels WHERE lower(name) LIKE ? ESCAPE '\\'", [like(text)])
    of_panels = f"SELECT rowid FROM activities WHERE resource_id IN ({marks(panels)})"
    # Up to FETCH_CANDIDATES + 1 of them, to know whether they are few; a common text stops early.
    found = column(db, f"{fts} LIMIT ?", [fts_query, FETCH_CANDIDATES + 1])
    if panels and len(found) <= FETCH_CANDIDATES:
        found += column(db, f"{of_panels} LIMIT ?", [*panels, FETCH_CANDIDATES + 1])
    if not found:
        return None
    if len(found) <= FETCH_CANDIDATES:
        return "a.rowid IN (SELECT value FROM json_each(?))", [json.dumps(found)]
    # Many: `+` hides rowid and resource_id from the planner, which then walks the time index newest first
    # and stops at `limit`, probing each row against the index's answer (computed once).
    panel_rows = f" OR +a.resource_id IN ({marks(panels)})" if panels else ""
    return f"(+a.rowid IN ({fts}){panel_rows})", [fts_query, *panels]


def fetches_by_rowid(clause: str) -> bool:
    """Whether a `text_candidates` condition lists few rows, which SQLite should fetch by rowid."""
    return not clause.startswith("(+")


def _text_query(text: str) -> str:
    """An FTS5 query for the rows holding 4 trigrams spread over `text`, first and last among them: about as
    selective as the whole phrase, for a fraction of the doclists read. Each is quoted, never parsed."""
    trigrams = [text[i : i + TRIGRAM] for i in range(len(text) - TRIGRAM + 1)]
    last = len(trigrams) - 1
    spread = dict.fromkeys(trigrams[round(j * last / (TEXT_TRIGRAMS - 1))] for j in range(TEXT_TRIGRAMS))
    return " AND ".join('"' + t.replace('"', '""') + '"' for t in spread)
