"""The backfill: after the first poll, each panel's activities of the dashboard's default window
(SAMOPS_HISTORY_DAYS, 7 days) before the day that first poll read, so that the week's charts are a week.

One panel at a time, operation 3 over that panel alone (which is what proves an activity is the panel's:
decisions.md), page by page at the shared pace (`core.pacing`). A panel is recorded done (`panel_cursors`,
`backfill`) in the same transaction as its activities, so a restart resumes with the next panel. What it
writes carries no `seen_at`: it is history, never posted to Slack (docs/history.md).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection

from core import timefmt
from core.attribution import paced_activities
from core.cache.cursors import save_cursors
from core.cache.outbox import get_state
from core.cache.transactions import write_transaction
from core.cache.writes import activity_row, upsert_activities
from core.client import SamClient
from core.clock import now_ms
from core.pacing import Pacer
from core.read import history
from core.read.cursors import cursors
from core.sqlite_lib import sqlite_utils

log = logging.getLogger("samops.backfill")


class Backfiller:
    def __init__(
        self,
        client: SamClient,
        pacer: Pacer,
        days_ms: int,
        first_history_ms: int,
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.client = client
        self.pacer = pacer
        self.days_ms = days_ms
        self.first_history_ms = first_history_ms  # what the poller's first poll read
        self.clock = clock or now_ms

    def plan(self, db: sqlite_utils.Database, panels: dict[int, list[int]]) -> history.Backfill | None:
        """The window to fill, fixed the first time (from the notifier's baseline, its first start), and
        the panels it covers now (panels listed later are filled too). None before the first start."""
        state = history.backfill(db)
        count = sum(len(ids) for ids in panels.values())
        if state is not None:
            if state.since < state.until and count > state.panels:
                with write_transaction(db):
                    save_cursors(db, history.BACKFILL_PLAN, [(history.PLAN_PANELS, count)])
                return history.backfill(db)
            return state
        baseline = get_state(db, "baseline")
        if baseline is None:
            return None
        until = int(baseline) - self.first_history_ms
        since = int(baseline) - self.days_ms
        if self.clock() - self.days_ms >= until:
            since = until  # an install older than the window has watched all of it: nothing to fill
        with write_transaction(db):
            plan = [(history.PLAN_FROM, since), (history.PLAN_UNTIL, until)]
            save_cursors(
                db, history.BACKFILL_PLAN, [*plan, (history.PLAN_PANELS, count if since < until else 0)]
            )
        # The log line names the machine's zone once, before the message (timefmt.HostLogFormatter).
        tz = timefmt.host_zone()
        log.info("backfill: %d panels from %s to %s", count, timefmt.wall(since, tz), timefmt.wall(until, tz))
        return history.backfill(db)

    def step(self, db: sqlite_utils.Database, panels: dict[int, list[int]]) -> bool:
        """Fill the next panel not done yet; False when there is none (or no plan yet)."""
        state = self.plan(db, panels)
        if state is None or state.done:
            return False
        done = cursors(db, history.BACKFILL)
        todo = _next(panels, done)
        if todo is None:
            return False
        org, panel = todo
        found = paced_activities(
            self.client, self.pacer.for_org(org), [panel], state.since, state.until - 1, org or None
        )
        rows = [activity_row(a, panel, org or None) for a in found if a.event_id is not None]
        # The panel asked alone is the proof (activity_row would prefer a panel id sent on the record).
        rows = [(row[0], panel, *row[2:]) for row in rows]
        with write_transaction(db):
            # By the one rule of core/cache/seen.py: the week before the watch is history, stamped never.
            upsert_activities(db, "activities", rows, seen_at=self.clock())
            save_cursors(db, history.BACKFILL, [(panel, state.since)])
        if state.panels_done + 1 >= state.panels:
            log.info("backfill: done, %d panels", state.panels)
        return True


def _next(panels: dict[int, list[int]], done: Collection[int]) -> tuple[int, int] | None:
    """The next panel to fill: the organization with the fewest done goes first, so that the organizations
    take turns and each one's pace is used (the pacer is per organization)."""
    left = {org: [p for p in sorted(ids) if p not in done] for org, ids in panels.items()}
    left = {org: ids for org, ids in left.items() if ids}
    if not left:
        return None
    org = min(left, key=lambda o: (len(panels[o]) - len(left[o]), o))
    return org, left[org][0]


__all__ = ["Backfiller"]
