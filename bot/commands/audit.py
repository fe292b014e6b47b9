"""`/sam audit [n]` (admins): the latest n rows of the audit log — who did what, when, the outcome and the
reference id — the same rows as `samops audit` and the dashboard's Audit page (`core.cache.audit.recent`)."""

from __future__ import annotations

from collections.abc import Sequence
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block

from bot.context import AppContext
from bot.render.common import MAX_BLOCKS, MAX_SECTION_TEXT, clip, context, escape, header, sections
from bot.roles import Role
from bot.slash.registry import Invocation, Reply, UsageError, subcommand
from core import cache
from core.text import counted
from core.timefmt import local

DEFAULT_ROWS = 20
MAX_ROWS = 100
ELSEWHERE = "The same rows: `samops audit` on the console, and the dashboard's Audit page (filters, CSV)."
MARKS = {"ok": ":white_check_mark:", "unknown": ":warning:", "failed": ":x:"}


def rows_wanted(args: Sequence[str]) -> int:
    if not args:
        return DEFAULT_ROWS
    word = args[0]
    if len(args) > 1 or not word.isascii() or not word.isdigit() or not 1 <= int(word) <= MAX_ROWS:
        raise UsageError(f"give how many rows to show, 1 to {MAX_ROWS}")
    return int(word)


def audit_line(entry: cache.AuditEntry, zone: ZoneInfo) -> str:
    """One row, its time in the zone of the organization it was about (named)."""
    mark = MARKS.get(entry.outcome, ":no_entry:")
    return clip(
        f"{mark} `{local(entry.at, zone)}` <@{escape(entry.slack_user)}> "
        f"`{escape(clip(entry.command, 120))}` — "
        f"*{escape(entry.outcome)}*: {escape(clip(entry.summary, 300))} (ref `{escape(entry.reference)}`)",
        MAX_SECTION_TEXT - 10,
    )


@subcommand(
    "audit",
    usage="/sam audit [n]",
    summary="the latest writes through the bot: who, what, when, outcome, reference (admins)",
    role=Role.ADMIN,
    examples=("/sam audit", "/sam audit 50"),
)
def show_audit(inv: Invocation, ctx: AppContext) -> Reply:
    entries = cache.recent_audit(ctx.db(), rows_wanted(inv.args))
    if not entries:
        return Reply(text="The audit log is empty: nothing has been written through the bot yet.")
    title = f"Audit log: the latest {counted(len(entries), 'row')}, newest first"
    zone_for = ctx.reader_zones(inv.user_id)  # the admin's clock: their Slack zone, else each org's
    blocks: list[Block] = [
        header(title),
        *sections(audit_line(e, zone_for(e.org_id)) for e in entries),
    ][: MAX_BLOCKS - 1]
    blocks.append(
        context("The same rows: `samops audit` on the console, the dashboard's Audit page (filters, CSV).")
    )
    return Reply(text=title, blocks=blocks)
