"""Roles from the service itself: a Slack user's e-mail (`users.info`, which holds `profile.email` only with
the `users:read.email` scope) is looked up with operation 13, and that service user's role names are what
`[roles.from_service]` maps to samops roles (bot/roles.py decides; the static `[roles]` lists win).

Answers are kept for a while (SERVICE_TTL_S; a failed lookup for FAILED_TTL_S), so a busy channel costs one
`users.info` and one operation 13 per person per ttl. Without the scope, or with no match, nothing is granted
and the static lists apply; a missing scope is logged once, at WARNING, never at ERROR.
"""

from __future__ import annotations

import logging
import threading
import time
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
    ) -> None:
        self._web = web_client
        self._sam = sam_client
        self._ttl = ttl
        self._failed_ttl = failed_ttl
        self._cache: dict[str, tuple[float, ServiceLookup]] = {}
        self._lock = threading.Lock()
        self._warned: set[str] = set()

    def lookup(self, slack_user: str) -> ServiceLookup:
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(slack_user)
        if cached and cached[0] > now:
            return cached[1]
        found, ttl = self._ask(slack_user)
        with self._lock:
            self._cache[slack_user] = (now + ttl, found)
        return found

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
                return ServiceLookup(why="Slack does not know this user"), self._ttl
            log.warning("users.info of %s failed: %s", slack_user, error or err)
            return ServiceLookup(why="Slack did not answer users.info"), self._failed_ttl
        except (SlackClientError, OSError) as err:
            log.warning("users.info of %s failed: %s", slack_user, type(err).__name__)
            return ServiceLookup(why="Slack did not answer users.info"), self._failed_ttl
        user = answer.get("user")
        profile = user.get("profile") if isinstance(user, dict) else None
        email = profile.get("email") if isinstance(profile, dict) else None
        if not isinstance(email, str) or "@" not in email:
            self._warn_once("email", NO_EMAIL)
            return ServiceLookup(
                why="Slack gave no e-mail for you (you have none, or samops lacks the users:read.email scope)"
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
        names = tuple(dict.fromkeys(r.role_name for r in user.roles or [] if r.role_name))
        why = "" if names else f"the service user {user.user_id} has no roles"
        return ServiceLookup(names, email, user.user_id, why, _org_ids(user)), self._ttl

    def _warn_once(self, key: str, message: str, *args: object) -> None:
        with self._lock:
            first = key not in self._warned
            self._warned.add(key)
        if first:
            log.warning(message, *args)


def _org_ids(user: User) -> tuple[int, ...]:
    """The organizations a service user belongs to: `organizationIds`, else the ids of `organizations`."""
    ids = list(user.organization_ids or []) or [o.id for o in user.organizations or []]
    return tuple(sorted({int(i) for i in ids if isinstance(i, int) or (isinstance(i, str) and i.isdigit())}))
