"""Priorities: the first matching [[priorities]] rule, else the violationType's default; [sla] per priority;
bad entries refused with one line naming the field."""

from __future__ import annotations

import pytest

from core.alarms import Alarm
from core.config import ConfigError, parse_config
from core.priorities import DEFAULTS, Priorities, Priority, default_priority
from core.read import lateness


def alarm(name: str | None = "Intrusion", vtype: str | None = "alarm", etype: str | None = "violation",
          org: int | None = 1001, panel: int | None = 100101, at: int = 0) -> Alarm:  # fmt: skip
    return Alarm("EV-1", panel, org, at, None, etype, name, vtype, "Warehouse")


def book(**data: object) -> Priorities:
    return parse_config(data).priority_book()


@pytest.mark.parametrize(
    ("vtype", "expected"),
    [("alarm", Priority.P1), ("red", Priority.P2), ("error", Priority.P2), ("warning", Priority.P3),
     ("yellow", Priority.P3), ("gray", Priority.P4), ("GRAY", Priority.P4), (None, Priority.P3),
     ("tamper", Priority.P3)],
)  # fmt: skip
def test_defaults_follow_the_violation_type(vtype: str | None, expected: Priority) -> None:
    assert default_priority(vtype) is expected
    assert Priorities().of(alarm(vtype=vtype)) is expected


def test_every_kind_of_the_spec_has_a_default() -> None:
    from core.alarms import SEVERITY

    assert set(DEFAULTS) == set(SEVERITY)


def test_first_matching_rule_wins_and_globs_match_in_any_case() -> None:
    rules = book(
        priorities=[
            {"priority": "P4", "violation_name": "*test*", "org": 1002},
            {"priority": "P1", "violation_name": ["*fire*", "smoke?"], "violation_types": ["warning"]},
            {"priority": 2, "event_types": ["violation"], "panels": [100102]},
            {"priority": "p4", "violation_name": "*"},
        ]
    )
    assert rules.of(alarm(name="Front FIRE door", vtype="warning")) is Priority.P1
    assert rules.of(alarm(name="smokeA", vtype="warning")) is Priority.P1
    assert rules.of(alarm(name="smoke detector", vtype="warning")) is Priority.P4  # ? is one character
    assert rules.of(alarm(name="Fire", vtype="alarm", panel=100102)) is Priority.P2  # type differs
    assert rules.of(alarm(name="Line test", org=1002)) is Priority.P4
    assert rules.of(alarm(name=None, vtype="alarm")) is Priority.P1  # no name: "*" does not match it


def test_no_rule_matching_gives_the_default() -> None:
    rules = book(priorities=[{"priority": "P4", "org": 2000}])
    assert rules.of(alarm(vtype="alarm")) is Priority.P1
    assert rules.of(alarm(vtype="yellow")) is Priority.P3


def test_sla_defaults_and_settings() -> None:
    assert [Priorities().sla.minutes(p) for p in Priority] == [2, 5, 30, None]
    rules = book(sla={"P1": "90s", "P3": "1h", "P4": "10m", "P2": "none"})
    assert rules.sla_ms(Priority.P1) == 90_000
    assert rules.sla_ms(Priority.P2) is None
    assert rules.sla_ms(Priority.P3) == 3_600_000
    assert rules.due_at(alarm(at=1_000)) == 91_000
    assert not rules.overdue(alarm(at=1_000), 90_999)
    assert rules.overdue(alarm(at=1_000), 91_000)
    assert not rules.overdue(alarm(vtype="red", at=0), 10**12)  # P2: no SLA


def test_a_late_alarms_sla_counts_from_its_arrival() -> None:
    """`late_ms` (core.read.lateness: seen 10 min after it happened) moves the start to its arrival."""
    rules = book(sla={"P1": "2m"})
    late = lateness(1_000, 1_000 + 600_000)
    assert late == 600_000 and lateness(1_000, 1_000 + 60_000) is None  # seen within 2 min: not late
    assert rules.due_at(alarm(at=1_000), late) == 1_000 + 600_000 + 120_000
    assert not rules.overdue(alarm(at=1_000), 601_000, late)  # just arrived: not overdue at posting
    assert rules.overdue(alarm(at=1_000), 721_000, late)


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"priorities": [{"priority": "P5"}]}, "priorities.0.priority"),
        ({"priorities": [{"violation_name": "x"}]}, "priorities.0.priority"),
        ({"priorities": [{"priority": "P1"}, {"priority": 1, "violation_nam": "x"}]}, "priorities.1.violation_nam"),  # noqa: E501
        ({"priorities": [{"priority": "P1", "violation_name": ""}]}, "priorities.0.violation_name"),
        ({"priorities": [{"priority": "P1", "panels": ["x"]}]}, "priorities.0.panels.0"),
        ({"sla": {"P1": 5}}, "sla.P1"),
        ({"sla": {"P1": "0m"}}, "sla.P1"),
        ({"sla": {"P9": "5m"}}, "sla.P9"),
        ({"priority": [{"priority": "P1"}]}, "priority"),
    ],
)  # fmt: skip
def test_bad_entries_are_refused_naming_the_field(data: dict[str, object], named: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(data, "samops.toml")
    message = str(err.value)
    assert message.startswith(f"samops.toml: {named}: ")
    assert "\n" not in message
