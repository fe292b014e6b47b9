"""The `/sam` machinery: the subcommand registry, the text parser, the router and the audit of refused writes.

The listener: `/sam` is acked at once and routed in a lazy listener (`router.run_sam`). The subcommands
themselves live in `bot/commands/`, one module per command word.
"""

from __future__ import annotations

from slack_bolt import App

from bot.context import AppContext, with_context
from bot.lazy import acked_then
from bot.slash.audit import record_refused
from bot.slash.registry import on_write
from bot.slash.router import COMMAND, run_sam


def register(app: App, ctx: AppContext) -> None:
    on_write(record_refused)
    app.command(COMMAND)(**acked_then(ctx, with_context(run_sam, ctx)))
