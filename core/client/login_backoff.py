"""A refused login is not asked again at a steady rate. Many services lock an account after a few wrong
passwords in a row, so once the service answers a login with 401 or 403, this client waits before the next
login: 30 s, then twice as long each time, up to one attempt every 10 minutes, until a login succeeds.
Every call that needs a login meanwhile fails at once with `LoginRefusedError`, without a request."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeGuard

from core.clock import now_ms
from core.errors import APIError, LoginRefusedError
from core.text import counted, duration

REFUSED_STATUSES = frozenset({401, 403})
FIRST_WAIT_S = 30.0
MAX_WAIT_S = 600.0  # at most one login every 10 minutes, however long the password stays wrong
ADVICE = "check SAM_SCREEN_NAME and SAM_PASSWORD (environment or .env)"


def refused(err: Exception) -> TypeGuard[APIError]:
    """Is `err` the service refusing the credentials of a login?"""
    return isinstance(err, APIError) and err.status_code in REFUSED_STATUSES


def reason(err: APIError) -> str:
    """What the service said, without the request: "401 UNAUTHORIZED: invalid screenName or password"."""
    said = f": {err.message}" if err.message else ""
    return f"{err.status_code} {err.error or ''}".rstrip() + said


@dataclass(frozen=True)
class Refusal:
    """Where the back-off stands: what the service said, how many logins it refused in a row, since when,
    and when the next one may be sent (wall-clock milliseconds, for `samops status`)."""

    status_code: int
    reason: str
    attempts: int
    since_ms: int
    next_at_ms: int
    wait_s: float

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Refusal | None:
        """The refusal `to_json` wrote; None for anything else (a cache written by another version)."""
        try:
            return cls(**json.loads(text))
        except (ValueError, TypeError):
            return None

    def status(self, now_ms: int) -> str:
        """For `samops status`: what the service said, since when, and when the next login goes."""
        since = duration((now_ms - self.since_ms) / 1000)
        left_ms = self.next_at_ms - now_ms
        left = f"in {duration(left_ms / 1000)}" if left_ms > 0 else "due now"
        tries = counted(self.attempts, "refused login")
        said = f"the service refuses the login ({self.reason}) for {since}, {tries}"
        return f"{said}; next attempt {left}: {ADVICE}"

    def line(self, account: str) -> str:
        """The one WARNING line each refused attempt is worth."""
        return (
            f"the service refused the login of {account!r} ({self.reason}); next attempt in "
            f"{duration(self.wait_s)}, backing off to one every {duration(MAX_WAIT_S)} so as not to lock "
            f"the account: {ADVICE}"
        )


class LoginBackoff:
    """Thread-safe state of the refused logins of one client."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[Refusal | None], None] | None = None,
    ) -> None:
        self._clock = clock
        self._on_change = on_change  # told each new refusal, and None when a login works again
        self._lock = threading.Lock()
        self._refusal: Refusal | None = None
        self._next_at = 0.0  # on `clock`, which may not be the wall clock

    @property
    def refusal(self) -> Refusal | None:
        """The current back-off, None while logins are not refused."""
        return self._refusal

    def check(self) -> None:
        """Raise LoginRefusedError while the last refusal's wait runs; return when a login may be sent."""
        with self._lock:
            refusal, remaining = self._refusal, self._next_at - self._clock()
        if refusal is None or remaining <= 0:
            return
        raise LoginRefusedError(
            refusal.status_code,
            f"the service refused the login ({refusal.reason}); samops sends the next one in "
            f"{duration(remaining)}, not sooner: {ADVICE}",
            refusal.next_at_ms,
        )

    def refused(self, err: APIError) -> Refusal:
        """Record a refused login; returns the new back-off (its wait doubled, up to MAX_WAIT_S)."""
        with self._lock:
            attempts = self._refusal.attempts + 1 if self._refusal else 1
            wait = min(FIRST_WAIT_S * 2 ** (attempts - 1), MAX_WAIT_S)
            now = now_ms()
            since = self._refusal.since_ms if self._refusal else now
            refusal = Refusal(err.status_code, reason(err), attempts, since, now + int(wait * 1000), wait)
            self._refusal, self._next_at = refusal, self._clock() + wait
        if self._on_change is not None:
            self._on_change(refusal)
        return refusal

    def succeeded(self) -> Refusal | None:
        """A login went through: no more back-off. Returns the refusal that ended, if any."""
        with self._lock:
            ended, self._refusal, self._next_at = self._refusal, None, 0.0
        if ended is not None and self._on_change is not None:
            self._on_change(None)
        return ended
