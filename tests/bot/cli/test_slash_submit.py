"""`samops slash --submit`: every form can be tried without Slack (issue 22 item 7). A real local bot (no
SLACK_BOT_TOKEN) against a real simulator; `samops slash` as a process sends the signed command, reads the
form the bot answers with, fills it as Slack would and sends the signed view_submission. What reaches the
service is read at the simulator."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from datetime import date, timedelta

import httpx
import pytest

from tests.support.bot import BotProcess, run_bot
from tests.support.processes import ROOT, Simulator, run_simulator, samops_cmd
from tests.support.slack_standin import SlackStandIn

TECH = "U_TECH"
CONFIG = f'[roles]\ntechnicians = ["{TECH}"]\n'


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", "--panels", "6", "--history-days", "1", seed=11) as simulator:
        yield simulator


@pytest.fixture(scope="module")
def bot(
    tmp_path_factory: pytest.TempPathFactory, sim: Simulator, slack: SlackStandIn
) -> Iterator[BotProcess]:
    with run_bot(tmp_path_factory.mktemp("bot"), slack, simulator=sim, config=CONFIG, token=None) as local:
        yield local


def slash(bot: BotProcess, *args: str, user: str = TECH) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "SLACK_SIGNING_SECRET": bot.signing_secret,
        "SAMOPS_DATA_DIR": str(bot.data_dir),
    }
    env.pop("SLACK_BOT_TOKEN", None)
    cmd = samops_cmd("slash", *args, "--as", user, "--url", bot.url, "--timeout", "30")
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def requests_to(sim: Simulator, path: str) -> list[dict]:
    return [r for r in httpx.get(f"{sim.root_url}/_sim/requests").json() if r["path"] == path]


def test_the_task_form_is_filled_and_submitted_as_slack_would(bot: BotProcess, sim: Simulator) -> None:
    shown = slash(bot, "/sam task update 100201 org:1002")
    assert shown.returncode == 0, shown.stderr
    # Every field of the task form is optional: one left empty is not sent (the service keeps it).
    assert "--submit field=value" in shown.stdout and "name," in shown.stdout and "dates" in shown.stdout
    before = len(requests_to(sim, "/api/enterprise/schedule/tasks/update"))

    soon = (date.today() + timedelta(days=30)).isoformat()
    done = slash(bot, "/sam task update 100201 org:1002", "--submit", "name=Night patrol", f"dates={soon}")
    assert done.returncode == 0, done.stderr
    assert "Submitted." in done.stdout and "Night patrol" in done.stdout and "ref R-" in done.stdout
    sent = requests_to(sim, "/api/enterprise/schedule/tasks/update")
    assert len(sent) == before + 1
    # The form's answer is what samops now knows of the task: the one-line view shows it.
    again = slash(bot, "/sam task update 100201 org:1002")
    assert "Night patrol" in again.stdout and "last set by samops" in again.stdout


def test_a_form_the_bot_refuses_names_the_field_and_writes_nothing(bot: BotProcess, sim: Simulator) -> None:
    before = len(requests_to(sim, "/api/camera/add"))
    refused = slash(
        bot, "/sam camera add", "--submit", "name=", "brand=Hik", "serial=S-1", "security_code=4711"
    )
    assert refused.returncode == 1
    assert "The form was not accepted" in refused.stdout and "name:" in refused.stdout
    assert "4711" not in refused.stdout + refused.stderr
    assert len(requests_to(sim, "/api/camera/add")) == before

    added = slash(
        bot, "/sam camera add", "--submit", "name=Gate", "brand=Hik", "serial=S-1", "security_code=4711"
    )
    assert added.returncode == 0, added.stderr
    assert "Gate" in added.stdout and "4711" not in added.stdout
    assert len(requests_to(sim, "/api/camera/add")) == before + 1
    assert "4711" not in (bot.data_dir / "bot.log").read_text()


def test_submit_says_what_is_wrong_with_its_own_input(bot: BotProcess) -> None:
    unknown = slash(bot, "/sam camera add", "--submit", "colour=red")
    assert unknown.returncode == 2
    assert "no field colour" in unknown.stderr and "security_code" in unknown.stderr
    no_form = slash(bot, "/sam help", "--submit", "name=x")
    assert no_form.returncode == 2 and "opened no form" in no_form.stderr
    viewer = slash(bot, "/sam camera add", "--submit", "name=Gate", user="U_SOMEONE")
    assert viewer.returncode == 2 and "needs the technician role" in viewer.stdout  # the refusal, no form


def test_answers_print_as_slack_shows_them(bot: BotProcess) -> None:
    """Slack's escapes (`&lt;id&gt;`) are shown as Slack shows them: `<id>`."""
    usage = slash(bot, "/sam at-risk everything")
    assert "/sam at-risk [org:<id>]" in usage.stdout and "&lt;" not in usage.stdout
