"""Why an alarm was held back by a silence or a maintenance window, or what maintenance a life-safety alarm
was posted during: a record (what the window did, its kind, who made it, until when, its reference), not
words made once on one clock. `words` renders it, the one wording of every surface, on the clock of whoever
reads it: the console on the machine's (`core.timefmt.host_zone`), a dashboard cell on the viewer's, `/sam
alarms` on the reader's (`bot.context.AppContext.reader_zones`), a card on its organization's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import tzinfo

from core.timefmt import local, wall

HELD, DURING = "held", "during"  # held back (not posted); posted, marked as during maintenance


@dataclass(frozen=True)
class QuietReason:
    """Why a window kept an alarm quiet (HELD) or what it was posted during (DURING), structured."""

    effect: str  # HELD or DURING
    kind: str  # "silence" or "maintenance" (core.cache.quiet SILENCE, MAINTENANCE)
    who: str | None  # the Slack user id of who made the window; None for a window from the config
    until: int  # epoch-ms: when the window ends, or ended (lifted early)
    reference: str | None = None  # the R-… of the audit row the window was made under
    note: str | None = None  # a config window's reason (a Slack window names its maker instead)
    scope: str = ""  # what the window covers, in words: `Depot (777)`, `organization 1001`
    life_safety_held: bool = False  # a maintenance window planned to hold life-safety alarms too


def words(reason: QuietReason, zone: tzinfo, named: bool = True) -> str:
    """The reason in words, its end on `zone`'s clock, the zone named unless the reader's line or column
    header names it already (`named=False`): "held: maintenance R-4K7Q2M by @U0TECH until 2026-12-08 14:00
    Europe/Istanbul", "during maintenance of Depot (777) by @U0TECH until 2026-12-08 14:00: a test?"."""
    if reason.who:
        by = f" by @{reason.who}"
    else:
        by = f" ({reason.note}, from the config)" if reason.note else " (from the config)"
    until = local(reason.until, zone) if named else wall(reason.until, zone)
    if reason.effect == DURING:
        return f"during maintenance of {reason.scope}{by} until {until}: a test?"
    what = reason.kind + (f" {reason.reference}" if reason.reference else "")
    if reason.life_safety_held:
        what += " (life-safety held too)"
    return f"held: {what}{by} until {until}"
