"""Submission of the access-grant modal: field errors in the modal, else operation 4 with every privilege
group listed (ticked = authorized), as the spec requires."""

from __future__ import annotations

from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from bot.forms.access import Grant, grant_from_values
from bot.forms.submission import Submission, WriteModal, answer_write, submitted
from bot.payloads import AccessMeta
from bot.render.access import ACCESS_GRANT, grant_summary
from bot.render.common import escape
from bot.writes import run_write

if TYPE_CHECKING:
    from bot.context import AppContext


def grant_access(ctx: AppContext, sub: Submission[AccessMeta, Grant]) -> None:
    user_id, org, grant = sub.meta.user, sub.meta.org, sub.form
    request = sub.write_request(
        f"access grant {user_id}",
        grant_summary(user_id, grant.groups, grant.panels, grant.period_words()),
        org,
    )
    outcome = run_write(
        ctx,
        request,
        lambda: ctx.client.set_user_privileges(
            user_id=user_id,
            authorized_resource_ids=grant.panels,
            privilege_groups=[
                {"privilegeGroupId": gid, "authorized": on} for gid, on in sorted(grant.groups.items())
            ],
            organization_id=org,
            expiration_time=grant.expiration,
            period=grant.period or None,
            validity_start=grant.validity_start,
            org=org,
        ),
    )

    def done() -> tuple[str, list[str]]:
        granted = [str(g) for g, on in sorted(grant.groups.items()) if on]
        return f"Access of user {user_id} updated", [
            f"*Privilege groups authorized:* {', '.join(granted) or 'none'} (of {len(grant.groups)})",
            f"*Panels:* {', '.join(str(p) for p in grant.panels)}",
            f"*When:* {escape(grant.period_words())}",
        ]

    failed = f"Access of user {user_id} not changed"
    answer_write(ctx, sub, outcome, done, failed, f"Changing the access of user {user_id}")


GRANT: WriteModal[AccessMeta, Grant] = WriteModal(
    callback_id=ACCESS_GRANT,
    first_field="groups",
    meta_type=AccessMeta,
    lost="this form lost its user; run /sam access grant again",
    read=lambda meta, view: grant_from_values(submitted(view), meta.groups, ZoneInfo(meta.tz)),
    command=lambda meta: f"access grant {meta.user if meta else None}",
    write=grant_access,
)
