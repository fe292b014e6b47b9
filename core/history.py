"""History beside the alarm poller (docs/history.md): reconciliation (late events, `core.reconcile`) and
the backfill of the dashboard's week (`core.backfill`), on one thread of the process that polls, with its
own connection to the cache and one pace (`core.pacing`) shared by both. A reconciliation pass goes first
whenever it is due; the backfill fills a panel between passes.

The keyholder reads (`core.keyholder_reads`: the authorizations of panels with alarms, docs/keyholders.md)
take the same pace, between reconciliation passes, taking turns with the backfill step by step: after the
first start both have much to do, and neither waits for the other to finish.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from core.at_risk_reads import FleetReads
from core.backfill import Backfiller
from core.cache.db import RecordsLostError, open_cache, reopen_if_replaced
from core.cache.outbox import get_state
from core.client import SamClient
from core.clock import DAY_MS
from core.errors import SamError
from core.keyholder_reads import KeyholderReads
from core.pacing import Pacer, Stopped
from core.poller import CURSOR_TABLE
from core.read.cursors import cursors
from core.reconcile import Reconciler
from core.sqlite_lib import sqlite_utils

log = logging.getLogger("samops.history")

KEYHOLDER_LOOK_S = 5.0  # how often an idle history thread looks for panels whose authorizations are due


class History:
    def __init__(
        self,
        client: SamClient,
        panels: Callable[[], dict[int, list[int]]],
        first_history_ms: int,
        overlap_ms: int,
        stop: threading.Event | None = None,
    ) -> None:
        settings = client.settings
        self.stop = stop or threading.Event()
        self.panels = panels  # the poller's, per organization
        self.first_history_ms = first_history_ms
        self.interval = settings.reconcile_interval
        self.pacer = Pacer(settings.history_rate, self.stop)
        late_ms = int(settings.late_window * 1000)
        self.reconciler = Reconciler(client, self.pacer, late_ms, overlap_ms) if late_ms > 0 else None
        self.backfiller = Backfiller(
            client, self.pacer, int(settings.history_days * DAY_MS), first_history_ms
        )
        self.keyholders = KeyholderReads(client, self.pacer, settings.keyholder_ttl)
        self.fleet_reads = FleetReads(self.keyholders)  # the at-risk list's, when nothing else is due
        self._keyholders_first = True
        self._thread: threading.Thread | None = None

    def start(self, db_path: Path) -> threading.Thread:
        self._thread = threading.Thread(target=self.run, args=(db_path,), name="history", daemon=True)
        self._thread.start()
        return self._thread

    def close(self) -> None:
        self.stop.set()
        if self._thread is not None:
            # A daemon: a request in flight is not waited for long (`samops up` stops within 5 s).
            self._thread.join(timeout=2)

    def run(self, db_path: Path) -> None:
        db = open_cache(db_path, check_same_thread=False)
        due = 0.0
        try:
            while not self.stop.is_set():
                try:
                    reopen_if_replaced(db)  # a cache deleted under it: a fresh one (docs/storage.md)
                    due = self.turn(db, due)
                except (Stopped, RecordsLostError):  # the notifier's own loop says the records are gone
                    return
                except SamError as err:
                    # The service failed: the next turn asks again, from where it stopped. The poller beside
                    # it states an outage (one line when it starts, one when it ends), so this is not a third.
                    log.debug("history: %s: %s; trying again", type(err).__name__, err)
                    self.stop.wait(min(self.interval, 30.0))
                except sqlite3.OperationalError as err:
                    log.warning("history: the cache failed: %s; trying again", err)
                    self.stop.wait(min(self.interval, 30.0))
                except Exception:
                    # A fault of ours must not end late-event detection for the life of the process.
                    log.exception("history: unexpected failure; trying again")
                    self.stop.wait(min(self.interval, 30.0))
        finally:
            db.conn.close()

    def turn(self, db: sqlite_utils.Database, due: float) -> float:
        """One step: a reconciliation pass when due, else a panel of the backfill, else wait; returns when
        the next pass is due (time.monotonic)."""
        panels = self.panels()
        polled = set(cursors(db, CURSOR_TABLE))  # organizations the poller has read once
        if not panels or not polled:
            self.stop.wait(1.0)
            return due
        if self.reconciler is not None and time.monotonic() >= due:
            due = time.monotonic() + self.interval
            baseline = get_state(db, "baseline")
            floor = 0 if baseline is None else int(baseline) - self.first_history_ms
            report = self.reconciler.run(db, panels, polled, floor)
            if report.errors:  # the service's failures: the poller states the outage
                log.debug("history: %s", report.errors[0])
            return due

        # The keyholder reads and the backfill take turns, so that neither waits for the other to be done.
        def backfill() -> bool:
            return self.backfiller.step(db, {org: ids for org, ids in panels.items() if org in polled})

        def keyholders() -> bool:
            return self.keyholders.step(db)

        first, then = (keyholders, backfill) if self._keyholders_first else (backfill, keyholders)
        self._keyholders_first = not self._keyholders_first
        if first() or then() or self.fleet_reads.step(db):
            return due
        # Not longer than KEYHOLDER_LOOK_S: a new alarm's panel is read within it (or the next pass's end).
        wait = max(0.05, due - time.monotonic()) if self.reconciler is not None else self.interval
        self.stop.wait(min(wait, KEYHOLDER_LOOK_S))
        return due


__all__ = ["History"]
