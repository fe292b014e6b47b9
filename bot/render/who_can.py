"""The answer of `/sam who-can` and of the "Who can?" button: one line per person, name, groups and until
when, then who is authorized but not at that moment, and why; and the button itself, for alarm cards."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block, ButtonElement, PlainTextObject

from bot.render.common import Rendered, cap_blocks, context, escape, header, join_lines, section
from core.access_windows import local_words
from core.read import WhoCan, WhoCanEntry
from core.text import counted

WHO_CAN_ACTION = "who_can"


def who_can_button(panel_id: int) -> ButtonElement:
    """The "Who can?" button of an alarm or incident card: its value is the panel id."""
    return ButtonElement(text=PlainTextObject(text="Who can?"), action_id=WHO_CAN_ACTION, value=str(panel_id))


def moment_words(epoch_ms: int, zone: ZoneInfo) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, zone).strftime("%a %Y-%m-%d %H:%M")


def _groups(entry: WhoCanEntry) -> str:
    return ", ".join(escape(g) for g in entry.user.groups) or "no privilege groups"


def can_line(entry: WhoCanEntry, zone: ZoneInfo, moment: int) -> str:
    until = entry.access.until
    when = f"until {local_words(until, zone, moment)}" if until is not None else "no end set"
    return f"• *{escape(entry.user.name)}* (`{entry.user.user_id}`) — {_groups(entry)} — {when}"


def cannot_line(entry: WhoCanEntry, zone: ZoneInfo, moment: int) -> str:
    why = entry.access.reason or "not valid"
    if entry.access.next_from is not None:
        why += f"; next from {local_words(entry.access.next_from, zone, moment)}"
    return f"• {escape(entry.user.name)} (`{entry.user.user_id}`) — {escape(why)}"


def who_can_blocks(answer: WhoCan, panel_name: str | None, zone: ZoneInfo, source: str) -> Rendered:
    """`source` says where the authorizations come from and how fresh they are (a context line)."""
    panel = (
        f"{escape(panel_name)} (`{answer.resource_id}`)" if panel_name else f"panel `{answer.resource_id}`"
    )
    moment = moment_words(answer.at, zone)
    total = len(answer.can) + len(answer.cannot)
    if not total:
        summary = f"Nobody holds an authorization on {panel}."
    else:
        summary = (
            f"{len(answer.can)} of {counted(total, 'authorized user')} may operate {panel} at {moment} "
            f"({zone.key})."
        )
    blocks: list[Block] = [header("Who can operate this panel"), section(summary)]
    # "until 18:00" means that day of the moment asked about; other days are named.
    if answer.can:
        blocks.append(section(join_lines([can_line(e, zone, answer.at) for e in answer.can])))
    if answer.cannot:
        lines = [cannot_line(e, zone, answer.at) for e in answer.cannot]
        blocks.append(section("*Authorized, but not at that moment*\n" + join_lines(lines, limit=2900)))
    blocks.append(context(source))
    plain = [escape(e.user.name) for e in answer.can]
    text = summary + (f" {', '.join(plain)}." if plain else "")
    return Rendered.of(text, cap_blocks(blocks))
