"""Names for ids, looked up in the service, so that confirmations say who and what will change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.render.access import PanelChoice, PrivilegeGroup
from core.errors import NotFoundError, SamError
from core.models import LoginResult, ResourceSummary, User
from core.panel_access import privilege_group_names

if TYPE_CHECKING:
    from bot.context import AppContext


def session(ctx: AppContext) -> LoginResult:
    return ctx.client.session or ctx.client.login()


def org_of(ctx: AppContext, org_id: int | None) -> int:
    """The organization a write goes to: the one asked for, else the client's default."""
    session(ctx)
    return ctx.client.resolve_org(org_id)


def find_user(ctx: AppContext, user_id: int, org_id: int | None) -> User:
    """The user (operation 12 lists the users of the organizations of a user); NotFoundError if unknown."""
    for user in ctx.client.list_organization_users(user_id, org=org_id):
        if user.user_id == user_id:
            return user
    raise NotFoundError(404, "NOT_FOUND", f"userId {user_id}", path=f"/user/{user_id}/organization-users")


def org_panels(ctx: AppContext, org_id: int) -> list[ResourceSummary]:
    """The alarm panels of one organization, from the login result."""
    return [p for p in session(ctx).panels if p.org_id in (None, org_id) and p.resource_id is not None]


def find_panel(ctx: AppContext, panel_id: int, org_id: int) -> ResourceSummary:
    for panel in org_panels(ctx, org_id):
        if panel.resource_id == panel_id:
            return panel
    raise NotFoundError(404, "NOT_FOUND", f"panel {panel_id}")  # found locally: no request, so no path


def panel_choices(ctx: AppContext, org_id: int) -> list[PanelChoice]:
    return [
        PanelChoice(int(p.resource_id), p.resource_name) for p in org_panels(ctx, org_id) if p.resource_id
    ]


def privilege_groups(ctx: AppContext, user_id: int, org_id: int) -> tuple[list[PrivilegeGroup], object]:
    """Every privilege group known for the user (operation 15), with the user's current authority, and the
    operation-15 result itself (for the current validity)."""
    result = ctx.client.get_user_privilege_groups(user_id, org=org_id)
    names = group_names(ctx, org_id)
    groups: dict[int, PrivilegeGroup] = {}
    for item in result.user_privilege_groups or []:
        if item.privilege_group_id is None:
            continue
        name = names.get(item.privilege_group_id)
        groups[item.privilege_group_id] = PrivilegeGroup(item.privilege_group_id, name, bool(item.authority))
    return [groups[k] for k in sorted(groups)], result


def group_names(ctx: AppContext, org_id: int | None) -> dict[int, str]:
    """The privilege groups' names by id (core.panel_access.privilege_group_names); none when the service
    cannot say now: the groups are then shown by number, as before, rather than the answer failing."""
    try:
        return privilege_group_names(ctx.client, org_id)
    except SamError:
        return {}
