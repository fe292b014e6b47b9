"""A service user, as `/sam user` shows them (operations 13 and 12)."""

from __future__ import annotations

from slack_sdk.models.blocks import Block

from bot.render.common import Rendered, cap_blocks, context, escape, header, join_lines, or_dash, section
from core.models import User

# The service's user status codes (Liferay's workflow statuses); anything else is shown as its number.
USER_STATUS = {0: "active", 5: "inactive"}


def full_name(user: User) -> str | None:
    """The user's name as people write it, else their screen name; None when the service sent neither."""
    parts = [user.first_name, user.middle_name, user.last_name]
    return " ".join(p for p in parts if p) or user.screen_name or None


def status_text(status: int | None) -> str:
    if status is None:
        return "unknown"
    return USER_STATUS.get(status, f"status {status}")


def user_blocks(user: User) -> Rendered:
    """The fallback text and the blocks for one user."""
    name = full_name(user) or f"user {user.user_id}"
    verified = {True: "verified", False: "not verified", None: "verification unknown"}[
        user.email_address_verified
    ]
    fields = [
        f"*User id*\n{or_dash(user.user_id)}",
        f"*Screen name*\n{or_dash(user.screen_name)}",
        f"*E-mail*\n{or_dash(user.email_address)} ({verified})",
        f"*Status*\n{status_text(user.status)}",
    ]
    orgs = [f"{escape(o.name or '?')} ({o.id})" for o in user.organizations or []]
    if not orgs and user.organization_ids:
        orgs = [str(i) for i in user.organization_ids]
    roles = [f"{escape(r.role_name or '?')} ({r.role_id})" for r in user.roles or []]
    panels = [
        f"{escape(p.resource_name or 'unnamed')} (`{p.resource_id}`)"
        + ("" if p.enabled is not False else " — disabled")
        for p in user.resources or []
    ]
    blocks: list[Block] = [
        header(name),
        section(" ", fields=fields),
        section("*Organizations*\n" + (join_lines(orgs, limit=2900) if orgs else "_none_")),
        section("*Roles*\n" + (join_lines(roles, limit=2900) if roles else "_none_")),
    ]
    if user.resources is not None:
        title = f"*Authorized panels* ({len(panels)})\n"
        blocks.append(section(title + (join_lines(panels, limit=2900) if panels else "_none_")))
    else:
        blocks.append(context("Authorized panels are listed when you look the user up by e-mail."))
    text = (
        f"{escape(name)} — screen name {escape(user.screen_name or '–')}, "
        f"{escape(user.email_address or 'no e-mail')} ({verified}), "
        f"{status_text(user.status)}; organizations: {', '.join(orgs) or 'none'}; "
        f"roles: {', '.join(roles) or 'none'}"
        + (f"; {len(panels)} authorized panels" if user.resources is not None else "")
    )
    return Rendered.of(text, cap_blocks(blocks))
