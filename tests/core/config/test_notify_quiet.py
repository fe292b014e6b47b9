"""The TOML keys of silences, maintenance and handover: good entries parse, bad ones name the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.config import NotifyConfigError, load_config, parse_notify


def test_a_handover_channel_takes_the_org_of_its_channel_entry(tmp_path: Path) -> None:
    path = tmp_path / "samops.toml"
    path.write_text('[channels.C_A]\norg = 1001\n[notify.channels.C_A]\nhandover = ["07:00", "19:00"]\n'
                    '[notify.channels.C_B]\nhandover = ["06:30"]\norg = 1002\n')  # fmt: skip
    config = load_config(path).notify
    assert config.per_channel["C_A"].org == 1001 and config.per_channel["C_B"].org == 1002
    assert {"C_A", "C_B"} <= set(config.channels())  # checked by `samops notify --check-config`


@pytest.mark.parametrize(
    ("notify", "field"),
    [
        ({"channels": {"C_A": {"handover": ["7pm"]}}}, "notify.channels.C_A.handover"),
        ({"channels": {"C_A": {"handover": ["07:00", "7:00"]}}}, "listed twice"),
        ({"channels": {"not a channel": {"handover": ["07:00"]}}}, "not a Slack channel id"),
        ({"maintenance": [{"from": "22:00", "to": "06:00"}]}, "name the panels or the org"),
        ({"maintenance": [{"org": 1, "from": "22:00", "to": "22:00"}]}, "the same time"),
        (
            {"maintenance": [{"org": 1, "days": ["someday"], "from": "22:00", "to": "06:00"}]},
            "maintenance.0.days",
        ),
        ({"maintenance": [{"org": 1, "from": "22:00"}]}, "maintenance.0.to"),
        ({"maintenance": [{"org": 1, "from": "22:00", "to": "6", "x": 1}]}, "maintenance.0.x"),
        ({"maintenance": [{"org": 1, "from": "1:00", "to": "2:00", "timezone": "Mars/Base"}]}, "time zone"),
    ],
)
def test_bad_entries_name_the_field(notify: dict, field: str) -> None:
    with pytest.raises(NotifyConfigError, match=field.replace(".", r"\.")):
        parse_notify(notify)
