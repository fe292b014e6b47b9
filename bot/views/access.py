"""Submission of the access-grant modal: field errors in the modal, else operation 4 with every privilege
group listed (ticked = authorized), as the spec requires."""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from bot.commands.registry import Role
from bot.context import AppContext
from bot.inputs import Grant, grant_from_values
from bot.modals import submission_key, validating_ack
from bot.payloads import AccessMeta, PayloadError, read_json
from bot.payloads import slack_user as user_of
from bot.render.access import ACCESS_GRANT, grant_summary
from bot.render.common import escape
from bot.render.forms import metadata, submitted
from bot.writes import WriteRequest, answer_outcome, audit_denied, not_done_title, role_denied, run_write

LOST = "this form lost its user; run /sam access grant again"


def form_meta(view: dict[str, Any]) -> AccessMeta | None:
    try:
        return read_json(AccessMeta, view.get("private_metadata"), "This form")
    except PayloadError:
        return None


def check(view: dict[str, Any]) -> tuple[Grant | None, dict[str, str]]:
    meta = form_meta(view)
    if meta is None:
        return None, {"groups": LOST}
    return grant_from_values(submitted(view), meta.groups)


def register(app: App, ctx: AppContext) -> None:
    def run_submission(body: dict[str, Any], view: dict[str, Any]) -> None:
        slack_user = user_of(body)
        meta = metadata(view)
        form = form_meta(view)
        user_id, org = (form.user, form.org) if form else (None, None)
        if role_denied(ctx, slack_user, Role.TECHNICIAN):
            audit_denied(ctx, slack_user, f"access grant {user_id}", org)
            return
        grant, _ = check(view)
        if grant is None or user_id is None or org is None:
            return  # the ack showed the errors in the modal
        request = WriteRequest(
            slack_user=slack_user,
            command=f"access grant {user_id}",
            summary=grant_summary(user_id, grant.groups, grant.panels, grant.period_words()),
            dedupe_key=submission_key(view),
            org_id=org,
            reference=(form.ref or "") if form else "",
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
        if not outcome.ran:
            return  # a double submit: the first one answers
        if outcome.ok:
            granted = [str(g) for g, on in sorted(grant.groups.items()) if on]
            title = f"Access of user {user_id} updated"
            lines = [
                f"*Privilege groups authorized:* {', '.join(granted) or 'none'} (of {len(grant.groups)})",
                f"*Panels:* {', '.join(str(p) for p in grant.panels)}",
                f"*When:* {escape(grant.period_words())}",
            ]
        else:
            failed = f"Access of user {user_id} not changed"
            title = not_done_title(outcome, failed, f"Changing the access of user {user_id}")
            lines = [escape(outcome.message)]
        answer_outcome(ctx, meta, slack_user, title, lines, outcome)

    ack = validating_ack(ctx, "groups", lambda view: check(view)[1])
    app.view(ACCESS_GRANT)(ack=ack, lazy=[run_submission])
