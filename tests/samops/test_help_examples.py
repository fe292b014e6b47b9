"""Every example `/sam help` prints works on the embedded simulator as printed (issue 37): each is sent, as
Slack sends it, to a real bot over the simulator `samops up` starts (its default seed and size), by an admin
as `samops slash` is there, and each answers with data, not "not found", an error or "nothing".

Examples that open a form (`/sam camera add`) answer with the form; writes answer with what they did.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from core.cache.db import open_cache
from core.client import SamClient
from core.settings import Settings
from core.sync import run_sync
from tests.support.bot import BotProcess, CommandResult, blocks_text, run_bot
from tests.support.processes import run_simulator
from tests.support.slack_standin import SlackStandIn

ADMIN = "U_ADMIN"
# Words that say an example found nothing, or failed: none may be in an answer.
NOTHING = (
    "not found",
    "no such",
    "nothing has",
    "is empty",
    "no alarm",
    "unknown",
    "could not",
    "not a ",
    "no panel",
    "no user",
    "no customer",
    "no bills",
    "none of",
    "failed",
    "error:",
    "went wrong",
)


def examples() -> list[str]:
    """Every example, the audit log's last: it answers with what the others wrote."""
    importlib.import_module("bot.commands")  # registers every subcommand
    from bot.slash.registry import SUBCOMMANDS

    found = [e.removeprefix("/sam ") for cmd in SUBCOMMANDS for e in cmd.examples]
    return sorted(found, key=lambda e: e.startswith("audit"))


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotProcess]:
    tmp = tmp_path_factory.mktemp("help")
    # The embedded simulator's data: its default seed and size (`samops up` passes neither).
    with run_simulator("--alarm-rate", "0", seed=42) as sim:
        db_path = tmp / "cache.db"
        with SamClient(Settings(base_url=sim.base_url)) as client:
            client.login()
            db = open_cache(db_path)
            try:
                assert run_sync(db, client).ok
            finally:
                db.close()
        config = f'[roles]\nadmins = ["{ADMIN}"]\n'
        with SlackStandIn() as slack, run_bot(tmp, slack, simulator=sim, db_path=db_path, config=config) as b:
            yield b


def answer(bot: BotProcess, example: str) -> str:
    """The command's answer: its message, or the form it opened (as its last update shows it)."""
    slack = bot.slack
    opened, updates = len(slack.calls_to("views.open")), len(slack.calls_to("views.update"))
    form = bot.command_form(example, user=ADMIN)
    name = form["response_url"].rsplit("/", 1)[1]
    response = bot.post_signed(urlencode(form).encode())
    assert response.status_code == 200, response.text
    slack.wait_for(lambda: slack.responses(name) or len(slack.calls_to("views.open")) > opened, timeout=30)
    if answers := slack.responses(name):
        return CommandResult(200, response.text, [c.params for c in answers]).text
    # A form: opened at once, then filled in with what the service holds (views.update), if it needs it.
    time.sleep(1)
    slack.wait_for(lambda: len(slack.calls_to("views.update")) >= updates, timeout=30)
    view = slack.opened_views()[-1]
    return str(view.get("title", {}).get("text", "")) + "\n" + blocks_text(view.get("blocks"))


@pytest.mark.slow
@pytest.mark.parametrize("example", examples())
def test_every_help_example_answers_with_data(bot: BotProcess, example: str) -> None:
    text = answer(bot, example)
    print(f"--- /sam {example}\n{text[:600]}")
    lowered = text.lower()
    assert not [w for w in NOTHING if w in lowered], text


@pytest.mark.slow
@pytest.mark.parametrize("example", ["privileges 20001", "role 10012", "access grant 20001"])
def test_privilege_groups_are_named_wherever_shown(bot: BotProcess, example: str) -> None:
    """By the names operation 2 gives them (as the dashboard's who-can shows them), not by number alone."""
    text = answer(bot, example)
    assert "Arm and disarm" in text and "View cameras" in text, text
    assert "privilege group `1`" not in text and "Privilege group 1" not in text, text
