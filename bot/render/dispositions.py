"""What samops says of dispositions outside the card (core/dispositions.py): the handover digest's section.
(`/sam panel`'s count of false alarms is a field of its summary: bot/render/panels.py.)"""

from __future__ import annotations

from collections.abc import Mapping

from slack_sdk.models.blocks import Block

from bot.render.common import escape, join_lines, section
from core.read import ShiftDispositions

# How each class reads in a count ("4 false alarms").
CLASS_WORDS = {"false": "false alarm", "confirmed": "confirmed", "test": "test", "cancelled": "cancelled"}


def class_counts(per_class: dict[str, int]) -> str:
    """ "4 false alarms · 1 confirmed · 2 test"."""
    parts = []
    for klass, n in per_class.items():
        word = CLASS_WORDS.get(klass, klass)
        parts.append(f"{n} {word}{'s' if klass == 'false' and n != 1 else ''}")
    return " · ".join(escape(p) for p in parts)


def resolved_as_line(labels: Mapping[str, int]) -> str:
    """A storm or incident card's line: what its resolved alarms were resolved as, and how many of each."""
    return ":label: Resolved as " + " · ".join(f"*{escape(label)}* ({n})" for label, n in labels.items())


def dispositions_section(shift: ShiftDispositions | None) -> list[Block]:
    """The digest's dispositions: the shift's resolutions per class, and its panels with the most false
    alarms; nothing when the shift resolved none with a disposition."""
    if shift is None or not shift.per_class:
        return []
    worst = [f"• {escape(p.name or 'panel')} ({p.resource_id}): {p.false_alarms}" for p in shift.worst_panels]
    text = f"*Resolved this shift, by disposition*\n{class_counts(shift.per_class)}"
    text += "\n*Most false alarms this shift*\n" + (join_lines(worst) if worst else "none")
    return [section(text)]
