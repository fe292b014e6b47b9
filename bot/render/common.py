"""Slack's limits and the small pieces every message is built from (slack_sdk.models.blocks only).

Limits: at most 50 blocks per message, section text at most 3,000 characters, header text 150, a context
element 2,000. Long lists are cut and end with "… and N more" rather than failing in Slack.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from core.text import LINK_BREAK, relinked, shown, unformatted, unlinked

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150
MAX_CONTEXT_TEXT = 2000
MAX_FIELDS = 10
MAX_FIELD_TEXT = 2000


def escape(text: object) -> str:
    """Text safe inside mrkdwn: Slack's three control characters escaped, control and bidi characters (from
    the service, say) written out as \\uXXXX, and URLs and host names broken where Slack would auto-link
    them (core/text.py `unlinked`): a service's text is shown as text, never as a link to a page."""
    return _control_escaped(unlinked(shown(str(text))))


def typed(text: object) -> str:
    """A person's own words in mrkdwn (a maintenance reason, a write's summary in the audit channel):
    `escape`d, so no mention, `<!channel>` or link, and Slack's formatting marks kept from taking effect
    (core/text.py `unformatted`): `*urgent*` reads with its stars, not bold."""
    return _control_escaped(unformatted(unlinked(shown(str(text)))))


def _control_escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def plain(mrkdwn: str) -> str:
    """`escape` undone: the text of an answer written for Slack, as a record (the audit log) keeps it."""
    return relinked(mrkdwn.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def join_lines(lines: Sequence[str], limit: int = MAX_SECTION_TEXT, total: int | None = None) -> str:
    """As many whole lines as fit in `limit`, then "… and N more" for the rest (N counts `total` if given,
    for lists that were already cut before rendering)."""
    total = len(lines) if total is None else total
    out: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        line = clip(line, limit - 40)
        rest = total - i - 1
        tail = len(f"\n… and {rest} more") if rest else 0
        if used + len(line) + 1 + tail > limit:
            out.append(f"… and {total - i} more")
            return "\n".join(out)
        out.append(line)
        used += len(line) + 1
    if total > len(lines):
        out.append(f"… and {total - len(lines)} more")
    return "\n".join(out)


def header(text: str) -> HeaderBlock:
    return HeaderBlock(text=PlainTextObject(text=clip(text, MAX_HEADER_TEXT), emoji=True))


def section(text: str, fields: Sequence[str] = ()) -> SectionBlock:
    kwargs: dict[str, Any] = {"text": MarkdownTextObject(text=clip(text, MAX_SECTION_TEXT))}
    if fields:
        kwargs["fields"] = [MarkdownTextObject(text=clip(f, MAX_FIELD_TEXT)) for f in fields[:MAX_FIELDS]]
    return SectionBlock(**kwargs)


def sections(lines: Iterable[str]) -> list[SectionBlock]:
    """Whole lines in as many sections as they need (a list too long for one section's text)."""
    blocks: list[SectionBlock] = []
    chunk: list[str] = []
    for line in lines:
        if sum(len(x) + 1 for x in chunk) + len(line) > MAX_SECTION_TEXT - 10:
            blocks.append(section("\n".join(chunk)))
            chunk = []
        chunk.append(line)
    if chunk:
        blocks.append(section("\n".join(chunk)))
    return blocks


def context(*texts: str) -> ContextBlock:
    return ContextBlock(
        elements=[MarkdownTextObject(text=clip(t, MAX_CONTEXT_TEXT)) for t in texts if t][:10]
    )


def divider() -> DividerBlock:
    return DividerBlock()


def cap_blocks(blocks: Iterable[Block]) -> list[Block]:
    """At most 50 blocks; if more, the last one says how many were left out."""
    blocks = list(blocks)
    if len(blocks) <= MAX_BLOCKS:
        return blocks
    kept = blocks[: MAX_BLOCKS - 1]
    return [*kept, context(f"… and {len(blocks) - len(kept)} more blocks not shown")]


def yes_no(value: bool | None) -> str:
    return "unknown" if value is None else ("yes" if value else "no")


def or_dash(value: object) -> str:
    return "–" if value is None or value == "" else escape(value)


def blocks_to_dicts(blocks: Sequence[Any]) -> list[dict[str, Any]]:
    return [b.to_dict() if hasattr(b, "to_dict") else dict(b) for b in blocks]


# Slack's mrkdwn, read out for a terminal (issue 37: `*bold*` and `:red_circle:` were printed as typed). A
# mark with a zero-width space before it is a person's own character (core.text.unformatted): it stays.
_MARKED = re.compile(r"(?<![\w\u200b])([*_~])(?=\S)([^\n]*?\S)\1(?!\w)")
_CODE = re.compile(r"(`[^`\n]*`)")
_EMOJI = re.compile(r"(?<![\w:]):([a-z][a-z0-9_+-]*):(?![\w:])")
# A link is Slack's only when its target is an address: `<resourceId | name>` in a usage line is words.
_SLACK_LINK = re.compile(
    r"<((?:https?|mailto):[^<>|]+)\|([^<>]+)>|<([@#!][^<>]+)>|<((?:https?|mailto):[^<>]+)>"
)
# The emoji samops' messages use, as a terminal shows them; any other is left out (its words say it all).
EMOJI = {
    "red_circle": "🔴", "large_yellow_circle": "🟡", "white_circle": "⚪", "rotating_light": "🚨",
    "warning": "⚠️", "x": "❌", "white_check_mark": "✅", "no_entry": "⛔", "construction": "🚧",
    "pager": "📟", "bell": "🔔", "no_bell": "🔕", "lock": "🔒", "unlock": "🔓", "clock3": "🕒",
    "hourglass_flowing_sand": "⏳", "arrow_up": "⬆️", "arrow_right": "➡️", "heavy_check_mark": "✔️",
    "information_source": "ℹ️", "fire": "🔥", "camera": "📷", "satellite_antenna": "📡",
}  # fmt: skip


def terminal_text(mrkdwn: str) -> str:
    """`mrkdwn` as a terminal should show it: no bold, italic or strike marks, emoji as characters, links as
    their label and address, mentions as @id, entities and the zero-width spaces samops adds undone."""

    def link(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            target, label = m.group(1), m.group(2)
            target = target.removeprefix("mailto:")
            return label if label == target else f"{label} ({target})"
        if m.group(3) is not None:
            ref = m.group(3)
            return "@" + ref[1:].split("|")[0] if ref[0] in "@!" else ref.split("|")[0]
        return m.group(4).removeprefix("mailto:")

    def unmarked(part: str) -> str:
        previous = None
        while previous != part:  # nested marks (`*_both_*`) come off one layer at a time
            previous, part = part, _MARKED.sub(r"\2", part)
        return part

    # Inside `code` a mark is a character (`*` = required): only the text between code spans loses its marks.
    pieces = _CODE.split(_SLACK_LINK.sub(link, mrkdwn))
    text = "".join(piece if i % 2 else unmarked(piece) for i, piece in enumerate(pieces))
    text = _EMOJI.sub(lambda m: EMOJI.get(m.group(1), ""), text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return relinked(text).replace(LINK_BREAK, "")


def blocks_to_text(blocks: Sequence[dict[str, Any]]) -> str:
    """A readable plain-text rendering of Block Kit JSON (for `samops slash` and the logs)."""
    out: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "divider":
            out.append("—" * 40)
        elif kind == "header":
            title = block.get("text", {}).get("text", "")
            out.append(f"{title}\n{'=' * min(len(title), 60)}")
        elif kind == "section":
            text = (block.get("text") or {}).get("text") or ""
            if text.strip():
                out.append(text)
            fields = [f.get("text", "").replace("\n", ": ", 1) for f in block.get("fields") or []]
            out.extend(f"  {f}" for f in fields)
        elif kind == "context":
            out.append("  ".join(e.get("text", "") for e in block.get("elements") or [] if "text" in e))
        elif kind == "actions":
            labels = [e.get("text", {}).get("text", "") for e in block.get("elements") or []]
            out.append("[" + "] [".join(labels) + "]")
        elif kind == "rich_text":
            out.append(str(block.get("elements")))
    return terminal_text("\n".join(out))


@dataclass(frozen=True)
class Rendered:
    """samops' one message type: a message ready for chat.postMessage / chat.update / respond (its blocks as
    Block Kit JSON), and its plain-text form for the console. Every renderer returns one: cards, notices,
    digests and the `/sam` answers alike."""

    text: str
    attachments: list[dict[str, Any]] = field(default_factory=list)
    blocks: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(cls, text: str, blocks: Sequence[Any]) -> Rendered:
        """A message of `blocks` (slack_sdk Block objects or their dicts) with the fallback `text`."""
        return cls(text=text, blocks=blocks_to_dicts(blocks))

    def console(self, ref: str | None = None) -> str:
        """The blocks as text; the fallback `text` only when there are none (it repeats the first block).
        With a console card's `ref`, its buttons are numbered for `samops slash --click <ref> <number>`."""
        blocks = self._all_blocks()
        numbers = {id(b): n for n, b in enumerate(self.buttons(), 1)} if ref else {}
        lines = [_block_text(b, numbers) for b in blocks] or [self.text]
        text = terminal_text("\n".join(line for line in lines if line))
        if numbers:
            text += f"\n— card {ref}: samops slash --click {ref} <number> presses a button"
        return text

    def _all_blocks(self) -> list[dict[str, Any]]:
        return [b for attachment in self.attachments for b in attachment.get("blocks", [])] + self.blocks

    def buttons(self) -> list[dict[str, Any]]:
        """The buttons a click sends to samops (a link button only opens its address), in the order the
        console numbers them: block by block, a section's accessory, then an actions block's elements."""
        found: list[dict[str, Any]] = []
        for block in self._all_blocks():
            for element in [block.get("accessory") or {}, *(block.get("elements") or [])]:
                if isinstance(element, dict) and element.get("type") == "button" and not element.get("url"):
                    found.append(element)
        return found


def _block_text(block: dict[str, Any], numbers: dict[int, int] | None = None) -> str:
    """A block's text, its buttons as `[label]` (numbered `2 [label]` when in `numbers`, by object id)."""
    numbers = numbers or {}
    parts: list[str] = []
    if text := block.get("text"):
        parts.append(text.get("text", "") if isinstance(text, dict) else str(text))
    parts += [f.get("text", "").replace("\n", ": ", 1) for f in block.get("fields", []) or []]
    accessory = block.get("accessory")
    elements = [*([accessory] if isinstance(accessory, dict) else []), *(block.get("elements", []) or [])]
    for element in elements:
        if element.get("type") == "button":
            label = element["text"]["text"]
            number = f"{numbers[id(element)]} " if id(element) in numbers else ""
            parts.append(f"{number}[{label}]" + (f" {element['url']}" if element.get("url") else ""))
        elif "text" in element and element is not accessory:
            parts.append(str(element["text"]))
    return "  ".join(p for p in parts if p)
