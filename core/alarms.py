"""What samops calls an alarm, and how severe each kind of alarm is.

The one definition the cache (its hourly rollup), the read API, the notifier's outbox, the Slack renderers and
the dashboard all use. An alarm is an activity whose eventType is `violation`, or that carries any
violationType at all; `is_alarm` says it in Python, `core.cache.alarm_sql.alarm_sql` in SQL (the cache's
SQL lives in core/cache and core/read), both over VIOLATION.

Severity comes from the spec's violationType values. Each has a level (the colour family of a Slack card:
red, yellow or gray), an icon for Slack lists and a colour for the dashboard's tables and charts, with the
ink that reads on it (core/contrast.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from core.contrast import ink_on

VIOLATION = "violation"  # the eventType of an alarm

# samops' own alarms (a silent panel's "communication lost", core/supervision.py) have no service eventId:
# theirs starts with this, and the cache never stores a service record under it (core/cache/writes.py), so
# the two can never collide.
SUPERVISION_PREFIX = "silent:"


def is_supervision(event_id: str | None) -> bool:
    """Whether an alarm is samops' own supervision alarm rather than an activity of the service."""
    return bool(event_id) and str(event_id).lower().startswith(SUPERVISION_PREFIX)  # as SQL's LIKE


def silent_since(event_id: str) -> int | None:
    """When the panel of a supervision alarm (`silent:<panel>:<since-ms>`, core/supervision.py) fell silent:
    its last sign of life, not when samops raised the alarm; None for any other id."""
    tail = event_id.rsplit(":", 1)[-1]
    return int(tail) if is_supervision(event_id) and tail.isdigit() else None


def is_alarm(event_type: str | None, violation_type: str | None) -> bool:
    """`core.cache.alarm_sql.alarm_sql` in Python, for records not (yet) in the cache: the same test, value
    for value."""
    return event_type == VIOLATION or violation_type is not None


@dataclass(frozen=True)
class Alarm:
    """An activity from the cache, with its panel's name: what the read API lists and the notifier posts."""

    event_id: str
    resource_id: int | None
    org_id: int | None
    activity_time: int
    description: str | None
    event_type: str | None
    violation_name: str | None
    violation_type: str | None
    panel_name: str | None


ALARM_FIELDS = tuple(f.name for f in fields(Alarm))


def in_scope(
    alarm: Alarm,
    org: int | None,
    panels: tuple[int, ...],
    event_types: tuple[str, ...],
    violation_types: tuple[str, ...],
) -> bool:
    """The one reading of a configured scope (a `[notify]` route, a `[[priorities]]` rule): each part that
    is set must hold; an empty part holds for every alarm."""
    return (
        (org is None or alarm.org_id == org)
        and (not panels or alarm.resource_id in panels)
        and (not event_types or alarm.event_type in event_types)
        and (not violation_types or alarm.violation_type in violation_types)
    )


def alarm_from(row: Mapping[str, Any]) -> Alarm:
    """The Alarm in a row selected with `core.cache.alarm_sql.ALARM_COLUMNS` (other columns of the row are
    ignored)."""
    values = {name: row[name] for name in ALARM_FIELDS}
    values["activity_time"] = values["activity_time"] or 0
    return Alarm(**values)


@dataclass(frozen=True)
class Level:
    """A colour family of the Slack alarm card: the bar beside the card and the emoji of its title."""

    name: str
    card_colour: str
    emoji: str


RED = Level("red", "#D0021B", ":red_circle:")
YELLOW = Level("yellow", "#F5C400", ":large_yellow_circle:")
GRAY = Level("gray", "#9B9B9B", ":white_circle:")
LEVELS = {level.name: level for level in (RED, YELLOW, GRAY)}


@dataclass(frozen=True)
class Kind:
    """One violationType of the spec, as samops shows it."""

    name: str
    level: Level
    icon: str  # Slack emoji in list lines
    colour: str  # the dashboard's colour, for tables and charts

    @property
    def ink(self) -> str:
        """The text colour of a badge in `colour`: white or dark, whichever reads at 4.5:1 or better."""
        return ink_on(self.colour)


# Most severe first: "problems first" orders by this, and the dashboard's legend reads in it.
KINDS = (
    Kind("alarm", RED, ":rotating_light:", "#d62728"),
    Kind("red", RED, ":red_circle:", "#ff7f7f"),
    Kind("error", RED, ":x:", "#ff9f1c"),
    Kind("warning", YELLOW, ":warning:", "#ffd166"),
    Kind("yellow", YELLOW, ":large_yellow_circle:", "#f4e285"),
    Kind("gray", GRAY, ":white_circle:", "#adb5bd"),
)
SEVERITY = tuple(kind.name for kind in KINDS)
_BY_NAME = {kind.name: kind for kind in KINDS}


def kind_of(violation_type: str | None) -> Kind | None:
    """The Kind of a violationType (any case), None for a value the spec does not list."""
    return _BY_NAME.get((violation_type or "").lower())


def severity_rank(violation_type: str | None) -> int:
    """0 for the most severe kind; kinds the spec does not list come after every listed one."""
    kind = kind_of(violation_type)
    return SEVERITY.index(kind.name) if kind else len(SEVERITY)


def level_of(violation_type: str | None, event_type: str | None = None) -> Level:
    """The card level of an alarm: from its violationType, else its eventType; gray when neither is known."""
    kind = kind_of(violation_type or event_type)
    return kind.level if kind else GRAY
