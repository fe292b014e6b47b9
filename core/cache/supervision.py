"""The records of silent-panel supervision (core/supervision.py holds the rule).

A "communication lost" alarm is samops' own: its episode (which panel, silent since when, raised when,
restored when) is kept in the records (`notify_state`, one JSON value per episode, so no table of its own),
and its alarm row is written into `activities` under its reserved event id, so that the one pipeline every
alarm takes (outbox, cards, lifecycle, escalation, incidents, handover, the dashboard) carries it as it is.
The records are the truth: a cache emptied or refilled (`samops cache reset`, a full sync) loses the row,
and `restore_rows` writes it again from the episode.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from core.cache.outbox import set_state
from core.cache.schema import rebuild_activity_hours
from core.cache.sql import execute
from core.cache.writes import ACTIVITY_FIELDS, upsert_rows
from core.sqlite_lib import sqlite_utils

PREFIX = "supervision:"
OPEN = PREFIX + "open:"  # + panel: the panel's episode while it is silent (one at a time)
TELL = PREFIX + "tell:"  # + event id: a restored episode whose thread and card are still to be told


@dataclass(frozen=True)
class Episode:
    """One silence of one panel, and its alarm."""

    event_id: str
    resource_id: int
    org_id: int | None
    since: int  # silent since (epoch-ms): the last sign of life, or when samops started watching
    last_heard: int | None  # the last sign of life the cache held when it was raised (None: none)
    raised_at: int  # the alarm's time
    after_ms: int  # the silent_after it was judged by
    row: tuple[Any, ...]  # its alarm row, in ACTIVITY_FIELDS order
    restored_at: int | None = None
    restored_note: str | None = None
    thread_posted: bool = False  # its card's thread has been told (the card's redraw may still be due)
    attempts: int = 0  # tellings Slack refused

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Episode:
        data = json.loads(text)
        data["row"] = tuple(data["row"])
        return cls(**data)


def _episodes(db: sqlite_utils.Database, prefix: str) -> list[Episode]:
    rows = execute(
        db, "SELECT value FROM notify_state WHERE substr(key, 1, ?) = ? ORDER BY key", [len(prefix), prefix]
    ).fetchall()
    return [Episode.from_json(str(r[0])) for r in rows]


def open_episodes(db: sqlite_utils.Database) -> dict[int, Episode]:
    """The silent panels' episodes, by panel."""
    return {e.resource_id: e for e in _episodes(db, OPEN)}


def untold(db: sqlite_utils.Database) -> list[Episode]:
    """Restored episodes whose card and thread are not told yet."""
    return _episodes(db, TELL)


def raise_episode(db: sqlite_utils.Database, episode: Episode) -> None:
    """Record a new episode and write its alarm row (in the caller's transaction)."""
    set_state(db, OPEN + str(episode.resource_id), episode.to_json())
    write_rows(db, [episode.row])


def restore_episode(db: sqlite_utils.Database, episode: Episode) -> None:
    """The panel reported again: its episode is closed and waits to be told (in the caller's transaction)."""
    set_state(db, OPEN + str(episode.resource_id), None)
    set_state(db, TELL + episode.event_id, episode.to_json())


def telling(db: sqlite_utils.Database, episode: Episode) -> None:
    """Keep how far the telling of a restored episode got."""
    set_state(db, TELL + episode.event_id, episode.to_json())


def told(db: sqlite_utils.Database, episode: Episode) -> None:
    set_state(db, TELL + episode.event_id, None)


def write_rows(db: sqlite_utils.Database, rows: Sequence[tuple[Any, ...]]) -> None:
    """Supervision alarm rows into `activities` (the service's own are written by `upsert_activities`,
    which refuses these ids); the hourly rollup of their hours is recounted, as for any activity."""
    if not rows:
        return
    upsert_rows(db, "activities", ACTIVITY_FIELDS, rows, "event_id")
    times = [int(r[3]) for r in rows]
    rebuild_activity_hours(db, min(times), max(times))


def restore_rows(db: sqlite_utils.Database) -> int:
    """Write again the alarm rows of open and untold episodes that the cache lost; returns how many."""
    episodes = [*open_episodes(db).values(), *untold(db)]
    if not episodes:
        return 0
    marks = ",".join("?" * len(episodes))
    present = {
        str(r[0])
        for r in execute(
            db, f"SELECT event_id FROM activities WHERE event_id IN ({marks})", [e.event_id for e in episodes]
        ).fetchall()
    }
    missing = [e.row for e in episodes if e.event_id not in present]
    write_rows(db, missing)
    return len(missing)


__all__ = [
    "Episode",
    "open_episodes",
    "raise_episode",
    "restore_episode",
    "restore_rows",
    "telling",
    "told",
    "untold",
    "write_rows",
]
