"""Characters that change how text around them is shown: what free text may not hold, and how a record
that keeps such text as it came (the audit log) shows it instead."""

from __future__ import annotations

import re
import unicodedata

# Embedding, override and isolate controls: they reorder how the text around them is shown (U+202E spoofs).
BIDI_CONTROLS = frozenset(map(chr, [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]))


def is_control(char: str) -> bool:
    """A C0/C1 control character (Unicode category Cc) or a bidi control."""
    return unicodedata.category(char) == "Cc" or char in BIDI_CONTROLS


def visible(text: str) -> str:
    """`text` with each control character written out as `\\uXXXX`: what was sent stays on record, and
    nothing in it beeps, reorders or breaks the line it is shown in."""
    return "".join(f"\\u{ord(ch):04x}" if is_control(ch) else ch for ch in text)


# The same set as one pattern, but for line breaks and tabs, for text shown many times over (Slack cards).
_UNSEEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + "".join(sorted(BIDI_CONTROLS)) + "]")


def shown(text: str) -> str:
    """`visible`, keeping line breaks and tabs: text from the service (a violationName, a description) shown
    in Slack, where a BEL, a NUL or a U+202E reordering the line would mislead whoever reads it."""
    return _UNSEEN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`1 alarm`, `0 alarms`, `2 alarms`: a count and its noun, read right (`plural` for an irregular noun:
    `counted(n, "activity", "activities")`). One definition for Slack answers, notices and the console."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def duration(seconds: float) -> str:
    """30 s, 4 min 10 s, 2 h 5 min: how long a wait or an outage is, in the words a console line uses."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        minutes, rest = divmod(seconds, 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    hours, minutes = divmod(seconds // 60, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


# Where a linker recognises a link, a zero-width space breaks it: Slack's servers turn a bare URL, a `www.`
# host or a domain name in mrkdwn into a link, and GitHub-flavoured markdown (the dashboard's) does the same.
# The text still reads the same; nothing in it is a link to a page any more. An e-mail address is left whole:
# what it links to is a new mail, and people read and copy addresses (`/sam whoami` names one).
LINK_BREAK = "\u200b"
_EMAIL = r"[\w.+-]+@[\w-]+(?:[.．。｡][\w-]+)+"
_LINK_PARTS = re.compile(
    rf"(?P<email>{_EMAIL})"  # kept as it is
    r"|(?<=:)(?=//)"  # a scheme's `://`: between the colon and the slashes
    r"|(?<=[\w-])(?=[.．。｡][^\W\d_])"  # a host's labels meet (`example.com`, `пример.рф`)
    r"|(?<=[wW]{3})(?=[.．。｡])"  # `www.`, whatever follows it
)


def unlinked(text: str) -> str:
    """`text` with a zero-width space where a chat or markdown linker would start or continue a link to a
    page: after a scheme's colon, before the dot that joins a host's labels. Reads the same; links nowhere."""
    return _LINK_PARTS.sub(lambda m: m.group("email") or LINK_BREAK, text)


# Slack's mrkdwn has no escape for its formatting: `*bold*`, `_italic_`, `~strike~`, `` `code` `` and a
# line starting `>` (a quote) take effect from a mark at the start of the text or after a space or a sign.
# A zero-width space before such a mark leaves it as a character; a mark inside a word (`U_TECH`) is no
# opener and stays as it is.
_FORMAT_OPENERS = re.compile(rf"(?<![0-9A-Za-z{LINK_BREAK}])(?=[*_~`])|^(?=>)", re.MULTILINE)


def unformatted(text: str) -> str:
    """`text` with a zero-width space before each mark that would open Slack formatting: a person's words
    (a maintenance reason) read as typed, never bold, struck through, code or a quote."""
    return _FORMAT_OPENERS.sub(LINK_BREAK, text)


_LINK_BREAKS = re.compile(rf"(?<=:){LINK_BREAK}(?=//)|{LINK_BREAK}(?=[.．。｡])|{LINK_BREAK}(?=[*_~`>])")


def relinked(text: str) -> str:
    """`unlinked` and `unformatted` undone, for a record that keeps text as it was sent (the audit log)."""
    return _LINK_BREAKS.sub("", text)
