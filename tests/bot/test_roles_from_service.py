"""Roles from the service: a Slack user's e-mail (`users.info`, served by the stand-in) looked up with
operation 13 on the spec-exact simulator, the service's role names mapped by `[roles.from_service]`; the
static lists win; without the `users:read.email` scope, or with no match, the static lists and the default
apply, with a warning logged once and nothing at ERROR. Through a running bot, with signed requests."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from slack_sdk import WebClient

from bot.roles_service import ServiceRoles
from core.client import SamClient
from core.models import User
from core.settings import Settings
from tests.support.bot import BotProcess, run_bot
from tests.support.processes import Simulator, run_simulator
from tests.support.slack_standin import SlackStandIn, manifest_bot_scopes

MAPPING = {"Administrator": "admin", "Operator": "technician", "Installer": "technician", "Viewer": "viewer"}
RANK = {"viewer": 0, "technician": 1, "admin": 2}
CONFIG = '[roles]\nadmins = ["U_BOSS"]\nviewers = ["U_LISTED"]\n\n[roles.from_service]\n' + "".join(
    f'"{name}" = "{role}"\n' for name, role in MAPPING.items()
)
TECHNICIAN_ONLY = "customer +905551112233"  # a command that needs the technician role


@dataclass(frozen=True)
class Person:
    user: User
    role: str  # what the mapping makes of the service user's roles


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", seed=5) as sim:
        yield sim


@pytest.fixture(scope="module")
def people(sim: Simulator) -> dict[str, Person]:
    """A service user mapped to technician or admin and one mapped to viewer, as operation 13 shows them."""
    with SamClient(Settings(base_url=sim.base_url)) as client:
        login = client.login()
        found: dict[str, Person] = {}
        for listed in client.list_organization_users(login.user_id or 0):
            if not listed.email_address:
                continue
            user = client.get_user_by_email(listed.email_address)
            names = [r.role_name for r in user.roles or [] if r.role_name in MAPPING]
            if not names:
                continue
            role = max((MAPPING[n] for n in names), key=RANK.__getitem__)
            found.setdefault("viewer" if role == "viewer" else "higher", Person(user, role))
        assert set(found) == {"viewer", "higher"}, "the simulator's users have roles of every kind"
        return found


def slack_users(people: dict[str, Person]) -> dict[str, str | None]:
    higher = people["higher"].user.email_address
    return {
        "U_MAPPED": higher,
        "U_LOW": people["viewer"].user.email_address,
        "U_LISTED": higher,  # the service would make them more; the static list says viewer
        "U_UNKNOWN": "nobody-here@example.com",
        "U_NOMAIL": None,
    }


@pytest.fixture(scope="module")
def bot(
    tmp_path_factory: pytest.TempPathFactory, sim: Simulator, people: dict[str, Person]
) -> Iterator[BotProcess]:
    tmp = tmp_path_factory.mktemp("roles-from-service")
    with (
        SlackStandIn(users=slack_users(people)) as slack,
        run_bot(tmp, slack, simulator=sim, config=CONFIG) as bot,
    ):
        yield bot


def test_a_slack_user_gets_the_role_the_service_maps_without_being_listed(
    bot: BotProcess, people: dict[str, Person]
) -> None:
    higher = people["higher"]
    answer = bot.send_command("whoami", user="U_MAPPED").text
    assert f"You are {'an' if higher.role == 'admin' else 'a'} {higher.role}:" in answer
    assert f"service user {higher.user.user_id}" in answer and "`[roles.from_service]` maps to" in answer
    assert "needs the technician role" not in bot.send_command(TECHNICIAN_ONLY, user="U_MAPPED").text
    low = bot.send_command("whoami", user="U_LOW").text
    assert "You are a viewer: the service knows" in low
    assert "needs the technician role" in bot.send_command(TECHNICIAN_ONLY, user="U_LOW").text


def test_the_static_lists_win(bot: BotProcess) -> None:
    assert "You are a viewer: listed in `[roles] viewers`" in bot.send_command("whoami", user="U_LISTED").text
    assert "needs the technician role" in bot.send_command(TECHNICIAN_ONLY, user="U_LISTED").text
    assert "You are an admin: listed in `[roles] admins`" in bot.send_command("whoami", user="U_BOSS").text


def test_no_match_falls_back_to_the_default_and_says_why(bot: BotProcess) -> None:
    unknown = bot.send_command("whoami", user="U_UNKNOWN").text
    assert "You are a viewer: the default role" in unknown
    assert "no service user has the e-mail nobody-here@example.com" in unknown
    no_mail = bot.send_command("whoami", user="U_NOMAIL").text
    assert "You are a viewer: the default role" in no_mail and "Slack gave no e-mail for you" in no_mail
    stranger = bot.send_command("whoami", user="U_NOT_IN_SLACK").text
    assert "Slack does not know this user" in stranger


def test_the_answer_is_cached(bot: BotProcess) -> None:
    before = len([c for c in bot.slack.calls_to("users.info") if c.params.get("user") == "U_MAPPED"])
    for _ in range(3):
        bot.send_command("whoami", user="U_MAPPED")
    after = len([c for c in bot.slack.calls_to("users.info") if c.params.get("user") == "U_MAPPED"])
    assert after == before <= 1


def test_without_the_email_scope_the_static_lists_apply_and_it_is_said_once(
    tmp_path: Path, sim: Simulator, people: dict[str, Person]
) -> None:
    scopes = manifest_bot_scopes() - {"users:read.email"}
    with (
        SlackStandIn(users=slack_users(people), scopes=scopes) as slack,
        run_bot(tmp_path, slack, simulator=sim, config=CONFIG) as bot,
    ):
        for user in ("U_MAPPED", "U_LOW", "U_MAPPED"):
            answer = bot.send_command("whoami", user=user).text
            assert "You are a viewer: the default role" in answer and "Slack gave no e-mail for you" in answer
        assert "needs the technician role" in bot.send_command(TECHNICIAN_ONLY, user="U_MAPPED").text
        assert "You are an admin: listed" in bot.send_command("whoami", user="U_BOSS").text
        log = bot.output()
        assert log.count("Slack profiles come without e-mail") == 1
        assert not [line for line in log.splitlines() if " ERROR " in line or "Traceback" in line]


def test_without_users_read_slack_refuses_and_the_service_is_not_asked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    scopes = manifest_bot_scopes() - {"users:read", "users:read.email"}
    asked: list[str] = []

    def no_service() -> SamClient:
        asked.append("service")
        raise AssertionError("the service must not be asked without an e-mail")

    with SlackStandIn(users={"U_ANA": "ana@example.com"}, scopes=scopes) as slack:
        roles = ServiceRoles(WebClient(token="xoxb-test", base_url=slack.api_url), no_service)
        with caplog.at_level(logging.INFO, logger="bot.roles_service"):
            first, again = roles.lookup("U_ANA"), roles.lookup("U_OTHER")
    assert first.roles == again.roles == () and "scope users:read" in first.why
    assert not asked
    warnings = [r for r in caplog.records if "missing_scope" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
