"""Roles from the service itself: a Slack user's e-mail (`users.info`, which holds `profile.email` only with
the `users:read.email` scope) is looked up with operation 13, and that service user's role names are what
`[roles.from_service]` maps to samops roles (bot/roles.py decides; the static `[roles]` lists win).

Answers are kept for a while (SERVICE_TTL_S; a failed lookup for FAILED_TTL_S), so a busy channel costs one
`users.info` and one operation 13 per person per ttl. Without the scope, or with no match, nothing is granted
and the static lists apply; a missing scope is logged once, at WARNING, never at ERROR.

Bounds (docs/security.md): lookups are paced to LOOKUPS_PER_S (the service's budget is 1 request/s); one
that would wait more than MAX_WAIT_S is not made ("busy", nothing granted, not kept). The service's answer
counts only when its e-mail is the one asked for, compared ignoring ASCII case only, and an address with
characters that Unicode folds or normalizes into others (U+212A KELVIN SIGN into `k`, fullwidth letters) is
never looked up: such an address could stand for another person's.
"""

from __future__ import annotations

import logging
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from core.errors import NotFoundError, SamError

if TYPE_CHECKING:
    from core.client import SamClient
    from core.models import User

log = logging.getLogger(__name__)

SERVICE_TTL_S = 600.0
FAILED_TTL_S = 30.0  # a service or Slack failure: ask again soon, but not on every command
LOOKUPS_PER_S = 1.0  # users.info + operation 13 per person not cached: within the service's 1 request/s
MAX_WAIT_S = 2.0  # a command waits this long at most for its turn (Slack shows an error after 3 s)
BUSY = "samops is looking up many people at once; try again in a minute"
NO_SCOPE = (
    "users.info refused (missing_scope %s): roles from the service are off; the static [roles] lists apply"
)
NO_EMAIL = (
    "Slack profiles come without e-mail (the users:read.email scope is missing, or the user has none): "
    "roles from the service cannot apply; the static [roles] lists do"
)


@dataclass(frozen=True)
class ServiceLookup:
    """What the service says of a Slack user. `roles` is empty when there is no match; `why` says why in
    words for `/sam whoami` ("no service user has the e-mail ana@example.com")."""

    roles: tuple[str, ...] = ()
    email: str | None = None
    service_user_id: int | None = None
    why: str = ""
    org_ids: tuple[int, ...] = ()  # the service user's organizations (the App Home lists their alarms)


