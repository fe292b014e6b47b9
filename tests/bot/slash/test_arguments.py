"""Through the router in-process: id arguments bounded with a usage answer, typed text and service names
escaped in what is answered."""

from __future__ import annotations

from pathlib import Path

import pytest

# Importing a command module registers its subcommands with the router.
import bot.commands  # noqa: F401  # every /sam subcommand
from bot.render.access import delete_confirmation, revoke_confirmation
from bot.render.users import user_blocks
from bot.slash.router import route
from bot.writes import WriteOutcome, outcome_text
from core.models import User
from tests.support.bot import local_context

HOSTILE = "<!channel> *x* <@U0001|boss> & <https://evil.example|click>"


BAD_IDS = ("99999999999999999999", str(2**63), "0", "²", "#0")


ID_COMMANDS = (
    ("access grant {}", "userId"),
    ("access revoke {} 1001", "userId"),
    ("access revoke 2001 {}", "panelId"),
    ("alarms {} 2h", "panel"),
    ("bills {}", "subscriptionId"),
    ("user {}", "userId"),
    ("user delete {}", "userId"),
    ("panel {}", "resourceId"),
    ("privileges {}", "userId"),
    ("role {}", "roleId"),
    ("sensor rename {} Back door", "sensorId"),
    ("task update {}", "taskId"),
)


@pytest.mark.parametrize(
    ("command", "field", "bad"),
    # `/sam panel ²` and `/sam alarms ²` look for a panel by that name: ids there are ASCII digits
    [(c, f, b) for c, f in ID_COMMANDS for b in BAD_IDS if not (f in {"panel", "resourceId"} and b == "²")],
)
def test_every_id_argument_is_bounded_with_a_usage_answer(
    tmp_path: Path, command: str, field: str, bad: str
) -> None:
    ctx = local_context(tmp_path, {"admins": ["U_ADMIN"]})
    reply = route(ctx, text=command.format(bad), user_id="U_ADMIN")
    assert reply is not None
    assert reply.text.startswith(f"{field}: ") and "Usage:" in reply.text


def test_usage_answers_quote_what_was_typed_escaped(tmp_path: Path) -> None:
    ctx = local_context(tmp_path, {"admins": ["U_ADMIN"]})
    # A literally typed "<" reaches us as Slack's "&lt;", which the parser undoes.
    for text in ("customer &lt;!channel&gt;", "sensor rename &lt;!here&gt; x", "user &lt;!everyone&gt;@"):
        reply = route(ctx, text=text, user_id="U_ADMIN")
        assert reply is not None and "Usage:" in reply.text
        assert "<!" not in reply.text and "&lt;!" in reply.text


def test_service_names_are_escaped_in_fallback_texts() -> None:
    user = User.model_validate({"userId": 5, "firstName": HOSTILE, "screenName": "<!here>"})
    text = user_blocks(user).text
    revoke_text = revoke_confirmation(5, HOSTILE, 1001, "<!everyone>", None).text
    delete_text = delete_confirmation(5, HOSTILE, None).text
    failed = WriteOutcome(True, False, "The service answered 400: <!channel> (ref r)", "r")
    done = outcome_text(f"{HOSTILE} deleted", WriteOutcome(True, True, "Done.", "r"))
    for shown in (text, revoke_text, delete_text, outcome_text(HOSTILE, failed), done):
        assert "<!" not in shown and "<@" not in shown and "<http" not in shown
        assert "&lt;!channel&gt;" in shown
