"""Action plans as the card and the dashboard read them (the plans: core/action_plans.py; their records:
core/cache/plans.py).

- `checklist`: an alarm's plan, which of its steps are ticked (by whom, when), whether it was resolved over
  mandatory steps left, and the data a step shows (`shows`): who may operate the panel now (who-can over the
  cached authorizations), the site's cameras and whether each is down, the panel's sensors.
- `adherence`: of the alarms resolved in a span that had a plan, the steps due and ticked, per alarm kind and
  per person who resolved them, and how many were resolved over mandatory steps left.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from core.action_plans import CAMERAS, KEYHOLDERS, SENSORS, ActionPlan, ActionPlans, Step, steps_left
from core.alarms import Alarm, alarm_from
from core.cache.alarm_sql import ALARM_COLUMNS
from core.cache.plans import Override, Tick, override_of, ticks
from core.cameras import camera_down, camera_problems
from core.incidents import camera_on_site
from core.read.rows import query
from core.read.who_can import who_can
from core.sqlite_lib import sqlite_utils

MAX_NAMES = 8  # names listed in a step's data line; the rest are counted


@dataclass(frozen=True)
class StepData:
    """What a step shows beside its label: names (with a word of state each, or None), and why there are
    none when there are none."""

    items: tuple[tuple[str, str | None], ...] = ()
    more: int = 0  # not listed (MAX_NAMES)
    none: str = ""  # said when there are no items: "nobody is authorized now", "none known"


@dataclass(frozen=True)
class ChecklistStep:
    number: int  # from 1, the step's place in the plan (the button names it by its index)
    step: Step
    tick: Tick | None
    data: StepData | None = None  # the step's `shows`, None when it shows nothing


@dataclass(frozen=True)
class Checklist:
    plan: ActionPlan
    steps: tuple[ChecklistStep, ...]
    override: Override | None = None

    @property
    def ticked(self) -> set[str]:
        return {s.step.label for s in self.steps if s.tick is not None}

    @property
    def mandatory_left(self) -> tuple[Step, ...]:
        return steps_left(self.plan, self.ticked)

    @property
    def done(self) -> int:
        return len(self.ticked)


def checklist(
    db: sqlite_utils.Database,
    plans: ActionPlans,
    alarm: Alarm,
    at: int,
    zone: ZoneInfo,
    with_data: bool = True,
) -> Checklist | None:
    """The alarm's checklist, None when no plan is for it; `with_data`: read what its steps show (at `at`)."""
    plan = plans.of(alarm)
    if plan is None:
        return None
    ticked = ticks(db, [alarm.event_id]).get(alarm.event_id, {})
    steps = tuple(
        ChecklistStep(
            i + 1,
            step,
            ticked.get(step.label),
            step_data(db, step.shows, alarm, at, zone) if with_data and step.shows else None,
        )
        for i, step in enumerate(plan.steps)
    )
    return Checklist(plan, steps, override_of(db, alarm.event_id))


def mandatory_left(
    db: sqlite_utils.Database, plans: ActionPlans, alarms: Iterable[Alarm]
) -> list[tuple[Alarm, ActionPlan, tuple[Step, ...]]]:
    """(alarm, its plan, the mandatory steps not ticked) of each of `alarms` that has any left."""
    found: list[tuple[Alarm, ActionPlan, tuple[Step, ...]]] = []
    listed = list(alarms)
    ticked = ticks(db, [a.event_id for a in listed])
    for alarm in listed:
        plan = plans.of(alarm)
        left = steps_left(plan, set(ticked.get(alarm.event_id, {})))
        if plan is not None and left:
            found.append((alarm, plan, left))
    return found


# --- what a step shows -----------------------------------------------------------------------------------


def step_data(db: sqlite_utils.Database, shows: str, alarm: Alarm, at: int, zone: ZoneInfo) -> StepData:
    panel = alarm.resource_id
    if panel is None:
        return StepData(none="the alarm names no panel")
    if shows == KEYHOLDERS:
        return keyholders(db, panel, at, zone)
    if shows == CAMERAS:
        return site_cameras(db, panel)
    if shows == SENSORS:
        return panel_sensors(db, panel)
    return StepData()


def _listed(items: Sequence[tuple[str, str | None]], none: str) -> StepData:
    return StepData(tuple(items[:MAX_NAMES]), max(0, len(items) - MAX_NAMES), none)


def keyholders(db: sqlite_utils.Database, panel: int, at: int, zone: ZoneInfo) -> StepData:
    """Who may operate the panel at `at` (who-can over the cached authorizations: operations 2 and 15)."""
    found = who_can(db, panel, at, zone)
    if found.fetched_at is None:
        return StepData(none="its authorizations are not read yet (`/sam who-can` reads them)")
    items = [(entry.user.name, None) for entry in found.can]
    return _listed(items, "nobody is authorized at this time")


