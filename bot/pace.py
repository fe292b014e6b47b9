"""A token bucket: how the bot keeps its calls to Slack within Slack's rate tiers and its own work bounded.

`per_second` tokens come in, at most `capacity` are saved up (a burst); a caller takes one per call, or
more. `take` may run into debt (a call that turned out to need more pages than expected): later callers
wait it out, so the rate over any stretch of time stays within `capacity + per_second * seconds`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class TokenBucket:
    def __init__(
        self, per_second: float, capacity: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_second = per_second
        self.capacity = max(1.0, capacity)
        self.clock = clock
        self._tokens = self.capacity
        self._at = clock()
        self._lock = threading.Lock()

    def _refill(self) -> float:
        now = self.clock()
        self._tokens = min(self.capacity, self._tokens + (now - self._at) * self.per_second)
        self._at = now
        return self._tokens

    def can_take(self, n: float = 1.0, keep: float = 0.0) -> bool:
        """Whether `n` tokens may be taken now and `keep` still be left."""
        with self._lock:
            return self._refill() - keep >= n

    def take(self, n: float = 1.0, keep: float = 0.0) -> bool:
        """Take `n` tokens if `keep` are left after; False (nothing taken) otherwise."""
        with self._lock:
            if self._refill() - keep < n:
                return False
            self._tokens -= n
            return True

    def spend(self, n: float = 1.0) -> None:
        """Take `n` tokens whether or not they are there (a call already made): the debt is waited out."""
        with self._lock:
            self._refill()
            self._tokens -= n

    def wait(self, n: float = 1.0, keep: float = 0.0) -> float:
        """Seconds until `n` tokens may be taken with `keep` left."""
        with self._lock:
            missing = n + keep - self._refill()
        return max(0.0, missing / self.per_second)

    def hold(self, seconds: float) -> None:
        """Nothing for `seconds` (a 429's Retry-After): the bucket is emptied that far ahead."""
        with self._lock:
            self._refill()
            self._tokens = min(self._tokens, -seconds * self.per_second)
