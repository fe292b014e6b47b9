"""The records of action plans (core/action_plans.py holds the plans): `plan_ticks`, each step ticked on an
alarm, by whom and when, and `plan_overrides`, each alarm an admin resolved with mandatory steps left, and
why. Both in records.db (core/cache/records.py). The reads the card needs are here, beside the writes (as
for the lifecycle); the dashboard's figures are core/read/plans.py.

A tick is recorded once per alarm and step (its label): ticking a ticked step changes nothing and says who
was first, so a double click or a Slack retry never writes twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.cache.sql import execute
from core.cache.transactions import write_transaction
from core.sqlite_lib import sqlite_utils

_CHUNK = 500  # SQLite's variable limit


@dataclass(frozen=True)
class Tick:
    event_id: str
    step: str  # the step's label
    plan: str
    by_user: str
    at: int


@dataclass(frozen=True)
class Override:
    event_id: str
    plan: str
    by_user: str
    at: int
    reason: str
    steps_left: tuple[str, ...]  # the labels of the mandatory steps not ticked when it was resolved


SEPARATOR = "\n"  # between the labels of steps_left (a label is one line: core/action_plans.py)


def tick(db: sqlite_utils.Database, event_id: str, step: str, plan: str, by_user: str, at: int) -> Tick:
    """Tick `step` on the alarm; returns the tick that stands: this one, or the first one when the step was
    ticked already (compare `by_user` and `at` to tell)."""
    with write_transaction(db):
        db.conn.execute(
            "INSERT INTO plan_ticks (event_id, step, plan, by_user, at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT(event_id, step) DO NOTHING",
            [event_id, step, plan, by_user, at],
        )
        row = execute(
            db,
            "SELECT event_id, step, plan, by_user, at FROM plan_ticks WHERE event_id = ? AND step = ?",
            [event_id, step],
        ).fetchone()
    return Tick(*row)


def ticks(db: sqlite_utils.Database, event_ids: Iterable[str]) -> dict[str, dict[str, Tick]]:
    """{event_id: {step label: tick}} of these alarms (those with any tick)."""
    ids = list(event_ids)
    found: dict[str, dict[str, Tick]] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        rows = execute(
            db,
            "SELECT event_id, step, plan, by_user, at FROM plan_ticks"
            f" WHERE event_id IN ({','.join('?' * len(chunk))}) ORDER BY at",
            chunk,
        ).fetchall()
        for row in rows:
            one = Tick(*row)
            found.setdefault(one.event_id, {})[one.step] = one
    return found


def record_overrides(
    db: sqlite_utils.Database,
    overrides: Iterable[tuple[str, str, tuple[str, ...]]],
    by_user: str,
    at: int,
    reason: str,
) -> None:
    """(event_id, plan, labels of the steps left) resolved anyway by `by_user`, for `reason`; an alarm
    overridden before keeps its first record (it can be resolved once)."""
    with write_transaction(db):
        db.conn.executemany(
            "INSERT INTO plan_overrides (event_id, plan, by_user, at, reason, steps_left)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(event_id) DO NOTHING",
            [
                (event_id, plan, by_user, at, reason, SEPARATOR.join(left))
                for event_id, plan, left in overrides
            ],
        )


def override_of(db: sqlite_utils.Database, event_id: str) -> Override | None:
    row = execute(
        db,
        "SELECT event_id, plan, by_user, at, reason, steps_left FROM plan_overrides WHERE event_id = ?",
        [event_id],
    ).fetchone()
    if row is None:
        return None
    left = tuple(label for label in str(row[5]).split(SEPARATOR) if label)
    return Override(str(row[0]), str(row[1]), str(row[2]), int(row[3]), str(row[4]), left)