class ServiceRoles:
    """Slack user id -> the service user's role names, cached with a time-to-live."""

    def __init__(
        self,
        web_client: WebClient,
        sam_client: Callable[[], SamClient],
        ttl: float = SERVICE_TTL_S,
        failed_ttl: float = FAILED_TTL_S,
        lookups_per_s: float = LOOKUPS_PER_S,
        seen: Callable[[str, object], None] | None = None,
    ) -> None:
        self._web = web_client
        # Told each users.info answer's user record (bot/person_zones.py reads its `tz`): one call, two uses.
        self._seen = seen
        self._sam = sam_client
        self._ttl = ttl
        self._failed_ttl = failed_ttl
        self._cache: dict[str, tuple[float, ServiceLookup]] = {}
        self._lock = threading.Lock()
        self._warned: set[str] = set()
        self._spacing = 1.0 / lookups_per_s
        self._next_slot = 0.0  # monotonic time the next lookup may be made

    def cached(self, slack_user: str) -> bool:
        """Whether `lookup` would answer from memory (no call to Slack or the service)."""
        with self._lock:
            found = self._cache.get(slack_user)
        return found is not None and found[0] > time.monotonic()

    def slot_free(self) -> bool:
        """Whether a lookup may be made now without waiting (the App Home builds only then)."""
        return self.wait() <= 0

    def wait(self) -> float:
        """Seconds until a lookup may be made without waiting."""
        with self._lock:
            return max(0.0, self._next_slot - time.monotonic())

    def lookup(self, slack_user: str, max_wait: float = MAX_WAIT_S) -> ServiceLookup:
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(slack_user)
        if cached and cached[0] > now:
            return cached[1]
        if not self._take_slot(max_wait):
            log.info(
                "role lookup of %s put off: more than %.0f lookups a second asked",
                slack_user,
                1.0 / self._spacing,
            )
            return ServiceLookup(why=BUSY)  # not kept: asked again at the next command
        found, ttl = self._ask(slack_user)
        with self._lock:
            self._cache[slack_user] = (time.monotonic() + ttl, found)
        return found

    def _take_slot(self, max_wait: float) -> bool:
        """Reserve the next lookup slot and wait for it; False (nothing reserved) if it is too far off."""
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next_slot)
            if start - now > max_wait:
                return False
            self._next_slot = start + self._spacing
        if start > now:
            time.sleep(start - now)
        return True

    def _ask(self, slack_user: str) -> tuple[ServiceLookup, float]:
        if not slack_user:
            return ServiceLookup(why="no Slack user in the request"), self._ttl
        try:
            answer = self._web.users_info(user=slack_user)
        except SlackApiError as err:
            error = str(err.response.get("error") or "")
            if error == "missing_scope":
                needed = err.response.get("needed") or "users:read"
                self._warn_once("scope", NO_SCOPE, needed)
                return ServiceLookup(why="samops may not read Slack profiles (scope users:read)"), self._ttl
            if error == "user_not_found":
                if self._seen is not None:
                    self._seen(slack_user, None)  # an answer too: no zone of theirs, not worth asking again
                return ServiceLookup(why="Slack does not know this user"), self._ttl
            log.warning("users.info of %s failed: %s", slack_user, error or err)
            return ServiceLookup(why="Slack did not answer users.info"), self._failed_ttl
        except (SlackClientError, OSError) as err:
            log.warning("users.info of %s failed: %s", slack_user, type(err).__name__)
            return ServiceLookup(why="Slack did not answer users.info"), self._failed_ttl
        user = answer.get("user")
        if self._seen is not None:
            self._seen(slack_user, user)
        profile = user.get("profile") if isinstance(user, dict) else None
        email = profile.get("email") if isinstance(profile, dict) else None
        if not isinstance(email, str) or "@" not in email:
            self._warn_once("email", NO_EMAIL)
            return ServiceLookup(
                why="Slack gave no e-mail for you (you have none, or samops lacks the users:read.email scope)"
            ), self._ttl
        if not plain_address(email):
            log.info("a Slack e-mail holds characters that fold into others; not looked up")
            return ServiceLookup(
                email=email,
                why="your Slack e-mail has characters that could stand for others; it is not looked up",
            ), self._ttl
        return self._service(email)

    def _service(self, email: str) -> tuple[ServiceLookup, float]:
        try:
            user = self._sam().get_user_by_email(email)
        except NotFoundError:
            log.info("no service user has the e-mail of a Slack user; the static lists apply")
            return ServiceLookup(email=email, why=f"no service user has the e-mail {email}"), self._ttl
        except SamError as err:
            log.warning("operation 13 failed for a Slack user's e-mail: %s", type(err).__name__)
            return ServiceLookup(email=email, why="the service did not answer"), self._failed_ttl
        if not same_address(user.email_address, email):
            log.warning("operation 13 answered with another e-mail than the one asked; no role granted")
            return ServiceLookup(email=email, why=f"the service answered for another e-mail than {email}"), (
                self._ttl
            )
        names = tuple(dict.fromkeys(r.role_name for r in user.roles or [] if r.role_name))
        why = "" if names else f"the service user {user.user_id} has no roles"
        return ServiceLookup(names, email, user.user_id, why, _org_ids(user)), self._ttl

    def _warn_once(self, key: str, message: str, *args: object) -> None:
        with self._lock:
            first = key not in self._warned
            self._warned.add(key)
        if first:
            log.warning(message, *args)


def ascii_lower(text: str) -> str:
    """`text` with A-Z lowered and nothing else changed (str.lower folds U+212A into `k`, and more)."""
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def plain_address(email: str) -> bool:
    """Whether no character of `email` folds or normalizes into another (NFKC, case folding): such an address
    could be matched, by a service comparing loosely, to someone else's."""
    return unicodedata.normalize("NFKC", email).casefold() == ascii_lower(email) and email.isprintable()


def same_address(answered: object, asked: str) -> bool:
    """The service answered for the address asked: equal but for ASCII case, and nothing else."""
    return isinstance(answered, str) and ascii_lower(answered) == ascii_lower(asked)


def _org_ids(user: User) -> tuple[int, ...]:
    """The organizations a service user belongs to: `organizationIds`, else the ids of `organizations`."""
    ids = list(user.organization_ids or []) or [o.id for o in user.organizations or []]
    return tuple(sorted({int(i) for i in ids if isinstance(i, int) or (isinstance(i, str) and i.isdigit())}))
