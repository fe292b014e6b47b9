"""`/sam camera add`: a modal for a new camera (operation 6). The security and NC codes typed in it go to
the service and nowhere else: not echoed, not logged, not audited."""

from __future__ import annotations

from slack_sdk.models.views import View

from bot.context import AppContext
from bot.lookups import org_of, session
from bot.modals import modal_meta, open_modal
from bot.render.forms import camera_add_modal
from bot.roles import Role
from bot.slash.registry import Invocation, Reply, UsageError, subcommand


@subcommand(
    "camera",
    "add",
    usage="/sam camera add",
    summary="add a camera (a form)",
    role=Role.TECHNICIAN,
    write=True,
    examples=("/sam camera add", "/sam camera add org:1002"),
)
def add_camera(inv: Invocation, ctx: AppContext) -> Reply | None:
    if inv.args:
        raise UsageError("`camera add` takes no arguments; the form asks for the details")

    def form() -> View:
        org = org_of(ctx, inv.org_id)
        names = {str(o.id): o.name for o in session(ctx).organizations or []}
        return camera_add_modal(modal_meta(inv, org=org), names.get(str(org)))

    return open_modal(ctx, inv, "Add a camera", form)
