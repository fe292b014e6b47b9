"""Who may do what: the config's `[roles]`, by Slack user id or user-group id (members fetched and cached),
then, for people listed nowhere, the service's own roles mapped by `[roles.from_service]`
(bot/roles_service.py), then `default_role`.

Organizations: the static lists and `default_role` hold in every organization samops serves (whoever runs
samops vouches for the people listed). A role from the service holds only in the organizations the service
gives that user (`organizationIds` of operation 13's answer): asked about an organization (an alarm's, a
panel's, a window's), `explain(user, org_id)` does not count it elsewhere. A write that names no
organization (it may land in any of them) counts it only where it holds in every organization samops serves
(`explain_everywhere`)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from enum import IntEnum

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.render.common import escape
from bot.roles_service import ServiceRoles
from core.config import RolesConfig

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
    return (
        f"Sorry, samops is open only to the people its admins have listed; {whom}. "
        "`/sam whoami` says why you are not."
    )


ROLE_NAMES = {"viewer": Role.VIEWER, "technician": Role.TECHNICIAN, "admin": Role.ADMIN}


@dataclass(frozen=True)
class RoleAnswer:
    """A role and why, in words for `/sam whoami` (Slack mrkdwn)."""

    role: Role
    why: str

    def sentence(self) -> str:
        """The role and why in one sentence, for `/sam whoami` and the App Home: "You are a viewer: ..."."""
        name = self.role.name.lower()
        return f"You are {'an' if name[0] in 'aeiou' else 'a'} {name}: {self.why}."


class RoleResolver:
    """Maps a Slack user id to a `Role`: the highest static list naming the user (or one of their groups)
    wins; else the highest service role `[roles.from_service]` maps; else `default_role`."""

    def __init__(
        self,
        roles: RolesConfig,
        client: WebClient,
        ttl: float = GROUP_TTL_S,
        service: ServiceRoles | None = None,
        demo_admin: str | None = None,
    ) -> None:
        self._roles = roles
        self._demo_admin = demo_admin  # on the embedded simulator only: `samops slash`'s user (SLASH_USER)
        self._client = client
        self._ttl = ttl
        self._groups: dict[str, tuple[float, frozenset[str]]] = {}  # group -> (expires at, members)
        self._lock = threading.Lock()
        self.service = service  # set by build_context when `[roles.from_service]` maps anything

    @property
    def maps_service_roles(self) -> bool:
        return bool(self._roles.from_service)

    def role_of(self, user_id: str, org_id: int | None = None) -> Role:
        return self.explain(user_id, org_id).role

    def explain(self, user_id: str, org_id: int | None = None) -> RoleAnswer:
        """The user's role, and why; in organization `org_id` when given (None: their role anywhere)."""
        return self._explain(user_id, None if org_id is None else (org_id,))

    def explain_everywhere(self, user_id: str, org_ids: tuple[int, ...]) -> RoleAnswer:
        """The user's role in every one of `org_ids` (the organizations samops serves): a role from the
        service counts only when the service gives it in all of them; with none known, not at all."""
        return self._explain(user_id, org_ids)

    def _explain(self, user_id: str, org_ids: tuple[int, ...] | None) -> RoleAnswer:
        """None: the role anywhere; else the role in all of `org_ids`."""
        for role, key in ((Role.ADMIN, "admins"), (Role.TECHNICIAN, "technicians"), (Role.VIEWER, "viewers")):
            via = self._listed(getattr(self._roles, key), user_id)
            if via is not None:
                return RoleAnswer(role, f"listed in `[roles] {key}`{via}")
        if self._demo_admin is not None and user_id == self._demo_admin:
            return RoleAnswer(
                Role.ADMIN,
                "the user of `samops slash` is an admin of the demo on the embedded simulator "
                "(on a service of your own, roles come from `[roles]`)",
            )
        from_service, why_not = self._from_service(user_id, org_ids)
        if from_service is not None:
            return from_service
        if self._roles.default_role == "viewer":
            return RoleAnswer(
                Role.VIEWER, f"the default role of people not listed (`[roles] default_role`){why_not}"
            )
        return RoleAnswer(Role.NONE, f"not listed, and `[roles] default_role` is none{why_not}")

    def _from_service(self, user_id: str, org_ids: tuple[int, ...] | None) -> tuple[RoleAnswer | None, str]:
        """The role the service's roles map to, or None and why not (a clause for the default's answer)."""
        if not self._roles.from_service or self.service is None:
            return None, ""
        found = self.service.lookup(user_id)
        if org_ids is not None and found.roles and not (org_ids and set(org_ids) <= set(found.org_ids)):
            where = ", ".join(map(str, found.org_ids)) or "no organization"
            asked = f"organization {org_ids[0]}" if len(org_ids) == 1 else "every organization samops serves"
            why = f"the service gives you roles in {where}, not in {asked}"
            return None, f"; roles from the service do not apply: {escape(why)}"
        mapping = {name.casefold(): ROLE_NAMES[role] for name, role in self._roles.from_service.items()}
        mapped = [(mapping[r.casefold()], r) for r in found.roles if r.casefold() in mapping]
        if not mapped:
            why = (
                found.why
                or f"your service roles ({', '.join(found.roles)}) are not in `[roles.from_service]`"
            )
            return None, f"; roles from the service do not apply: {escape(why)}"
        role, name = max(mapped, key=lambda m: m[0])
        who = f"{found.email} (service user {found.service_user_id})" if found.email else "you"
        why = (
            f"the service knows {escape(who)} with the role {escape(name)}, "
            f"which `[roles.from_service]` maps to {role.name.lower()}"
        )
        return RoleAnswer(role, why), ""

    def _listed(self, ids: tuple[str, ...], user_id: str) -> str | None:
        """None when `ids` does not name the user; else "" (by id) or how (through a user group)."""
        if user_id in ids:
            return ""
        group = next((g for g in ids if is_group_id(g) and user_id in self._members(g)), None)
        return None if group is None else f" through the user group {mention(group)}"

    def refusal(self) -> str:
        """The answer to someone who may not use the bot: polite, and naming whom to ask."""
        return refusal(self._roles)

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
