"""The at-risk list's whole-fleet authorization reads (docs/at_risk.md): every panel's authorizations
(operations 2 and 15) read once a day, so that an authorization about to expire is listed whether or not its
panel had an alarm. The keyholder reads (core/keyholder_reads.py) read only panels with alarms.

They run on the history thread (core/history.py) only when the keyholder reads and the backfill have nothing
to do, through the keyholder reads' own `read` (same pace, `SAMOPS_HISTORY_RATE`, same records), so they add
nothing to the idle budget: they take the thread's unused share of it.
"""

from __future__ import annotations

from collections.abc import Callable

from core.clock import DAY_MS, now_ms
from core.keyholder_reads import MAX_PANELS_PER_STEP, KeyholderReads
from core.read.at_risk import authorizations_due
from core.sqlite_lib import sqlite_utils

EVERY_MS = DAY_MS  # each panel's authorizations at least this fresh, for "expiring within 7 days"


class FleetReads:
    def __init__(self, keyholders: KeyholderReads, clock: Callable[[], int] = now_ms) -> None:
        self.keyholders = keyholders
        self.clock = clock

    def step(self, db: sqlite_utils.Database) -> bool:
        """Read up to MAX_PANELS_PER_STEP due panels of one organization; False when none is due."""
        now = self.clock()
        due = authorizations_due(db, now - EVERY_MS, now - self.keyholders.retry_ms, MAX_PANELS_PER_STEP * 4)
        if not due:
            return False
        org, panels = next(iter(due.items()))
        self.keyholders.read(db, org, panels[:MAX_PANELS_PER_STEP])
        return True


__all__ = ["EVERY_MS", "FleetReads"]
