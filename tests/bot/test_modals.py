"""Modal commands open their modal inside Slack's 3-second trigger_id window even when the service is slow:
a loading view at once (views.open), then the form by views.update once the service has answered, or the
reason it could not be loaded.

The simulator answers every call after 2.5 s, as a slow service would; the stand-in refuses a trigger_id
older than 3 s (`expired_trigger_id`), as Slack does.
"""

from __future__ import annotations

import json
import time
from typing import Any

from tests.support.bot import BotProcess, blocks_text, bot_fixtures
from tests.support.slack_standin import Call, SlackStandIn

TECH = "UTECH1"
CONFIG = f'[roles]\ntechnicians = ["{TECH}"]\n'
LATENCY_MS = 2500


# Every service call takes LATENCY_MS (2.5 s): SAM_TIMEOUT 10 s, as the default 5 s is too near.
sim, bot = bot_fixtures(
    CONFIG, seed=5, sim_options=("--latency-ms", str(LATENCY_MS)), env={"SAM_TIMEOUT": "10"}
)


def command(bot: BotProcess, slack: SlackStandIn, text: str) -> tuple[float, Call, str]:
    """Send `/sam text` as the technician; the time it was sent, the views.open it caused, and the view id."""
    before = len(slack.calls_to("views.open"))
    sent = time.time()
    result = bot.send_command(text, user=TECH, wait=False)
    assert result.status == 200
    opened = slack.wait_for(lambda: slack.calls_to("views.open")[before:], timeout=30)[0]
    view_id = slack.wait_for(lambda: slack.opened_views()[before:], timeout=5)[0]["id"]
    return sent, opened, view_id


def updates_of(slack: SlackStandIn, view_id: str) -> list[dict[str, Any]]:
    return [c.params for c in slack.calls_to("views.update") if c.params.get("view_id") == view_id]


def current_view(slack: SlackStandIn, view_id: str) -> dict[str, Any]:
    return next(v for v in slack.opened_views() if v["id"] == view_id)


def test_access_grant_opens_at_once_then_fills_the_form(bot: BotProcess, slack: SlackStandIn) -> None:
    sent, opened, view_id = command(bot, slack, "access grant 7102")
    assert opened.at - sent < 1.0, f"views.open came {opened.at - sent:.2f} s after the command"
    loading = opened.params["view"]
    assert "Loading" in blocks_text(loading["blocks"]) and "submit" not in loading

    [update] = slack.wait_for(lambda: updates_of(slack, view_id), timeout=60)
    assert update["hash"], "views.update must name the hash of the view it replaces"
    form = current_view(slack, view_id)
    assert form["callback_id"] == "sam_access_grant" and form["submit"]["text"] == "Grant"
    assert json.loads(form["private_metadata"])["user"] == 7102
    # It took the service's time: proof the form was not built before the modal opened.
    assert slack.calls_to("views.update")[-1].at - sent >= LATENCY_MS / 1000


def test_camera_add_and_task_update_open_with_a_loading_view_too(
    bot: BotProcess, slack: SlackStandIn
) -> None:
    for text, callback in (("camera add", "sam_camera_add"), ("task update 100102", "sam_task_update")):
        sent, opened, view_id = command(bot, slack, text)
        assert opened.at - sent < 1.0, f"{text}: views.open came {opened.at - sent:.2f} s after the command"
        assert opened.params["view"]["callback_id"] == "sam_loading"
        slack.wait_for(lambda: updates_of(slack, view_id), timeout=60)  # noqa: B023 (used at once)
        assert current_view(slack, view_id)["callback_id"] == callback


def test_a_failure_is_shown_in_the_modal_and_answered(bot: BotProcess, slack: SlackStandIn) -> None:
    answered = len(slack.responses())
    sent, opened, view_id = command(bot, slack, "access grant 999999")
    assert opened.at - sent < 1.0
    slack.wait_for(lambda: updates_of(slack, view_id), timeout=60)
    view = current_view(slack, view_id)
    text = blocks_text(view["blocks"])
    assert "Not found" in text and "submit" not in view and "Traceback" not in text
    # The router answers and audits the failure as for any command.
    [answer] = slack.wait_for(lambda: slack.responses()[answered:], timeout=30)
    assert "Not found" in answer.params["text"]
