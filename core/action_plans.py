"""Action plans: the steps to take for a kind of alarm, a checklist on its card (docs/action_plans.md).

The TOML's `[[action_plans]]` entries are parsed once, with the rest of the config (core/config/); a bad
entry is refused at start with one line naming its field. A plan is for the alarms it matches: by priority
(`priorities`, core/priorities.py) and by alarm kind (`violation_name` globs, `violation_types`,
`event_types`), narrowed to an organization (`org`) or to panels (`panels`), read as a `[[priorities]]`
rule reads them (`AlarmMatch`). Of the plans that match an alarm the most specific wins (`specificity`);
between equally specific ones, the first in the file.

Without any `[[action_plans]]` in the file samops uses `DEFAULT_PLANS` (one plan for P1 alarms);
`action_plans = []` says "no plans at all".

```toml
[[action_plans]]
name = "Burglary"                 # shown on the card and the dashboard; unique
priorities = ["P1"]               # optional: P1..P4
violation_name = "*burglary*"     # optional: globs, in any case
panels = [100101]                 # optional: the more specific plan wins
steps = [
  { label = "Check the site's cameras", shows = "cameras" },
  { label = "Call a keyholder", shows = "keyholders" },
  { label = "Dispatch or stand down", mandatory = true },
]
```
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    StrictBool,
    field_validator,
    model_validator,
)

from core.alarms import Alarm
from core.priorities import AlarmMatch, Priorities, Priority, parse_priority

MAX_STEPS = 10  # each step is one block of the card, which holds at most 50 with everything else
MAX_LABEL = 150
MAX_NAME = 80

# What a step may show beside its label: data samops holds at alarm time (bot/render/plans.py draws it).
KEYHOLDERS = "keyholders"  # who may operate the panel now (who-can: operations 2 and 15, cached)
CAMERAS = "cameras"  # the site's cameras and whether each is down (core/cameras.py)
SENSORS = "sensors"  # the panel's sensors
Shows = Literal["keyholders", "cameras", "sensors"]


def _one_line(value: str, most: int) -> str:
    text = value.strip()
    if not text:
        raise ValueError("is empty")
    if len(text) > most:
        raise ValueError(f"is longer than {most} characters")
    if not text.isprintable():
        raise ValueError("holds a control character (a line break?)")
    return text


class Step(BaseModel):
    """One step of a plan: what to do, whether Resolve waits for it, and what data it shows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str
    mandatory: StrictBool = False  # "yes" is no TOML boolean: refused, not read as true
    shows: Shows | None = None

    @field_validator("label")
    @classmethod
    def _label(cls, value: str) -> str:
        return _one_line(value, MAX_LABEL)


class ActionPlan(AlarmMatch):
    """One `[[action_plans]]` entry: its ordered steps, for the alarms it matches."""

    name: str
    priorities: tuple[Priority, ...] = ()
    steps: tuple[Step, ...]

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return _one_line(value, MAX_NAME)

    @field_validator("priorities", mode="before")
    @classmethod
    def _priorities(cls, value: Any) -> Any:
        listed: list[Any] = list(value) if isinstance(value, list | tuple) else [value]  # pyright: ignore[reportUnknownArgumentType]  # TOML: any
        return [parse_priority(one) for one in listed]

    @field_validator("steps")
    @classmethod
    def _steps(cls, steps: tuple[Step, ...]) -> tuple[Step, ...]:
        # Here, not as Field(min_length=...): pydantic would add a length error to a bad step's own.
        if not 1 <= len(steps) <= MAX_STEPS:
            raise ValueError(f"a plan has 1 to {MAX_STEPS} steps, not {len(steps)}")
        return steps

    @model_validator(mode="after")
    def _labels_unique(self) -> ActionPlan:
        # A tick is recorded by its step's label (a plan edited later keeps the ticks of steps it kept).
        labels = [step.label.casefold() for step in self.steps]
        if len(set(labels)) != len(labels):
            raise ValueError("two steps have the same label")
        return self

    def for_alarm(self, alarm: Alarm, priority: Priority) -> bool:
        return self.matches(alarm) and (not self.priorities or priority in self.priorities)

    @property
    def specificity(self) -> tuple[bool, bool, bool, bool]:
        """Panels before organization before kind before priority: of two matching plans, the one naming
        the narrower thing wins."""
        kind = bool(self.violation_name or self.violation_types or self.event_types)
        return (bool(self.panels), self.org is not None, kind, bool(self.priorities))

    @property
    def mandatory(self) -> tuple[Step, ...]:
        return tuple(step for step in self.steps if step.mandatory)


DEFAULT_PLANS: tuple[ActionPlan, ...] = (
    ActionPlan(
        name="P1 alarm",
        priorities=(Priority.P1,),
        steps=(
            Step(label="Check the site's cameras", shows=CAMERAS),
            Step(label="Call a keyholder", shows=KEYHOLDERS),
            Step(label="Dispatch or stand down", mandatory=True),
        ),
    ),
)


def check_names(plans: tuple[ActionPlan, ...]) -> tuple[ActionPlan, ...]:
    """Plan names are unique (the dashboard and the audit log name plans by them)."""
    names = [plan.name.casefold() for plan in plans]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise ValueError(f"{plans[i].name!r} names two plans")
    return plans


@dataclass(frozen=True)
class ActionPlans:
    """The plans and the priorities they are chosen by: what the card, Resolve and the dashboard read."""

    plans: tuple[ActionPlan, ...] = DEFAULT_PLANS
    priorities: Priorities = field(default_factory=Priorities)

    def of(self, alarm: Alarm) -> ActionPlan | None:
        """The most specific plan matching the alarm (the first of equals), None when none does."""
        priority = self.priorities.of(alarm)
        best: ActionPlan | None = None
        for plan in self.plans:
            if plan.for_alarm(alarm, priority) and (best is None or plan.specificity > best.specificity):
                best = plan
        return best


def steps_left(plan: ActionPlan | None, ticked: set[str], mandatory_only: bool = True) -> tuple[Step, ...]:
    """The steps of `plan` not ticked yet (`ticked`: the labels ticked), mandatory ones only by default."""
    if plan is None:
        return ()
    steps = plan.mandatory if mandatory_only else plan.steps
    return tuple(step for step in steps if step.label not in ticked)
