"""The keyholder line (core/keyholders.py, docs/keyholders.md) as the alarm card and the App Home show it:
one context line, its icon saying at a glance whether an authorized user could have been there."""

from __future__ import annotations

from bot.render.common import clip, escape
from core.keyholders import KeyholderContext, Verdict

_ICONS = {
    Verdict.INSIDE: ":key:",
    Verdict.OUTSIDE: ":no_entry_sign:",
    Verdict.NOBODY: ":no_entry_sign:",
    Verdict.UNREAD: ":hourglass_flowing_sand:",
    Verdict.FAILED: ":warning:",
}


def keyholder_line(found: KeyholderContext) -> str:
    """`:key: Keyholders: During the access window of Ana Yılmaz (Mon–Fri 08:00–18:00): possibly a user
    error` (names are the service's text: escaped, and clipped within a context element's limit)."""
    return f"{_ICONS[found.verdict]} *Keyholders:* {escape(clip(found.text, 1500))}"
