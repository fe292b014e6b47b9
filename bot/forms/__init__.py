"""What people type into the write commands and modals: field validation (`fields.py`), one module per form
(`task.py`, `access.py`, `camera.py`), each holding its modal's submission too, and reading a submission and
the one submit path (`submission.py`).

The write modals' listeners: each submission is checked in the ack (errors shown under their fields), its
caller's role re-checked and its write run in the lazy listener.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from bot.context import AppContext
from bot.forms import access, camera, task
from bot.forms.submission import WriteModal, submit
from bot.lazy import after_ack
from bot.modals import validating_ack


def register(app: App, ctx: AppContext) -> None:
    register_modal(app, ctx, access.GRANT)
    register_modal(app, ctx, camera.ADD)
    register_modal(app, ctx, task.UPDATE)


def register_modal(app: App, ctx: AppContext, modal: WriteModal[Any, Any]) -> None:
    def submit_modal(body: dict[str, Any], view: dict[str, Any]) -> None:
        submit(ctx, modal, body, view)

    ack = validating_ack(ctx, modal.first_field, modal.errors)
    app.view(modal.callback_id)(ack=ack, lazy=[after_ack(ctx, submit_modal)])
