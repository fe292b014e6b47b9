"""`/sam access grant <userId>` (a modal → operation 4) and `/sam access revoke <userId> <panelId>`
(operation 10, admins only, after Slack's danger-style confirm dialog)."""

from __future__ import annotations

from slack_sdk.models.views import View

from bot.context import AppContext
from bot.forms.fields import one_id, parse_id
from bot.lookups import find_panel, find_user, org_of, panel_choices, privilege_groups
from bot.modals import modal_meta, open_modal
from bot.render.access import grant_modal, revoke_confirmation
from bot.render.users import full_name
from bot.roles import Role
from bot.slash.registry import Invocation, Reply, UsageError, subcommand


@subcommand(
    "access",
    "grant",
    usage="/sam access grant <userId>",
    summary="set a user's privilege groups and panels (a form)",
    role=Role.TECHNICIAN,
    write=True,
    examples=("/sam access grant 20001",),
)
def grant_access(inv: Invocation, ctx: AppContext) -> Reply | None:
    user_id = one_id(inv.args, "userId", "give exactly one user id")
    return open_modal(ctx, inv, "Grant access", lambda: _grant_form(ctx, inv, user_id))


def _grant_form(ctx: AppContext, inv: Invocation, user_id: int) -> View | Reply:
    """The grant form as the service knows the user now (three service calls: hence a loading modal)."""
    org = org_of(ctx, inv.org_id)
    user = find_user(ctx, user_id, org)
    groups, current = privilege_groups(ctx, user_id, org)
    if not groups:
        return Reply(
            text=f"The service lists no privilege groups for user {user_id}; nothing can be granted."
        )
    validity = getattr(current, "user_privilege_validity", None)
    days = [d for d in (getattr(validity, "accessible_days", None) or []) if d.day_of_week]
    if len({(d.start, d.end) for d in days}) > 1:
        # The form has one window for every chosen day: prefilled with the first day's, a kept form would
        # change the others'. Left empty, the days are not sent and each keeps its own.
        days = []
    window = (days[0].start, days[0].end) if days else (None, None)
    zone = ctx.config.notify.zone_for(org)  # dates and windows on the organization's clock, as who-can reads
    meta = modal_meta(inv, user=user_id, org=org, groups=[g.id for g in groups], tz=zone.key)
    return grant_modal(
        user_id,
        full_name(user),
        groups,
        panel_choices(ctx, org),
        meta,
        zone,
        current_days=sorted({int(d.day_of_week) for d in days if d.day_of_week}),
        current_window=window,
        current_panels=_authorized_panels(current),
    )


@subcommand(
    "access",
    "revoke",
    usage="/sam access revoke <userId> <panelId>",
    summary="remove a user's access to a panel (asks for confirmation)",
    role=Role.ADMIN,
    write=True,
    examples=("/sam access revoke 20001 100101",),
)
def revoke_access(inv: Invocation, ctx: AppContext) -> Reply:
    if len(inv.args) != 2:
        raise UsageError("give the user id and the panel id")
    user_id = parse_id(inv.args[0], "userId")
    panel_id = parse_id(inv.args[1], "panelId")
    org = org_of(ctx, inv.org_id)
    user = find_user(ctx, user_id, org)
    panel = find_panel(ctx, panel_id, org)
    message = revoke_confirmation(user_id, full_name(user), panel_id, panel.resource_name, org)
    return Reply(
        text=message.text,
        blocks=message.blocks,
        audit_summary=f"confirmation asked: revoke user {user_id} on panel {panel_id}",
    )


def _authorized_panels(current: object) -> list[int]:
    """The panels operation 15 says are authorized now, when the service includes them (not in the spec)."""
    extra = getattr(current, "model_extra", None) or {}
    ids = extra.get("authorizedResourceIds") or extra.get("authorized_resource_ids") or []
    return [i for i in ids if isinstance(i, int)] if isinstance(ids, list) else []
