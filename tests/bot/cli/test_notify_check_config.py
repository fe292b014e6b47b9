"""`samops notify --check-config`, a real process against the Slack stand-in: every channel the config names
(routes, default, health, handover, escalation targets, the audit channel) is shown and checked, once each."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.support.processes import ROOT, samops_cmd
from tests.support.slack_standin import SlackStandIn

CONFIG = """
[audit]
channel = "{audit}"

[notify]
default_channel = "C_ALARMS"

[notify.health]
channel = "C_OPS"

[[notify.routes]]
channel = "C_FIRE"
escalate_after = [10, 30]
escalate_to = ["S0FIRE", ["U0LEAD", "{escalation}"]]

[[notify.routes]]
channel = "C_ALARMS"
org = 1002

[notify.channels.{handover}]
handover = ["07:00", "19:00"]
"""


def check(tmp_path: Path, slack: SlackStandIn, **channels: str) -> subprocess.CompletedProcess[str]:
    names = {"audit": "C_AUDIT", "escalation": "C0MANAGERS", "handover": "C_SHIFT", **channels}
    (tmp_path / "samops.toml").write_text(CONFIG.format(**names))
    env = {**os.environ, "SLACK_BOT_TOKEN": "xoxb-test", "SLACK_API_URL": slack.api_url, "COLUMNS": "200",
           "SAMOPS_DATA_DIR": str(tmp_path / "data")}  # fmt: skip
    command = samops_cmd("notify", "--check-config", "--config", str(tmp_path / "samops.toml"))
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)


def checked(slack: SlackStandIn) -> list[str]:
    return [str(c.params.get("channel")) for c in slack.calls_to("conversations.info")]


ALL = {"C_ALARMS", "C_OPS", "C_FIRE", "C0MANAGERS", "C_SHIFT", "C_AUDIT"}


def test_every_channel_is_shown_and_checked_once(tmp_path: Path) -> None:
    with SlackStandIn(channels=ALL) as slack:
        result = check(tmp_path, slack)
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(checked(slack)) == sorted(ALL)  # C_ALARMS is named twice, asked about once
    rows = [row for row in result.stdout.splitlines() if "│" in row and "any" not in row]  # not routing
    for channel, use in [("C0MANAGERS", "escalation"), ("C_SHIFT", "handover 07:00, 19:00"),
                         ("C_AUDIT", "audit"), ("C_OPS", "ops"), ("C_ALARMS", "default")]:  # fmt: skip
        [line] = [row for row in rows if f" {channel} " in row]
        assert use in line, line


def test_a_missing_escalation_handover_or_audit_channel_fails_the_check(tmp_path: Path) -> None:
    for key, channel in [("escalation", "C0GONE"), ("handover", "C_GONE2"), ("audit", "C_GONE3")]:
        with SlackStandIn(channels=ALL) as slack:
            result = check(tmp_path, slack, **{key: channel})
        assert result.returncode == 2, result.stdout + result.stderr
        said = "cannot be found" if key == "escalation" else "cannot post"  # a target is only mentioned
        assert f"channel {channel}: {said} (channel_not_found)" in result.stdout.replace("\n", " ")


def check_without_slack(tmp_path: Path, more: str) -> subprocess.CompletedProcess[str]:
    """--check-config of CONFIG and `more`, with no Slack token (channels not checked)."""
    names = {"audit": "C_AUDIT", "escalation": "C0MANAGERS", "handover": "C_SHIFT"}
    (tmp_path / "samops.toml").write_text(CONFIG.format(**names) + more)
    env = {**os.environ, "COLUMNS": "200", "SAMOPS_DATA_DIR": str(tmp_path / "data")}
    command = samops_cmd("notify", "--check-config", "--config", str(tmp_path / "samops.toml"))
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_silent_panel_supervision_is_shown(tmp_path: Path) -> None:
    result = check_without_slack(
        tmp_path, '[supervision]\nsilent_after = "12h"\npanels = { 100101 = "off" }\n'
    )
    assert "silent panels: after 12 h; panel 100101: off" in result.stdout.replace("\n", " ")


def test_escalation_levels_and_paging_are_shown(tmp_path: Path) -> None:
    result = check_without_slack(
        tmp_path, '[notify.escalation.P1]\nescalate_after = [2]\nescalate_to = ["U0BOSS"]\n'
    )
    rows = [" ".join(row.replace("│", " ").split()) for row in result.stdout.splitlines() if "│" in row]
    assert "route 1 1 10 min <!subteam^S0FIRE>" in rows
    assert "route 1 2 30 min <@U0LEAD> <#C0MANAGERS>" in rows
    assert "P1 1 2 min <@U0BOSS>" in rows
    assert "whoever took the alarm" in result.stdout.replace("\n", " ")
