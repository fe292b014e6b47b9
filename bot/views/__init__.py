"""The view submissions: the write modals (`access.py`, `camera.py`, `task.py`, and the cards' Resolve form in
`bot/actions/lifecycle.py`), all through one submit path (`bot/forms/submission.py`): checked in the ack,
role re-checked and written in the lazy listener."""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from bot.actions import lifecycle
from bot.context import AppContext
from bot.forms.submission import WriteModal, submit
from bot.modals import validating_ack
from bot.views import access, camera, task


def register(app: App, ctx: AppContext) -> None:
    register_modal(app, ctx, access.GRANT)
    register_modal(app, ctx, camera.ADD)
    register_modal(app, ctx, task.UPDATE)
    register_modal(app, ctx, lifecycle.RESOLVE)


def register_modal(app: App, ctx: AppContext, modal: WriteModal[Any, Any]) -> None:
    def submit_modal(body: dict[str, Any], view: dict[str, Any]) -> None:
        submit(ctx, modal, body, view)

    ack = validating_ack(ctx, modal.first_field, modal.errors)
    app.view(modal.callback_id)(ack=ack, lazy=[submit_modal])