def site_cameras(db: sqlite_utils.Database, panel: int) -> StepData:
    """The cameras of the panel's site (core/incidents.py's `camera_on_site`), down ones first, each with its
    state in core/cameras.py's words ("offline", "disabled"; else "up")."""
    rows = query(db, "SELECT name, tree_path, org_id FROM panels WHERE resource_id = ?", [panel])
    if not rows:
        return StepData(none="the panel is not in the cache")
    name, tree_path, org = rows[0]["name"], rows[0]["tree_path"], rows[0]["org_id"]
    cameras = query(
        db,
        "SELECT resource_id, name, status, bind_status, sd_card_status,"
        " json_extract(raw, '$.enabled') AS enabled, json_extract(raw, '$.treePath') AS tree_path"
        " FROM cameras WHERE org_id = ? ORDER BY name, resource_id",
        [org],
    )
    items: list[tuple[str, str | None]] = []
    for cam in cameras:
        if not camera_on_site(cam["name"], _text(cam["tree_path"]), org, name, tree_path, org):
            continue
        enabled = None if cam["enabled"] is None else bool(cam["enabled"])
        down = camera_down(camera_problems(cam["status"], cam["bind_status"], cam["sd_card_status"], enabled))
        items.append((f"{cam['name'] or 'camera'} ({cam['resource_id']})", down or "up"))
    items.sort(key=lambda item: item[1] == "up")  # down ones first, in name order
    return _listed(items, "no camera of this site is known")


def panel_sensors(db: sqlite_utils.Database, panel: int) -> StepData:
    rows = query(
        db, "SELECT name, sensor_id, type FROM sensors WHERE resource_id = ? ORDER BY order_no, id", [panel]
    )
    items = [(str(r["name"] or f"sensor {r['sensor_id']}"), r["type"]) for r in rows]
    return _listed(items, "no sensor of this panel is in the cache")


def _text(value: object) -> str | None:
    if isinstance(value, str):
        return value
    return None if value is None else json.dumps(value)


# --- adherence (the dashboard) ---------------------------------------------------------------------------


@dataclass
class Adherence:
    """Of the alarms resolved in a span that had a plan: how many, their steps and mandatory steps due and
    ticked, and how many were resolved over mandatory steps left (an admin's override)."""

    label: str
    alarms: int = 0
    steps_due: int = 0
    steps_ticked: int = 0
    mandatory_due: int = 0
    mandatory_ticked: int = 0
    overridden: int = 0
    ticks_made: int = 0  # per person: the steps they ticked themselves, on any of these alarms

    @property
    def ticked_share(self) -> float | None:
        return self.steps_ticked / self.steps_due if self.steps_due else None


@dataclass(frozen=True)
class AdherenceReport:
    by_kind: list[Adherence] = field(default_factory=list)
    by_person: list[Adherence] = field(default_factory=list)


def kind_label(alarm: Alarm) -> str:
    """An alarm's kind as the card's title names it: its violationName, else its eventType."""
    return alarm.violation_name or alarm.event_type or "alarm"


def adherence(db: sqlite_utils.Database, plans: ActionPlans, since: int, until: int) -> AdherenceReport:
    """Plan adherence over the alarms resolved in [since, until), by the plan each alarm has now, per alarm
    kind and per person who resolved it; most alarms first."""
    rows = query(
        db,
        f"SELECT {ALARM_COLUMNS}, s.resolved_by AS resolved_by, o.event_id IS NOT NULL AS overridden"
        " FROM alarm_state s JOIN activities a ON a.event_id = s.event_id"
        " LEFT JOIN panels p ON p.resource_id = a.resource_id"
        " LEFT JOIN plan_overrides o ON o.event_id = s.event_id"
        " WHERE s.state = 'resolved' AND s.resolved_at >= ? AND s.resolved_at < ?",
        [since, until],
    )
    alarms = [(alarm_from(row), str(row["resolved_by"] or "?")) for row in rows]
    ticked = ticks(db, [a.event_id for a, _ in alarms])
    overridden = {str(row["event_id"]) for row in rows if row["overridden"]}
    kinds: dict[str, Adherence] = {}
    people: dict[str, Adherence] = {}
    for alarm, resolver in alarms:
        plan = plans.of(alarm)
        if plan is None:
            continue
        done = ticked.get(alarm.event_id, {})
        labels = {step.label for step in plan.steps}
        for row in (
            kinds.setdefault(kind_label(alarm), Adherence(kind_label(alarm))),
            people.setdefault(resolver, Adherence(resolver)),
        ):
            row.alarms += 1
            row.steps_due += len(plan.steps)
            row.steps_ticked += len(labels & set(done))
            row.mandatory_due += len(plan.mandatory)
            row.mandatory_ticked += sum(1 for step in plan.mandatory if step.label in done)
            row.overridden += alarm.event_id in overridden
        for tick in done.values():
            if tick.step in labels:
                people.setdefault(tick.by_user, Adherence(tick.by_user)).ticks_made += 1
    return AdherenceReport(_most_first(kinds.values()), _most_first(people.values()))


def _most_first(rows: Iterable[Adherence]) -> list[Adherence]:
    return sorted(rows, key=lambda r: (-r.alarms, -r.ticks_made, r.label))
