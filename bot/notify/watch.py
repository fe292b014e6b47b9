"""After each notifier cycle: the records `/readyz` and `samops status` read (core/health.py: the last good
poll, the interval, Slack's last answer), the liveness promise `samops up` watches (core/liveness.py), and
the heartbeat (core/heartbeat.py), sent only when the cycle polled, delivered and the verdict is ready."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from core import cache, health, liveness, read
from core.cache import write_transaction
from core.clock import now_ms
from core.heartbeat import Heartbeat
from core.sqlite_lib import sqlite_utils

log = logging.getLogger(__name__)


@dataclass
class CycleWatch:
    db: sqlite_utils.Database
    interval_s: float
    slack: WebClient | None  # None: the notifier prints on its console
    heartbeat: Heartbeat | None = None
    alive: Path | None = None  # the liveness file; None: nobody watches (a notifier run by hand, a test)
    hang_after_s: float = liveness.HANG_MIN_S
    clock: Callable[[], int] = now_ms
    _probed: int = field(default=-1, init=False)  # ms of the last Slack probe

    def started(self) -> None:
        """Before the first cycle: the promise covers it too, thrice as long (the first poll logs in and
        learns the fleet's panels)."""
        if self.alive is not None:
            liveness.promise(self.alive, liveness.FIRST_CYCLE_TIMES * self.hang_after_s)

    def cycle_done(self, polled: bool, delivered: bool) -> None:
        """`polled`: this cycle's poll of the service worked; `delivered`: no channel's delivery fails."""
        now = self.clock()
        slack_ok = self._probe_slack(now)
        with write_transaction(self.db):
            cache.set_state(self.db, health.INTERVAL, f"{self.interval_s:g}")
            cache.set_state(self.db, health.DELIVERY, "slack" if self.slack is not None else "console")
            if polled:
                cache.set_state(self.db, health.POLL_OK, str(now))
            if slack_ok:
                cache.set_state(self.db, health.SLACK_OK, str(now))
        if self.alive is not None:
            liveness.promise(self.alive, self.hang_after_s)
        if self.heartbeat is not None and health.heartbeat_due(
            read.health_figures(self.db, now), polled and delivered
        ):
            self.heartbeat.beat()

    def close(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.close()

    def _probe_slack(self, now: int) -> bool:
        """Ask Slack (auth.test) at most every SLACK_PROBE_S, so that its last answer is known when nothing
        is posted; True when it answered now."""
        if self.slack is None or (self._probed >= 0 and now - self._probed < health.SLACK_PROBE_S * 1000):
            return False
        self._probed = now
        try:
            self.slack.auth_test()
        except SlackClientError as err:
            log.info("notify: Slack did not answer its probe (%s)", type(err).__name__)
            return False
        return True
