"""How much `/sam who-can` and `/sam panel` (and the cards' "Who can?" button) may ask the service: any
viewer may send them, and each asks live (who-can 1 + one per authorized person, panel 4 requests), so a
flood of them was a flood on the service (100 commands in 12 s made 400 requests).

Each organization has a bucket of `BURST` requests, refilled at `PER_SECOND`: a command that finds its
requests there asks live, as before. Past it, `/sam who-can` answers from the authorizations samops read last
(saying when), and when it has none, or for `/sam panel`, says "busy, try again in N s" and asks nothing.
So over any stretch of t seconds these commands cost one organization at most BURST + PER_SECOND * t
requests, however many are sent (docs/security.md).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from bot.pace import TokenBucket

BURST = 80  # requests: about twenty who-can or panel answers in a row, live
PER_SECOND = 0.5  # requests a second, refilled: 30 a minute once the burst is spent
PANEL_COST = 4  # operations 18, 14, 19 and 3
WHO_CAN_GUESS = 4  # operation 2 and, typically, three people's operation 15 (the exact count is paid after)


class LiveBudget:
    """One `TokenBucket` of service requests per organization (None: commands naming none)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._buckets: dict[int | None, TokenBucket] = {}
        self._lock = threading.Lock()

    def _bucket(self, org: int | None) -> TokenBucket:
        with self._lock:
            bucket = self._buckets.get(org)
            if bucket is None:
                bucket = self._buckets[org] = TokenBucket(PER_SECOND, BURST, self._clock)
            return bucket

    def take(self, org: int | None, requests: float) -> bool:
        """Take `requests` from the organization's bucket if they are there; False (nothing taken) if not."""
        return self._bucket(org).take(requests)

    def spend(self, org: int | None, requests: float) -> None:
        """Pay for requests already made beyond what was taken (a debt that later commands wait out)."""
        if requests > 0:
            self._bucket(org).spend(requests)

    def busy_text(self, org: int | None, requests: float) -> str:
        """What a person is told when the organization's requests are spent."""
        seconds = max(1, math.ceil(self._bucket(org).wait(requests)))
        return (
            f"samops has asked the service a lot about this organization just now; busy, try again in "
            f"{seconds} s."
        )
