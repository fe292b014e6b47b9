"""Which alarms are life-safety (core/life_safety.py): the documented defaults on violationName, the fields
and globs `[life_safety]` sets, and a bad entry refused naming the field when the config is read."""

from __future__ import annotations

import pytest

from core.alarms import Alarm
from core.config import ConfigError, parse_config
from core.life_safety import LifeSafetyConfig


def alarm(name: str | None, description: str | None = None) -> Alarm:
    return Alarm("EV-1", 100101, 1001, 1, description, "violation", name, "alarm", "Gas station")


@pytest.mark.parametrize(
    ("name", "category"),
    [
        ("Fire alarm", "fire"),
        ("SMOKE DETECTOR", "fire"),
        ("Panic alarm", "panic"),
        ("Hold-up button", "panic"),
        ("Duress code entered", "panic"),
        ("Medical emergency", "medical"),
        ("Gas leak", "gas"),
        ("CO alarm", "gas"),
        ("Carbon monoxide", "gas"),
        ("Burglary alarm", None),
        ("Tamper alarm", None),
        ("Water leak alarm", None),
        ("Contact lost", None),  # "co" is a word, not a prefix
        (None, None),
    ],
)
def test_the_default_patterns(name: str | None, category: str | None) -> None:
    assert LifeSafetyConfig().category(alarm(name)) == category


def test_the_description_counts_only_when_configured() -> None:
    burglary = alarm("Burglary alarm", "Burglary alarm on Gas station - Front door")
    assert not LifeSafetyConfig().is_life_safety(burglary)  # the site's name must not make it one
    named = parse_config({"life_safety": {"fields": ["violationName", "description"], "gas": []}})
    assert not named.life_safety.is_life_safety(burglary)  # gas emptied: nothing of it matches
    fire = alarm("Zone 4", "Heat detector in the kitchen")
    assert parse_config({"life_safety": {"fields": ["description"]}}).life_safety.category(fire) == "fire"


def test_a_category_set_replaces_its_defaults_and_takes_one_glob() -> None:
    config = parse_config({"life_safety": {"fire": "*flame*"}}).life_safety
    assert config.category(alarm("Flame sensor")) == "fire"
    assert config.category(alarm("Fire alarm")) is None
    assert config.category(alarm("Panic alarm")) == "panic"  # the other categories keep theirs


@pytest.mark.parametrize(
    ("section", "field"),
    [
        ({"fields": ["resourceId"]}, "life_safety.fields.0"),  # not an Activity field of the spec
        ({"fire": [" "]}, "life_safety.fire"),
        ({"flood": ["*flood*"]}, "life_safety.flood"),
    ],
)
def test_bad_entries_name_the_field(section: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        parse_config({"life_safety": section})
