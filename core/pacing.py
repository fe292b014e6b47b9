"""One request at a time per organization, at most `rate` a second: what reconciliation and the backfill
share (docs/history.md), so that with the poller and the tiered sync an idle organization costs the
service at most one request a second."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Pacer:
    """`wait(org)` returns when the next request of `org` may go: 1/rate after the one before it."""

    def __init__(
        self,
        rate: float,
        stop: threading.Event | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.gap = 1.0 / rate
        self.stop = stop or threading.Event()
        self._clock = clock
        self._next: dict[int | None, float] = {}
        self._lock = threading.Lock()
        self.requests = 0  # how many were let go (tests and the docs' figures count them)

    def wait(self, org: int | None) -> None:
        with self._lock:
            now = self._clock()
            at = max(now, self._next.get(org, now))
            self._next[org] = at + self.gap
            self.requests += 1
        if at > now:
            self.stop.wait(at - now)
        if self.stop.is_set():
            raise Stopped

    def for_org(self, org: int | None) -> Callable[[], None]:
        return lambda: self.wait(org)


class Stopped(Exception):
    """The process is stopping: a paced step gives up before its next request (nothing half-written)."""


__all__ = ["Pacer", "Stopped"]
