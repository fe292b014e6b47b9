"""Action plans: which plan an alarm gets (by priority, by kind, narrowed to an organization or panels; the
more specific wins, then the first in the file), the default P1 plan, `action_plans = []`, and bad entries
refused with one line naming the field (at start and for the dashboard)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.action_plans import DEFAULT_PLANS, ActionPlans, steps_left
from core.alarms import Alarm
from core.config import ConfigError, parse_config, read_config


def alarm(name: str | None = "Burglary alarm", vtype: str | None = "alarm", org: int | None = 1001,
          panel: int | None = 100101, etype: str | None = "violation") -> Alarm:  # fmt: skip
    return Alarm("EV-1", panel, org, 0, None, etype, name, vtype, "Warehouse")


STEPS = [{"label": "Call a keyholder", "shows": "keyholders"}, {"label": "Dispatch", "mandatory": True}]


def plan(name: str, **match: Any) -> dict[str, Any]:
    return {"name": name, "steps": STEPS, **match}


def book(*plans: dict[str, Any], **other: Any) -> ActionPlans:
    return parse_config({"action_plans": list(plans), **other}).plan_book()


def chosen(plans: ActionPlans, one: Alarm) -> str | None:
    found = plans.of(one)
    return found.name if found is not None else None


def test_without_action_plans_the_default_plan_is_for_p1_alarms_only() -> None:
    plans = parse_config({}).plan_book()
    assert plans.plans == DEFAULT_PLANS
    assert chosen(plans, alarm()) == "P1 alarm"  # violationType alarm: P1 by default
    assert chosen(plans, alarm(vtype="warning")) is None  # P3
    default = DEFAULT_PLANS[0]
    assert [s.label for s in default.steps] == ["Check the site's cameras", "Call a keyholder",
                                               "Dispatch or stand down"]  # fmt: skip
    assert [s.label for s in default.mandatory] == ["Dispatch or stand down"]
    assert [s.shows for s in default.steps] == ["cameras", "keyholders", None]


def test_an_empty_list_means_no_plan_at_all() -> None:
    assert chosen(book(), alarm()) is None


def test_by_priority_follows_the_priority_rules() -> None:
    plans = book(
        plan("urgent", priorities=["P1", "P2"]),
        plan("routine", priorities="P3"),
        priorities=[{"priority": "P3", "violation_name": "*burglary*"}],
    )
    assert chosen(plans, alarm(vtype="red", name="Door")) == "urgent"  # P2 by default
    assert chosen(plans, alarm()) == "routine"  # P3 by the [[priorities]] rule
    assert chosen(plans, alarm(vtype="gray", name="Battery")) is None  # P4: no plan


def test_by_kind_name_glob_type_and_event_type() -> None:
    plans = book(
        plan("fire", violation_name=["*fire*", "*smoke*"]),
        plan("errors", violation_types=["error"]),
        plan("offline", event_types=["offline"]),
    )
    assert chosen(plans, alarm(name="SMOKE detector")) == "fire"
    assert chosen(plans, alarm(name="Sensor fault", vtype="error")) == "errors"
    assert chosen(plans, alarm(name=None, vtype=None, etype="offline")) == "offline"
    assert chosen(plans, alarm(name=None)) is None  # no name matches no glob


def test_the_more_specific_plan_wins_whatever_the_order() -> None:
    plans = book(
        plan("any P1", priorities="P1"),
        plan("burglary", violation_name="*burglary*"),
        plan("org", org=1001, priorities="P1"),
        plan("panel", panels=[100102]),
        plan("catch-all"),
    )
    assert chosen(plans, alarm(org=2002)) == "burglary"  # kind beats priority
    assert chosen(plans, alarm(org=2002, name="Tamper")) == "any P1"  # priority beats nothing
    assert chosen(plans, alarm(org=2002, name="Tamper", vtype="gray")) == "catch-all"
    assert chosen(plans, alarm()) == "org"  # organization beats kind
    assert chosen(plans, alarm(panel=100102)) == "panel"  # panel beats organization
    # Equally specific: the first in the file.
    assert chosen(book(plan("first", priorities="P1"), plan("second", priorities="P1")), alarm()) == "first"


def test_steps_left_are_the_mandatory_ones_not_ticked() -> None:
    found = book(plan("p")).of(alarm())
    assert [s.label for s in steps_left(found, set())] == ["Dispatch"]
    assert steps_left(found, {"Dispatch"}) == ()
    assert [s.label for s in steps_left(found, {"Dispatch"}, mandatory_only=False)] == ["Call a keyholder"]
    assert steps_left(None, set()) == ()


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"steps": STEPS}, "action_plans.0.name: Field required"),
        (plan("x", priorities="P5"), "action_plans.0.priorities: Value error, 'P5' is not a priority"),
        ({"name": "x", "steps": []}, "action_plans.0.steps: Value error, a plan has 1 to 10 steps, not 0"),
        ({"name": "x", "steps": [{"label": "a", "shows": "dogs"}]}, "action_plans.0.steps.0.shows: Input"),
        ({"name": "x", "steps": [{"label": " "}]}, "action_plans.0.steps.0.label: Value error, is empty"),
        ({"name": "x", "steps": [{"label": "a"}, {"label": "A"}]}, "two steps have the same label"),
        ({"name": "x", "steps": [{"label": "a", "mandatory": "yes"}]}, "action_plans.0.steps.0.mandatory"),
        ({"name": "x", "steps": [{"label": "a", "colour": "red"}]}, "action_plans.0.steps.0.colour: Extra"),
        ({"name": "x", "steps": [{"label": f"s{i}"} for i in range(11)]}, "1 to 10 steps, not 11"),
    ],
)  # fmt: skip
def test_a_bad_entry_is_refused_in_one_line_naming_the_field(entry: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config({"action_plans": [entry]})
    assert says in str(err.value) and "\n" not in str(err.value)
    assert "; " not in str(err.value)  # one problem, said once


def test_two_plans_of_one_name_are_refused() -> None:
    with pytest.raises(ConfigError, match="'P1' names two plans"):
        parse_config({"action_plans": [plan("p1"), plan("P1")]})


def test_the_dashboard_reads_the_plans_through_the_one_model(tmp_path: Path) -> None:
    path = tmp_path / "samops.toml"
    assert read_config(path)[0].plan_book().plans == DEFAULT_PLANS  # no file: the defaults
    path.write_text('action_plans = []\n[roles]\nadmins = ["U1"]\n', encoding="utf-8")
    assert read_config(path)[0].plan_book().plans == ()
    # A bad file: the defaults, and why, in the one line the bot would refuse it with.
    path.write_text('[[action_plans]]\nname = "x"\nsteps = []\n', encoding="utf-8")
    config, problem = read_config(path)
    assert config.plan_book().plans == DEFAULT_PLANS
    assert problem is not None and "action_plans.0.steps" in problem
