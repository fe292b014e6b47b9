"""Audit of refused write commands: the router calls its write hooks after every write subcommand; writes
that ran are recorded where they ran (`bot/writes.py`), so this hook records the rest — denied, malformed,
not found, failed before any write — that a security review wants to see. The command is kept as typed
(`org:` too) and the summary as plain text: each reader escapes it once for where it shows it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.listener_errors import record_busy
from bot.slash.parse import as_typed
from bot.slash.registry import Invocation, Subcommand
from core import cache

if TYPE_CHECKING:
    from bot.context import AppContext

log = logging.getLogger(__name__)


def record_refused(ctx: AppContext, inv: Invocation, cmd: Subcommand, outcome: str, summary: str) -> None:
    if outcome == "ok":
        return
    command = as_typed(inv.text) or " ".join(cmd.path)
    if outcome == "busy":  # a short wait for its row, and a WARNING line either way
        record_busy(
            ctx.db(), slack_user=inv.user_id, command=command, org_id=inv.org_id, reference=inv.reference
        )
        return
    try:
        cache.record_audit(
            ctx.db(),
            slack_user=inv.user_id,
            command=command,
            org_id=inv.org_id,
            outcome=outcome,
            summary=summary.strip().split("\n", 1)[0][:500],  # the answer's first line: a usage text is long
            reference=inv.reference,
        )
    except cache.BusyError:  # a refusal: nothing was done; the line says who was refused
        why = "its audit row was not written: records busy"
        log.warning("%s: %s by %s was %s; %s", inv.reference, command, inv.user_id, outcome, why)
