"""Reconciliation: every activity the service holds for the last `late_window` is in the cache.

A panel whose communicator was offline delivers its events when it reconnects, each with its own
`activityTime`; the poller reads each organization from its cursor minus SAMOPS_POLL_OVERLAP, so an event
that reaches the service later than that is behind every poll. Each pass (every SAMOPS_RECONCILE_INTERVAL)
asks operation 3, per organization over all its panels, for the window's `totalRecords` alone (a page of
one record) and compares it with the cache's count of the same window. Equal: that was the pass (one
request). More on the service: the window is halved on a minute grid, the first half counted and the second
taken as the rest, and only a half that differs is looked into, down to a window the service answers in one
page; there group testing (`core.attribution`) finds the new activities and their panels. They are written
with the time samops saw them (`activities.seen_at`), which is how the notifier finds them and their cards
say they are late (docs/history.md). Every request waits for the shared pacer (`core.pacing`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from core.attribution import GroupTest
from core.cache.transactions import write_transaction
from core.cache.writes import upsert_activities
from core.client import SamClient
from core.clock import MINUTE_MS, now_ms
from core.errors import SamError
from core.pacing import Pacer
from core.poller import attributed_row, known_events
from core.read import history
from core.sqlite_lib import sqlite_utils

log = logging.getLogger("samops.reconcile")

SLOT_MS = MINUTE_MS  # windows are halved on this grid, so that the same window is asked again next pass


@dataclass
class ReconcileReport:
    found: int = 0  # activities written that the cache did not have
    windows: int = 0  # windows group-tested
    errors: list[str] = field(default_factory=list)


class Reconciler:
    def __init__(
        self,
        client: SamClient,
        pacer: Pacer,
        late_window_ms: int,
        overlap_ms: int,
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.client = client
        self.pacer = pacer
        self.late_window_ms = late_window_ms
        self.overlap_ms = overlap_ms  # the newest part is the poller's
        self.clock = clock or now_ms
        # Windows whose service count stays above the cache's after a group test found nothing more there
        # (records without an eventId, which nothing can store): (org, start, end) -> that surplus, so that
        # they are not group-tested on every pass.
        self._explained: dict[tuple[int, int, int], int] = {}

    def run(
        self, db: sqlite_utils.Database, panels: dict[int, list[int]], orgs: Collection[int], floor: int = 0
    ) -> ReconcileReport:
        """One pass over the organizations in `orgs` (those the poller has read once: before that, their
        history is the first poll's to read), never before `floor`: where the first poll's history began
        (before it, what the service holds is history for the backfill, not a late arrival)."""
        report = ReconcileReport()
        now = self.clock()
        end = now - self.overlap_ms
        start = max(floor, (now - self.late_window_ms) // SLOT_MS * SLOT_MS)
        self._explained = {k: v for k, v in self._explained.items() if k[1] >= start}
        for org, ids in panels.items():
            if org not in orgs or not ids or end <= start:
                continue
            try:
                self._window(db, report, org, ids, start, end, None)
            except SamError as err:
                report.errors.append(f"reconciling organization {org}: {err}")
        if report.found:
            log.info("reconcile: %d late activities found", report.found)
        return report

    def _count(self, org: int, ids: list[int], start: int, end: int) -> int | None:
        self.pacer.wait(org)
        page = self.client.list_activities(
            ids,
            page=self.client.settings.first_page,
            page_size=1,
            org=org or None,
            start_time=start,
            end_time=end - 1,  # [start, end), whether the service's end is inclusive or not
        )
        return page.total_records

    def _window(
        self,
        db: sqlite_utils.Database,
        report: ReconcileReport,
        org: int,
        ids: list[int],
        start: int,
        end: int,
        total: int | None,
    ) -> None:
        if total is None:
            total = self._count(org, ids, start, end)
        if total is not None:
            explained = sum(
                v for (o, s, e), v in self._explained.items() if o == org and s >= start and e <= end
            )
            if total <= history.cached_count(db, org or None, start, end) + explained:
                return
        middle = start + (end - start) // 2 // SLOT_MS * SLOT_MS
        # A window the service answers in a page (or no count to halve by): find what is new in it.
        if total is None or total <= self.client.settings.page_size or middle <= start:
            self._group_test(db, report, org, ids, start, end, total)
            return
        first = self._count(org, ids, start, middle)
        self._window(db, report, org, ids, start, middle, first)
        self._window(db, report, org, ids, middle, end, None if first is None else max(0, total - first))

    def _group_test(
        self,
        db: sqlite_utils.Database,
        report: ReconcileReport,
        org: int,
        ids: list[int],
        start: int,
        end: int,
        total: int | None,
    ) -> None:
        def known(event_ids: Collection[str]) -> set[str]:
            return known_events(db, event_ids)

        test = GroupTest(self.client, org or None, start, end - 1, known, 1, pace=self.pacer.for_org(org))
        found = test.run(ids)
        report.windows += 1
        with write_transaction(db):
            upsert_activities(db, "activities", [attributed_row(f, org) for f in found], seen_at=self.clock())
        report.found += len(found)
        if total is not None:
            surplus = total - history.cached_count(db, org or None, start, end)
            if surplus > 0:
                self._explained[(org, start, end)] = surplus


__all__ = ["ReconcileReport", "Reconciler"]
