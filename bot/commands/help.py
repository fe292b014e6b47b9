"""`/sam help [command]`: what the caller may run, and nothing else."""

from __future__ import annotations

from bot.context import AppContext
from bot.render.common import context, escape, header, join_lines, section
from bot.roles import Role
from bot.slash.registry import Invocation, Reply, find, subcommand, visible_to


@subcommand(
    "help",
    usage="/sam help [command]",
    summary="what you can run here",
    examples=("/sam help", "/sam help panel"),
)
def show_help(inv: Invocation, ctx: AppContext) -> Reply:
    allowed = visible_to(inv.role)
    if inv.args:
        found = find(inv.args)
        if found is None or found[0] not in allowed:
            return Reply(
                text=f"No command `/sam {escape(' '.join(inv.args))}` that you can run; see `/sam help`."
            )
        cmd = found[0]
        lines = [f"`{cmd.usage}`", cmd.summary, *(f"• `{e}`" for e in cmd.examples)]
        return Reply(text="\n".join(lines), blocks=[section("\n".join(lines))])
    lines = [f"`{c.usage}` — {c.summary}" for c in allowed]
    role = inv.role.name.lower()
    article = "an" if role[0] in "aeiou" else "a"  # "an admin", "a viewer", "a technician"
    note = "Add `org:<id>` to any command to choose the organization."
    blocks = [
        header("samops — /sam commands"),
        section(join_lines(lines)),
        context(
            f"You are {article} {role}. {note}"
            + ("" if inv.role == Role.ADMIN else " Some commands need a higher role.")
        ),
    ]
    return Reply(text="samops commands:\n" + "\n".join(lines), blocks=blocks)
