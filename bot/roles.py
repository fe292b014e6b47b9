"""Who may do what: the config's `[roles]`, by Slack user id or user-group id (members fetched and cached)."""

from __future__ import annotations

import logging
import threading
import time
from enum import IntEnum

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.config import RolesConfig

log = logging.getLogger(__name__)


class Role(IntEnum):
    """What a Slack user may do. Unknown users get `[roles] default_role`: viewer, or none."""

    NONE = -1  # may not use the bot at all (`default_role = "none"` and not listed)
    VIEWER = 0  # reads
    TECHNICIAN = 1  # writes: rename, task update, grant, camera add
    ADMIN = 2  # destructive: revoke, user delete (after a confirm dialog)


GROUP_TTL_S = 300.0
FAILED_GROUP_TTL_S = 30.0  # retry a group whose members could not be read, but not on every command


def is_group_id(slack_id: str) -> bool:
    return slack_id.startswith("S")


def mention(slack_id: str) -> str:
    """A user or user-group id as a Slack mention (ids are checked by the config: no markup inside)."""
    return f"<!subteam^{slack_id}>" if is_group_id(slack_id) else f"<@{slack_id}>"


def refusal(roles: RolesConfig) -> str:
    admins = ", ".join(mention(a) for a in roles.admins)
    whom = f"ask an admin ({admins}) to add you" if admins else "ask whoever runs samops here to add you"
    return f"Sorry, samops is open only to the people its admins have listed; {whom}."


class RoleResolver:
    """Maps a Slack user id to a `Role`: the highest role naming the user (or one of their groups) wins."""

    def __init__(self, roles: RolesConfig, client: WebClient, ttl: float = GROUP_TTL_S) -> None:
        self._roles = roles
        self._client = client
        self._ttl = ttl
        self._groups: dict[str, tuple[float, frozenset[str]]] = {}  # group -> (expires at, members)
        self._lock = threading.Lock()

    def role_of(self, user_id: str) -> Role:
        if self._names(self._roles.admins, user_id):
            return Role.ADMIN
        if self._names(self._roles.technicians, user_id):
            return Role.TECHNICIAN
        if self._roles.default_role == "viewer" or self._names(self._roles.viewers, user_id):
            return Role.VIEWER
        return Role.NONE

    def refusal(self) -> str:
        """The answer to someone who may not use the bot: polite, and naming whom to ask."""
        return refusal(self._roles)

    def _names(self, ids: tuple[str, ...], user_id: str) -> bool:
        if user_id in ids:
            return True
        return any(user_id in self._members(group) for group in ids if is_group_id(group))

    def _members(self, group: str) -> frozenset[str]:
        now = time.monotonic()
        with self._lock:
            cached = self._groups.get(group)
        if cached and cached[0] > now:
            return cached[1]
        try:
            users = self._client.usergroups_users_list(usergroup=group).get("users") or []
            members, ttl = frozenset(str(u) for u in users), self._ttl
        except (SlackApiError, SlackClientError, OSError) as err:
            # A group we cannot read grants nothing: fail closed, say why in the log.
            log.warning("could not read members of user group %s: %s", group, err)
            members, ttl = (cached[1] if cached else frozenset()), FAILED_GROUP_TTL_S
        with self._lock:
            self._groups[group] = (now + ttl, members)
        return members
