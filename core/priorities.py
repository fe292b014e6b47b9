"""An alarm's priority, P1 (highest) to P4, and how soon it must be acknowledged (its SLA).

The one definition the bot's cards, the notifier's overdue edits, the App Home and the dashboard use. The
TOML's `[[priorities]]` rules are tried in order and the first that matches an alarm gives its priority;
when none does, the priority follows from the alarm's violationType (`DEFAULTS`). `[sla]` sets each
priority's acknowledgement time. Both are parsed once, with the rest of the config (core/config/), and a bad
entry is refused at start with one line naming its field.

```toml
[[priorities]]                  # first match wins; unset fields match anything
priority = "P1"
violation_name = "*fire*"       # a glob (*, ?, [abc]), in any case; or a list of globs
violation_types = ["alarm"]
event_types = ["violation"]
org = 1001
panels = [100101]

[sla]                           # acknowledge within; "none": no SLA
P1 = "2m"
P4 = "none"
```
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from fnmatch import fnmatchcase
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from core.alarms import Alarm, in_scope, kind_of
from core.clock import MINUTE_MS


class Priority(IntEnum):
    """P1 is the most urgent; a lower number sorts first."""

    P1 = 1
    P2 = 2
    P3 = 3
    P4 = 4

    @property
    def label(self) -> str:
        return self.name


# When no rule matches: from the spec's violationType (core.alarms.KINDS). An alarm of a kind the spec does
# not list (or with none) is P3: unknown is not the same as harmless, so it is not put last.
DEFAULTS: dict[str, Priority] = {
    "alarm": Priority.P1,
    "red": Priority.P2,
    "error": Priority.P2,
    "warning": Priority.P3,
    "yellow": Priority.P3,
    "gray": Priority.P4,
}
UNKNOWN_KIND = Priority.P3

# Acknowledgement SLA in minutes (None: no SLA), when `[sla]` does not set it.
DEFAULT_SLA_MINUTES: dict[Priority, float | None] = {
    Priority.P1: 2,
    Priority.P2: 5,
    Priority.P3: 30,
    Priority.P4: None,
}


def default_priority(violation_type: str | None) -> Priority:
    kind = kind_of(violation_type)
    return DEFAULTS[kind.name] if kind else UNKNOWN_KIND


def parse_priority(value: Any) -> Priority:
    """ "P1".."P4" (any case) or 1..4."""
    if isinstance(value, Priority):
        return value
    text = str(value).strip().upper() if isinstance(value, str | int) and not isinstance(value, bool) else ""
    text = text if text.startswith("P") else f"P{text}"
    if text not in Priority.__members__:
        raise ValueError(f"{value!r} is not a priority (P1, P2, P3 or P4)")
    return Priority[text]


_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(s|m|min|h)", re.IGNORECASE)
_UNIT_MINUTES = {"s": 1 / 60, "m": 1, "min": 1, "h": 60}


def sla_minutes(value: Any) -> float | None:
    """Minutes in "90s", "2m", "1h"; None for "none". A bare number is refused: seconds or minutes?"""
    if isinstance(value, str) and value.strip().lower() == "none":
        return None
    if isinstance(value, str) and (match := _DURATION.fullmatch(value.strip())):
        minutes = float(match[1]) * _UNIT_MINUTES[match[2].lower()]
        if not 0 < minutes <= 7 * 24 * 60:
            raise ValueError("must be more than 0 and at most 7 days")
        return minutes
    raise ValueError(f'{value!r} is not a time like "2m", "90s" or "1h", or "none"')


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AlarmMatch(_Section):
    """Which alarms a configured entry is for (a `[[priorities]]` rule, an `[[action_plans]]` plan): unset
    fields match anything."""

    violation_name: tuple[str, ...] = ()  # globs, matched in any case
    violation_types: tuple[str, ...] = ()
    event_types: tuple[str, ...] = ()
    org: int | None = None
    panels: tuple[int, ...] = ()

    @field_validator("violation_name", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("violation_name")
    @classmethod
    def _globs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not pattern.strip() for pattern in value):
            raise ValueError("a pattern is empty")
        return tuple(pattern.casefold() for pattern in value)

    def matches(self, alarm: Alarm) -> bool:
        scope = (self.org, self.panels, self.event_types, self.violation_types)
        return in_scope(alarm, *scope) and (
            not self.violation_name or self._name_matches(alarm.violation_name)
        )

    def _name_matches(self, name: str | None) -> bool:
        """An alarm without a violationName matches no pattern, not even "*"."""
        return name is not None and any(fnmatchcase(name.casefold(), p) for p in self.violation_name)


class PriorityRule(AlarmMatch):
    """One `[[priorities]]` entry: its priority, for the alarms it matches."""

    priority: Priority

    @field_validator("priority", mode="before")
    @classmethod
    def _priority(cls, value: Any) -> Priority:
        return parse_priority(value)


class SlaConfig(_Section):
    """`[sla]`: minutes each priority has to be acknowledged; None: no SLA."""

    P1: float | None = DEFAULT_SLA_MINUTES[Priority.P1]
    P2: float | None = DEFAULT_SLA_MINUTES[Priority.P2]
    P3: float | None = DEFAULT_SLA_MINUTES[Priority.P3]
    P4: float | None = DEFAULT_SLA_MINUTES[Priority.P4]

    @field_validator("P1", "P2", "P3", "P4", mode="before")
    @classmethod
    def _minutes(cls, value: Any) -> float | None:
        return sla_minutes(value)

    def minutes(self, priority: Priority) -> float | None:
        return getattr(self, priority.name)


@dataclass(frozen=True)
class Priorities:
    """The rules and the SLA together: what every reader of priorities is handed."""

    rules: tuple[PriorityRule, ...] = ()
    sla: SlaConfig = field(default_factory=SlaConfig)

    def of(self, alarm: Alarm) -> Priority:
        """The first matching rule's priority, else the default of the alarm's violationType."""
        rule = next((r for r in self.rules if r.matches(alarm)), None)
        return rule.priority if rule is not None else default_priority(alarm.violation_type)

    def sla_ms(self, priority: Priority) -> int | None:
        minutes = self.sla.minutes(priority)
        return None if minutes is None else int(minutes * MINUTE_MS)

    def due_at(self, alarm: Alarm, late_ms: int | None = None) -> int | None:
        """When the alarm must be acknowledged by (ms); None: no SLA. Counted from when it happened, or, for
        an alarm that reached samops late (`late_ms`: how long after its own time samops first saw it,
        `core.read.lateness` over `activities.seen_at`, the late mark's source), from its arrival: nobody
        could acknowledge it before. The one rule of the card's overdue line, the overdue edit, Handling and
        the handover (which read the lifecycle's `opened_at`, the arrival of a late alarm)."""
        sla = self.sla_ms(self.of(alarm))
        return None if sla is None else alarm.activity_time + (late_ms or 0) + sla

    def overdue(self, alarm: Alarm, now: int, late_ms: int | None = None) -> bool:
        """Past its SLA (`due_at`); the caller says whether it is still open (unacknowledged)."""
        due = self.due_at(alarm, late_ms)
        return due is not None and now >= due

    def rank_sql(self) -> tuple[str, Callable[..., int]]:
        """A name and a function to register with SQLite (`create_function`, 5 arguments: violation_name,
        violation_type, event_type, org_id, resource_id) giving the priority's number, so that a read can
        order by priority and keep its LIMIT."""

        def rank(name: Any, vtype: Any, etype: Any, org: Any, resource: Any) -> int:
            alarm = Alarm("", resource, org, 0, None, etype, name, vtype, None)
            return int(self.of(alarm))

        return "samops_priority", rank


def sla_text(minutes: float | None) -> str:
    """ "2 min", "90 s", "1 h"; "none"."""
    if minutes is None:
        return "none"
    if minutes < 1 or (minutes < 60 and minutes % 1):
        return f"{minutes * 60:g} s"  # "90 s", not "1.5 min"
    if minutes >= 60 and minutes % 60 == 0:
        return f"{minutes / 60:g} h"
    return f"{minutes:g} min"
