"""Audit of refused write commands: the router calls its write hooks after every write subcommand; writes
that ran are recorded where they ran (`bot/writes.py`), so this hook records the rest — denied, malformed,
not found, failed before any write — that a security review wants to see."""

from __future__ import annotations

import logging

from slack_bolt import App

from bot.commands.registry import Invocation, Subcommand, on_write
from bot.context import AppContext
from core.cache import audit

log = logging.getLogger(__name__)

_context: list[AppContext] = []  # the app's context (one per process; the last registered wins)


def record_refused(inv: Invocation, cmd: Subcommand, outcome: str, summary: str) -> None:
    if outcome == "ok" or not _context:
        return
    words = " ".join(cmd.path)
    audit.record(
        _context[-1].db(),
        slack_user=inv.user_id,
        command=f"{words} {' '.join(inv.args)}".strip()[:200],
        org_id=inv.org_id,
        outcome=outcome,
        summary=summary[:500],
        reference=inv.reference,
    )


def register(app: App, ctx: AppContext) -> None:
    _context[:] = [ctx]
    on_write(record_refused)
