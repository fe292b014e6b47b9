"""Each alarm's lifecycle state as the pages list it: open, acknowledged or resolved, and who holds it.

The rule of the states, and of who holds an alarm, is core/lifecycle.py's; this is its read for the
dashboard's Alarms page, so that the page shows what the cards and the Home show.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.lifecycle import AlarmState, states
from core.sqlite_lib import sqlite_utils


def alarm_states(db: sqlite_utils.Database, event_ids: Iterable[str]) -> dict[str, AlarmState]:
    """The state of each of `event_ids` that samops tracks (an alarm it posted); the others are absent."""
    return states(db, event_ids)
