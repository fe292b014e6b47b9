"""The channels a Slack user is in, for their App Home: `users.conversations` with `user`, public and private
channels (scopes channels:read and groups:read; Slack lists a private channel only when the bot is in it
too, which is where samops posts anyway), every page, kept for a while (`SAMOPS_HOME_CHANNELS_TTL`).

Without a scope, or while Slack fails, the answer is "not known" and why, never an error: the Home then
falls back to the person's organizations, or to every alarm, and says so. A missing scope is logged once.

`users.conversations` is in Slack's rate tier 3 (50+ calls a minute): every page is counted in PER_MINUTE
and BURST, which keep any minute under 50; the App Home asks only when `can_ask` (bot/events/home.py).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.pace import TokenBucket

log = logging.getLogger(__name__)

TYPES = "public_channel,private_channel"
PAGE = 200  # Slack: "We recommend no more than 200 results at a time"
MAX_PAGES = 25  # 5,000 channels: anyone in more is in every alarm channel anyway
FAILED_TTL_S = 30.0  # ask again soon after a failure, but not for every Home
PER_MINUTE = 40.0  # users.conversations calls a minute, and ...
BURST = 10.0  # ... at most this many at once: within tier 3's 50 a minute


@dataclass(frozen=True)
class Channels:
    ids: frozenset[str] | None  # None: not known
    why: str = ""  # why not known, in words for the Home


class Memberships:
    """Slack user id -> the channels they are in, cached with a time-to-live."""

    def __init__(self, web: WebClient, ttl: float, failed_ttl: float = FAILED_TTL_S) -> None:
        self._web = web
        self._ttl = ttl
        self._failed_ttl = failed_ttl
        self._cache: dict[str, tuple[float, Channels]] = {}
        self._lock = threading.Lock()
        self._warned = False
        self.calls = TokenBucket(PER_MINUTE / 60.0, BURST)

    def cached(self, user: str) -> bool:
        with self._lock:
            found = self._cache.get(user)
        return found is not None and found[0] > time.monotonic()

    def can_ask(self, user: str) -> bool:
        """Whether `of(user)` would answer now within Slack's tier: from memory, or with a call to spare."""
        return self.cached(user) or self.calls.can_take()

    def of(self, user: str) -> Channels:
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(user)
        if cached and cached[0] > now:
            return cached[1]
        found, ttl = self._ask(user)
        with self._lock:
            self._cache[user] = (now + ttl, found)
        return found

    def _ask(self, user: str) -> tuple[Channels, float]:
        ids: set[str] = set()
        cursor = ""
        try:
            for _ in range(MAX_PAGES):
                self.calls.spend()  # made whatever the bucket holds: a person's pages are read to the end
                answer = self._web.users_conversations(
                    user=user, types=TYPES, exclude_archived=True, limit=PAGE, cursor=cursor or None
                )
                ids.update(
                    str(c["id"]) for c in answer.get("channels") or [] if isinstance(c, dict) and "id" in c
                )
                cursor = str((answer.get("response_metadata") or {}).get("next_cursor") or "")
                if not cursor:
                    break
        except SlackApiError as err:
            return self._failed(err)
        except (SlackClientError, OSError) as err:
            log.warning("users.conversations of %s failed: %s", user, type(err).__name__)
            return Channels(None, "Slack did not answer users.conversations"), self._failed_ttl
        return Channels(frozenset(ids)), self._ttl

    def _failed(self, err: SlackApiError) -> tuple[Channels, float]:
        error = str(err.response.get("error") or "")
        if error == "missing_scope":
            if not self._warned:
                self._warned = True
                log.warning(
                    "users.conversations refused (missing_scope %s): App Homes cannot list alarms by channel",
                    err.response.get("needed") or "channels:read",
                )
            return Channels(
                None, "samops may not list your channels (scopes channels:read, groups:read)"
            ), self._ttl
        if error == "user_not_found":
            return Channels(None, "Slack does not list your channels to samops"), self._ttl
        if err.response.status_code == 429:
            retry_after = float(err.response.headers.get("Retry-After") or self._failed_ttl)
            return Channels(None, "Slack asked samops to slow down"), max(retry_after, 1.0)
        log.warning("users.conversations failed: %s", error or err.response.status_code)
        return Channels(None, "Slack did not answer users.conversations"), self._failed_ttl
