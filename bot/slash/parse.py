"""Splitting what people type after `/sam` into words, forgivingly.

Slack users type smart quotes, paste names with apostrophes, forget a closing quote; Slack itself escapes
`&`, `<`, `>` and may wrap mentions and links in `<...>`. `parse_text` never raises: a problem it cannot
repair is returned as `error`, which the router answers with the usage line.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

_SMART_DOUBLE = "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"
_SMART_SINGLE = "\u2018\u2019\u201a\u201b\u2032"
_QUOTES = str.maketrans({**dict.fromkeys(_SMART_DOUBLE, '"'), **dict.fromkeys(_SMART_SINGLE, "'")})
# <@U123|name>, <#C123|general>, <!subteam^S123|@team>, <mailto:a@b.c|a@b.c>, <https://x|label>
_SLACK_ENTITY = re.compile(r"<([@#!]?)([^<>|]*)(?:\|([^<>]*))?>")
_ORG = re.compile(r"org:(\S*)", re.IGNORECASE)
# No command needs more (a maintenance reason is the longest free text). Longer text is refused with the
# usage line, not by the HTTP front: a 4xx there would show the user Slack's bare "dispatch_failed".
MAX_TEXT = 4000


@dataclass(frozen=True)
class ParsedText:
    words: tuple[str, ...]
    org_id: int | None = None
    error: str | None = None


def _entity(match: re.Match[str]) -> str:
    sigil, target, label = match.group(1), match.group(2), match.group(3)
    if sigil == "@":  # a user mention: the id is what commands want
        return target
    if sigil == "!" and target.startswith("subteam^"):
        return target.removeprefix("subteam^")
    if sigil == "#":
        return target
    if target.startswith("mailto:"):
        return target.removeprefix("mailto:")
    return label if label and not sigil else target


def normalize(text: str) -> str:
    """Slack's escaping undone and smart quotes made plain."""
    text = _SLACK_ENTITY.sub(_entity, text)
    return html.unescape(text).translate(_QUOTES).replace("\u00a0", " ")


def as_typed(text: str, limit: int = 200) -> str:
    """A command as the person typed it, for a record: Slack's escaping undone, its `org:` word kept, spaces
    made single, at most `limit` characters."""
    return " ".join(normalize(text[:MAX_TEXT]).split())[:limit]


def split_words(text: str) -> list[str]:
    """Whitespace-separated words; a quote opens a quoted part only at the start of a word or after `=`/`:`
    (so O'Brien stays one word), and an unclosed quote runs to the end of the text."""
    words: list[str] = []
    current: list[str] = []
    in_word = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            if in_word:
                words.append("".join(current))
                current, in_word = [], False
            i += 1
            continue
        opens_quote = ch in "\"'" and (not current or current[-1] in "=:")
        if opens_quote:
            end = text.find(ch, i + 1)
            end = n if end < 0 else end
            current.append(text[i + 1 : end])
            in_word = True
            i = end + 1
            continue
        current.append(ch)
        in_word = True
        i += 1
    if in_word:
        words.append("".join(current))
    return words


def parse_text(text: str) -> ParsedText:
    """The words of a command, with any `org:<id>` taken out; an `error` for text over `MAX_TEXT`
    characters (its first `MAX_TEXT` are still read, so that the router knows the subcommand)."""
    if len(text) <= MAX_TEXT:
        return _parse(text)
    head = _parse(text[:MAX_TEXT])
    error = f"That command is {len(text):,} characters long; `/sam` takes at most {MAX_TEXT:,}."
    return ParsedText(head.words, head.org_id, error)


def _parse(text: str) -> ParsedText:
    org_id: int | None = None
    words: list[str] = []
    for word in split_words(normalize(text)):
        match = _ORG.fullmatch(word)
        if not match:
            words.append(word)
            continue
        value = match.group(1)
        if not value.isascii() or not value.isdigit() or len(value) > 18:
            return ParsedText(
                tuple(words), None, f"`org:` takes an organization number, e.g. `org:1001` (got `{word}`)"
            )
        if org_id is not None and org_id != int(value):
            return ParsedText(tuple(words), None, "give `org:` only once")
        org_id = int(value)
    return ParsedText(tuple(words), org_id)
