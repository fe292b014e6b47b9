"""`[[dispositions]]` and `[false_alarms]` are parsed once with the config: the documented defaults when
absent, a list that replaces them when given, and every bad entry refused with one line naming its field;
the dashboard's own reading of `[false_alarms]` agrees."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from core.config import ConfigError, parse_config, read_config
from core.dispositions import DEFAULTS, DispositionClass

CODES = [
    "false_user_error", "false_equipment", "false_environment", "false_unknown", "confirmed_intrusion",
    "confirmed_fire", "confirmed_medical", "confirmed_other", "test", "cancelled",
]  # fmt: skip


def test_the_documented_defaults() -> None:
    listed = parse_config({}).disposition_list()
    assert [d.code for d in listed.entries] == CODES == [d.code for d in DEFAULTS]
    assert listed.get("false_user_error").label == "False alarm: user error"  # type: ignore[union-attr]
    assert listed.get("cancelled").label == "Cancelled by the customer"  # type: ignore[union-attr]
    assert {d.code for d in DEFAULTS if d.klass is DispositionClass.FALSE} == set(CODES[:4])
    assert listed.get("nonsense") is None and listed.get(None) is None and listed.get(["test"]) is None
    limits = parse_config({}).false_alarms
    assert (limits.threshold, limits.days) == (3, 30)


def test_a_list_replaces_the_defaults() -> None:
    text = '[[dispositions]]\ncode = "false_pet"\nlabel = "False alarm: a pet"\nclass = "false"\n'
    config = parse_config(tomllib.loads(text + "[false_alarms]\nthreshold = 5\ndays = 14\n"))
    assert config.disposition_list().options() == [("false_pet", "False alarm: a pet")]
    assert (config.false_alarms.threshold, config.false_alarms.days) == (5, 14)


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"dispositions": [{"code": "Bad Code", "label": "x", "class": "false"}]}, "dispositions.0.code"),
        ({"dispositions": [{"code": "x", "label": "x", "class": "maybe"}]}, "dispositions.0.class"),
        ({"dispositions": [{"code": "x", "label": "x"}]}, "dispositions.0.class"),
        ({"dispositions": [{"code": "x", "label": "", "class": "test"}]}, "dispositions.0.label"),
        ({"dispositions": [{"code": "x", "label": "y" * 76, "class": "test"}]}, "dispositions.0.label"),
        (
            {"dispositions": [{"code": "x", "label": "x", "class": "test", "colour": "red"}]},
            "dispositions.0.colour",
        ),
        ({"dispositions": [{"code": "x", "label": "a", "class": "test"}] * 2}, "listed twice"),
        ({"dispositions": []}, "at least one disposition"),
        ({"false_alarms": {"threshold": 0}}, "false_alarms.threshold"),
        ({"false_alarms": {"days": 400}}, "false_alarms.days"),
        ({"false_alarms": {"limit": 3}}, "false_alarms.limit"),
    ],
)
def test_a_bad_entry_is_refused_naming_its_field(data: dict, named: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_config(data, "samops.toml")
    message = str(refused.value)
    assert named in message and "\n" not in message and message.startswith("samops.toml: ")
    if "false_alarms" in data:  # the dashboard reads the same model, and says the same
        path = tmp_path / "samops.toml"
        path.write_text(f"[false_alarms]\n{next(iter(data['false_alarms']))} = "
                        f"{next(iter(data['false_alarms'].values()))}\n", encoding="utf-8")  # fmt: skip
        config, problem = read_config(path)
        assert problem is not None and named in problem and config.false_alarms.threshold == 3


def test_the_dashboard_reads_the_same_limits(tmp_path: Path) -> None:
    path = tmp_path / "samops.toml"
    assert read_config(path)[0].false_alarms.threshold == 3  # no file: the defaults
    path.write_text("[false_alarms]\nthreshold = 9\ndays = 60\n[roles]\nviewers = []\n", encoding="utf-8")
    limits = read_config(path)[0].false_alarms
    assert (limits.threshold, limits.days) == (9, 60)


def test_a_suggestion_is_a_hint_naming_a_listed_disposition() -> None:
    listed = parse_config({}).disposition_list()
    why = "during the access window of Ana Yılmaz (Mon–Fri 08:00–18:00)"
    assert listed.suggestion("false_user_error", why) == f"Suggested: False alarm: user error — {why}"
    assert listed.suggestion("test") == "Suggested: Test"
    assert listed.suggestion(None, why) is None
    own = parse_config({"dispositions": [{"code": "false_pet", "label": "Pet", "class": "false"}]})
    assert own.disposition_list().suggestion("false_user_error", why) is None  # not in this list
