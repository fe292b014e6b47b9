"""`samops bot --demo-admin USER` (what `samops up` passes on the embedded simulator): that user is an admin
of the demo, and says why; with an account other than the simulator's demo one the flag grants nothing
(issue 22 item 7: on a configured service roles come from the config only). Real bots, real simulators."""

from __future__ import annotations

from pathlib import Path

from tests.support.bot import run_bot
from tests.support.processes import run_simulator
from tests.support.slack_standin import SlackStandIn

DEMO_ADMIN = "U_SAMOPS_CLI"
SMALL = ("--alarm-rate", "0", "--panels", "6", "--history-days", "1")


def test_the_demo_admin_holds_only_on_the_demo_account(tmp_path: Path, slack: SlackStandIn) -> None:
    args = ("--demo-admin", DEMO_ADMIN)
    (tmp_path / "demo").mkdir()
    (tmp_path / "own").mkdir()
    with (
        run_simulator(*SMALL, seed=9) as sim,
        run_bot(tmp_path / "demo", slack, simulator=sim, args=args) as bot,
    ):
        whoami = bot.send_command("whoami", user=DEMO_ADMIN).text
        assert "You are an admin" in whoami and "embedded simulator" in whoami
        assert "You are a viewer" in bot.send_command("whoami", user="U_SOMEONE").text
        allowed = bot.send_command("task update 100201 name=Night org:1002", user=DEMO_ADMIN).text
        assert "needs the" not in allowed  # a technician's write, allowed

    own = ("--demo-screen-name", "field-ops", "--demo-password", "field-secret")
    account = {"SAM_SCREEN_NAME": "field-ops", "SAM_PASSWORD": "field-secret"}
    with (
        run_simulator(*SMALL, *own, seed=9) as sim,
        run_bot(tmp_path / "own", slack, simulator=sim, args=args, env=account) as bot,
    ):
        assert "You are a viewer" in bot.send_command("whoami", user=DEMO_ADMIN).text
        refused = bot.send_command("task update 100201 name=Night org:1002", user=DEMO_ADMIN).text
        assert "needs the technician role" in refused
