"""What a card shows, read in one call: `alarm_view` gives an `AlarmView` (an alarm's card, and the page a
person gets about it), `storm_view` a `StormView` (a storm's card), `incident_view` an `IncidentView` (a site
incident's card). The renderers in
bot/render/ take a view and nothing else, and read no database.

A view joins samops' rules to the cache's reads: the alarm's lifecycle state, its priority and whether it is
past its SLA (core/priorities.py), how late it reached samops, its keyholder line (core/keyholders.py), its
action plan's checklist (core/read/plans.py), what it was resolved as (core/dispositions.py) and the
maintenance window a life-safety alarm came during. It sits above core/read (which holds the SQL) because
those rules are built on core/read, not in it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from core import cache, dispositions, lifecycle, read
from core.action_plans import ActionPlans
from core.alarms import Alarm
from core.cache import CardCounts, IncidentRow
from core.incidents import Evidence, kinds_of
from core.keyholders import KeyholderContext, context_of
from core.lifecycle import AlarmState, State
from core.priorities import Priorities, Priority
from core.read import Card, Checklist, QuietWindow
from core.sqlite_lib import sqlite_utils


@dataclass(frozen=True)
class AlarmView:
    """Everything an alarm's card shows of it, as of one moment, on the clock of `zone`."""

    alarm: Alarm
    zone: ZoneInfo
    data_as_of: int | None  # when the alarms in the cache were last read from the service
    dashboard_url: str  # for the card's buttons
    state: AlarmState | None = None  # None: never acted on (open)
    priority: Priority | None = None  # None: the card shows no priority
    sla_minutes: float | None = None  # the priority's acknowledgement SLA
    overdue: bool = False  # still open past it
    late_ms: int | None = None  # how much later than its own time it reached samops (docs/history.md)
    keyholders: KeyholderContext | None = None
    checklist: Checklist | None = None  # its action plan, if one is for it
    resolved_as: str | None = None  # the disposition's label
    during: QuietWindow | None = None  # the maintenance window a life-safety alarm was posted during

    @property
    def resolved(self) -> bool:
        return self.state is not None and self.state.state is State.RESOLVED


@dataclass(frozen=True)
class Looks:
    """What every view is drawn for, besides the alarm: its organization's zone, how fresh the data is, the
    dashboard's address, the priorities and plans of the config, and now."""

    zone: ZoneInfo
    data_as_of: int | None
    dashboard_url: str
    priorities: Priorities
    plans: ActionPlans
    now: int
    # The organization's zone, where its access windows are: who was authorized at the alarm's time, and who
    # is now, is judged on it whatever clock the card is shown on (the console's, a person's). None: `zone`.
    judged_in: ZoneInfo | None = None


def alarm_view(db: sqlite_utils.Database, alarm: Alarm, looks: Looks) -> AlarmView:
    """The alarm as its card shows it now."""
    state = lifecycle.get(db, alarm.event_id)
    priority = looks.priorities.of(alarm)
    still_open = state is None or state.state is State.OPEN
    resolved = state is not None and state.state is State.RESOLVED
    closed = dispositions.resolved_as(db, alarm.event_id)
    late = read.late_by(db, alarm.event_id)  # a late alarm's SLA counts from its arrival (Priorities.due_at)
    judged_in = looks.judged_in or looks.zone
    return AlarmView(
        alarm,
        looks.zone,
        looks.data_as_of,
        looks.dashboard_url,
        state=state,
        priority=priority,
        sla_minutes=looks.priorities.sla.minutes(priority),
        overdue=still_open and looks.priorities.overdue(alarm, looks.now, late),
        late_ms=late,
        keyholders=context_of(db, alarm, judged_in),
        checklist=read.plan_checklist(db, looks.plans, alarm, looks.now, judged_in, with_data=not resolved),
        resolved_as=closed.label if closed is not None else None,
        during=read.marked_during(db, alarm.event_id),
    )


@dataclass(frozen=True)
class StormView:
    """What a storm's card shows: `alarm` is the first grouped into it (its title and colour), `handled` how
    many of its alarms are in each state (None for a card not posted yet: all open), `resolved_as` what its
    resolved alarms were resolved as (label -> how many)."""

    alarm: Alarm
    counts: CardCounts
    zone: ZoneInfo
    data_as_of: int | None
    dashboard_url: str
    handled: dict[State, int] | None = None
    resolved_as: dict[str, int] = field(default_factory=dict)


def storm_view(
    db: sqlite_utils.Database, card: Card, looks: Callable[[int | None], Looks]
) -> StormView | None:
    """The storm card `card` as it should look now (its handling line as the team left it); None when its
    first alarm is no longer cached. `looks` gives what it is drawn for, by organization."""
    first = read.first_grouped(db, card)
    alarm = cache.get_alarm(db, first) if first is not None else None
    if alarm is None:
        return None
    seen = looks(alarm.org_id)
    handled = read.card_states(db, card.channel, card.ts)
    closed = resolutions(db, [e for e, _ in read.card_alarms(db, card.channel, card.ts)])
    counts = cache.card_counts(db, card.ts)
    return StormView(alarm, counts, seen.zone, seen.data_as_of, seen.dashboard_url, handled, closed)


@dataclass(frozen=True)
class IncidentView:
    """What a site incident's card shows (core/incidents.py)."""

    resource_id: int
    panel_label: str
    kinds: tuple[str, ...]
    timeline: tuple[Evidence, ...]  # in time order
    handled: dict[State, int]  # the incident's alarms per lifecycle state
    holders: tuple[str, ...] = ()  # Slack users holding ("I'm on it") an alarm of it not yet resolved
    resolved_as: dict[str, int] = field(default_factory=dict)  # disposition label -> how many resolved so


def incident_view(db: sqlite_utils.Database, incident: IncidentRow) -> IncidentView:
    """What the card of `incident` shows, from the cache."""
    timeline = tuple(cache.incident_timeline(db, incident.id))
    name = read.panel_name(db, incident.resource_id)
    label = f"{name} ({incident.resource_id})" if name else f"panel {incident.resource_id}"
    members = [event_id for event_id, _ in cache.incident_alarms(db, incident.id)]
    handled = read.state_counts(db, members)
    held = lifecycle.states(db, members).values()
    holders = tuple(sorted({s.holder for s in held if s.holder and s.state is not State.RESOLVED}))
    kinds = kinds_of(e.kind for e in timeline)
    return IncidentView(
        incident.resource_id, label, kinds, timeline, handled, holders, resolutions(db, members)
    )


def resolutions(db: sqlite_utils.Database, event_ids: list[str]) -> dict[str, int]:
    """How many of these alarms were resolved as each disposition (by label, most first): what a storm's or
    an incident's card says of its resolved alarms."""
    labels = Counter(d.label for d in read.dispositions_of(db, event_ids).values())
    return dict(labels.most_common())
