"""The `/sam` subcommands: how a command module declares itself, and the types every handler sees.

A module in `bot/commands/` (listed in its `__init__.py`) declares its subcommands with `@subcommand(...)`;
the `/sam` router
(`bot/slash/router.py`) parses the text, finds the longest matching path, checks the caller's role, and runs
the handler in a lazy listener (after the ack), answering through `respond`. Handlers return a `Reply` to
post, or `None` when they answered by other means (opened a modal).

CONTRACT shared by everyone writing commands (docs/architecture.md, section "bot").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.roles import Role

if TYPE_CHECKING:
    from slack_sdk.models.views import View

    from bot.context import AppContext


class UsageError(ValueError):
    """Raised by a handler for malformed arguments; the router answers the message and the usage line."""


@dataclass(frozen=True)
class Invocation:
    """One `/sam ...` as Slack sent it, after routing."""

    user_id: str
    channel_id: str
    team_id: str
    text: str  # the whole text after `/sam`
    args: tuple[str, ...]  # the words after the subcommand path (quotes respected, `org:` removed)
    org_id: (
        int | None
    )  # from `org:<id>`, else the channel's default in the config, else None (client default)
    role: Role
    trigger_id: str | None = None  # for views.open
    response_url: str | None = None
    reference: str = ""  # a short id for this invocation, in the logs and in error replies


FORM_EVENT = "samops_form"  # the metadata event type of a Reply's form (`samops slash --submit` reads it)


@dataclass(frozen=True)
class Reply:
    """A message for `respond`. `blocks` are slack_sdk Block objects; `text` is the fallback."""

    text: str
    blocks: Sequence[Any] = ()
    in_channel: bool = False  # ephemeral unless the command means to share the answer
    # For writes: what changed, as plain text (not mrkdwn), without secrets (default: `text`, unescaped).
    audit_summary: str | None = None
    # A local run (no Slack) only: the modal the command would open, for `samops slash --submit` to fill.
    form: View | None = None


Handler = Callable[[Invocation, "AppContext"], Reply | None]


@dataclass(frozen=True)
class Subcommand:
    path: tuple[str, ...]  # ("user",), ("task", "update")
    usage: str  # "/sam user <email | userId>"
    summary: str  # one line for `/sam help`
    role: Role  # the minimum role
    handler: Handler
    write: bool = False  # a write: audited, deduplicated
    examples: tuple[str, ...] = field(default=())


SUBCOMMANDS: list[Subcommand] = []


def subcommand(
    *path: str,
    usage: str,
    summary: str,
    role: Role = Role.VIEWER,
    write: bool = False,
    examples: tuple[str, ...] = (),
) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        SUBCOMMANDS.append(Subcommand(path, usage, summary, role, handler, write, examples))
        return handler

    return register


# Called by the router after every write subcommand, whatever came of it, with
# (context, invocation, subcommand, outcome, summary); outcome is "ok", "usage", "not found", "denied" or
# "error". `bot.slash.register` adds the audit hook (`bot/slash/audit.py`), which records refused writes.
WriteHook = Callable[["AppContext", Invocation, Subcommand, str, str], None]
WRITE_HOOKS: list[WriteHook] = []


def on_write(hook: WriteHook) -> WriteHook:
    if hook not in WRITE_HOOKS:
        WRITE_HOOKS.append(hook)
    return hook


def visible_to(role: Role) -> list[Subcommand]:
    """The subcommands `role` may run, in a stable order (for `/sam help`)."""
    return sorted((c for c in SUBCOMMANDS if c.role <= role), key=lambda c: c.path)


def find(words: Sequence[str]) -> tuple[Subcommand, tuple[str, ...]] | None:
    """The subcommand whose path is the longest prefix of `words`, and the remaining words."""
    lowered = [w.lower() for w in words]
    best: Subcommand | None = None
    for cmd in SUBCOMMANDS:
        n = len(cmd.path)
        if tuple(lowered[:n]) == cmd.path and (best is None or n > len(best.path)):
            best = cmd
    if best is None:
        return None
    return best, tuple(words[len(best.path) :])
