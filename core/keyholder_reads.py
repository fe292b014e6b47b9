"""Reading the authorizations behind the keyholder line (docs/keyholders.md), only for panels with alarms.

A panel with an alarm in the last ALARMS_WINDOW_MS whose authorizations were never read, were read more than
`SAMOPS_KEYHOLDER_TTL` ago (6 h), or failed to be read more than `retry_ms` ago, is due. One step reads one
organization's due panels: operation 2 once (the organization's bulk listing), then operation 15 once per user
authorized on them, every request waiting for the pace it is given (the history thread's, `core/history.py`:
reconciliation, the backfill and these reads share 0.2 requests/s per organization, so the idle budget of 1/s
per organization all told is unchanged). What was read replaces the cache's rows for those panels and is
recorded read in the same transaction; a failure is recorded with a short reason, so the line says so.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from core.cache.panel_access import record_reads, replace_panel_access
from core.cache.transactions import write_transaction
from core.client import SamClient
from core.clock import DAY_MS, now_ms
from core.errors import (
    APIError,
    AuthenticationError,
    RateLimitError,
    ResponseFormatError,
    SamError,
    ServerError,
    TransportError,
)
from core.pacing import Pacer
from core.panel_access import fetch_panel_access
from core.read.keyholders import panels_due
from core.sqlite_lib import sqlite_utils

log = logging.getLogger("samops.keyholders")

ALARMS_WINDOW_MS = DAY_MS  # a panel "has alarms" when it had one in the last day (a card, a Home row)
MAX_RETRY_MS = 600_000  # a failed read is tried again after a tenth of the TTL, at most 10 minutes
NOT_LISTED = "the service does not list this panel in its organization"
# Panels read in one step, the newest alarms' first: a step stays short (the listing, then one request per
# user at the pace: about 10 requests, 50 s at 0.2/s), so a new alarm's panel never waits behind a long list.
MAX_PANELS_PER_STEP = 3


def failure_reason(err: SamError) -> str:
    """A short reason for the line: what went wrong, never what the service's body said."""
    match err:
        case TransportError():
            return "the service did not answer"
        case RateLimitError():
            return "the service asked samops to slow down (HTTP 429)"
        case AuthenticationError():
            return f"the service refused samops' login (HTTP {err.status_code})"
        case ServerError():
            return f"the service failed (HTTP {err.status_code})"
        case APIError():
            return f"the service refused (HTTP {err.status_code})"
        case ResponseFormatError():
            return "the service's answer could not be read"
        case _:
            return "the service failed"


class KeyholderReads:
    def __init__(
        self, client: SamClient, pacer: Pacer, ttl_s: float, clock: Callable[[], int] = now_ms
    ) -> None:
        self.client = client
        self.pacer = pacer
        self.ttl_ms = int(ttl_s * 1000)
        self.retry_ms = min(self.ttl_ms // 10, MAX_RETRY_MS)
        self.clock = clock

    def step(self, db: sqlite_utils.Database) -> bool:
        """Read the due panels of one organization (the one with the newest alarm), at most
        MAX_PANELS_PER_STEP; False when none is due."""
        now = self.clock()
        due = panels_due(db, now - ALARMS_WINDOW_MS, now, self.ttl_ms, self.retry_ms)
        if not due:
            return False
        org, panels = next(iter(due.items()))
        self.read(db, org, panels[:MAX_PANELS_PER_STEP])
        return True

    def read(self, db: sqlite_utils.Database, org: int | None, panels: list[int]) -> None:
        try:
            rows, listed = fetch_panel_access(self.client, org, panels, pace=self.pacer.for_org(org))
        except SamError as err:
            reason = failure_reason(err)
            # Recorded, and said on each card ("could not be read: …"); the poller beside this thread
            # states an outage in one line when it starts and one when it ends: this is not a third.
            log.debug("keyholders: reading the authorizations of organization %s failed: %s", org, reason)
            with write_transaction(db):
                record_reads(db, org, panels, self.clock(), error=reason)
            return
        read = [p for p in panels if p in listed]
        missing = [p for p in panels if p not in listed]
        with write_transaction(db):
            replace_panel_access(db, org, read, rows)
            record_reads(db, org, read, self.clock())
            record_reads(db, org, missing, self.clock(), error=NOT_LISTED)
        log.debug("keyholders: read %d panels of organization %s (%d rows)", len(read), org, len(rows))


__all__ = ["KeyholderReads", "failure_reason"]
