"""Roles from the service: a Slack user's e-mail (`users.info`, served by the stand-in) looked up with
operation 13 on the spec-exact simulator, the service's role names mapped by `[roles.from_service]`; the
static lists win; without the `users:read.email` scope, or with no match, the static lists and the default
apply, with a warning logged once and nothing at ERROR. Through a running bot, with signed requests."""

from __future__ import annotations

import itertools
import json
import logging
import time
import unicodedata
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from slack_sdk import WebClient

from bot.roles_service import ServiceRoles, ascii_lower, plain_address, same_address
from core import lifecycle
from core.cache import audit, outbox
from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
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
    bot.send_command("whoami", user="U_MAPPED")  # known now, whichever test of the module ran before
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


# -- issue 26: lookalike e-mails, organizations, pace -----------------------------------------------------

KELVIN = "\u212a"  # KELVIN SIGN: str.lower() makes it "k"


CARD_TS = {"EV-1001-1": "1700000001.000100", "EV-1002-1": "1700000002.000100"}


def _alarm_in(db_path: Path, event_id: str, resource_id: int, org_id: int) -> None:
    db = open_cache(db_path)
    now = int(time.time() * 1000)
    with write_transaction(db):
        panel = {"resource_id": resource_id, "org_id": org_id, "name": f"P{resource_id}"}
        upsert_dicts(db, "panels", [panel], "resource_id")
        upsert_activities(db, "activities", [(event_id, resource_id, org_id, now, "Burglary alarm - Door",
                                              "violation", "Burglary alarm", "alarm", 2, 1, 1)])  # fmt: skip
        db.execute(  # posted by the notifier: the card a click must name
            "INSERT INTO notify_outbox (event_id, channel, state, ts, posted_at, attempts)"
            " VALUES (?, 'C_ALARMS', 'posted', ?, ?, 0)",
            [event_id, CARD_TS[event_id], now],
        )
        lifecycle.open_alarms(db, [(event_id, now)], now)
    db.close()


def _click(bot: BotProcess, user: str, action_id: str, value: str, tag: str) -> str:
    _send_click(bot, user, action_id, value, tag)
    return bot.slack.wait_for(lambda: bot.slack.responses(tag), timeout=30)[0].params["text"]


def _send_click(bot: BotProcess, user: str, action_id: str, value: str, tag: str) -> None:
    payload = {
        "user": {"id": user}, "channel": {"id": "C_ALARMS"}, "trigger_id": f"trigger-{tag}",
        "container": {"type": "message", "message_ts": CARD_TS.get(value, "1700000000.000100"),
                      "channel_id": "C_ALARMS"},
        "response_url": bot.slack.response_url(tag),
        "actions": [{"action_id": action_id, "block_id": "b", "value": value, "type": "button",
                     "action_ts": f"{time.time():.6f}"}],
    }  # fmt: skip
    assert bot.send_action(payload).status_code == 200


def test_a_lookalike_email_gets_no_role_and_a_role_holds_only_in_its_organizations(
    tmp_path: Path, sim: Simulator
) -> None:
    """Issue 26: `bura\u212a...` (a Kelvin sign for the k) matched burak's e-mail at the service and was
    made a technician; burak, a technician of 1001 through the service, acknowledged an alarm of 1002."""
    with SamClient(Settings(base_url=sim.base_url)) as client:
        burak = client.get_user_by_email("burak.arslan106@example.com")
    assert burak.organization_ids == [1001] and "Installer" in [r.role_name for r in burak.roles or []]
    email = str(burak.email_address)
    lookalike = email.replace("k", KELVIN, 1)
    fullwidth = "".join(chr(ord(c) + 0xFEE0) if c.isalpha() else c for c in email)
    users = {"U_BURAK": email, "U_KELVIN": lookalike, "U_WIDE": fullwidth}
    db_path = tmp_path / "cache.db"
    _alarm_in(db_path, "EV-1001-1", 777, 1001)
    _alarm_in(db_path, "EV-1002-1", 888, 1002)
    with (
        SlackStandIn(users=users) as slack,
        run_bot(tmp_path, slack, simulator=sim, config=CONFIG, db_path=db_path) as bot,
    ):
        assert "You are a technician" in bot.send_command("whoami", user="U_BURAK").text
        for user in ("U_KELVIN", "U_WIDE"):
            answer = bot.send_command("whoami", user=user).text
            assert "You are a viewer: the default role" in answer and "could stand for others" in answer
            assert "needs the technician role" in bot.send_command(TECHNICIAN_ONLY, user=user).text
        asked = [e["path"] for e in requests_to_prefix(sim, "/user/email/")]
        assert not [p for p in asked if "%E2%84%AA" in p.upper() or "%EF%BC" in p.upper()]  # never asked

        refused = _click(bot, "U_BURAK", "alarm_ack", "EV-1002-1", "ack-1002")
        assert "technician role in organization 1002" in refused
        silence = json.dumps({"r": 888, "m": 30})
        assert "in organization 1002" in _click(bot, "U_BURAK", "alarm_silence_30", silence, "silence-1002")
        before = len(bot.slack.calls_to("chat.update"))
        payload_user = "U_BURAK"  # in 1001, where the service gives the role: the card is edited
        _send_click(bot, payload_user, "alarm_ack", "EV-1001-1", "ack-1001")
        bot.slack.wait_for(lambda: len(bot.slack.calls_to("chat.update")) > before, timeout=30)
    db = open_cache(db_path)
    acked = lifecycle.get(db, "EV-1001-1")
    assert acked is not None and acked.acknowledged_by == "U_BURAK"
    untouched = lifecycle.get(db, "EV-1002-1")
    assert untouched is None or untouched.acknowledged_by is None
    assert outbox.silence_until(db, 888) is None
    denied = [e for e in audit.recent(db) if e.outcome == "denied" and e.slack_user == "U_BURAK"]
    assert {e.org_id for e in denied} == {1002} and len(denied) == 2


def requests_to_prefix(sim: Simulator, prefix: str) -> list[dict]:
    entries = httpx.get(f"{sim.root_url}/_sim/requests", timeout=5).json()
    return [e for e in entries if e["method"] == "GET" and e["path"].startswith(f"/api{prefix}")]


def test_role_lookups_keep_to_the_services_budget(tmp_path: Path, sim: Simulator) -> None:
    """Issue 26: 1,000 Home opens made 500 operation-13 calls in seconds; the service allows 1 a second."""
    users = {f"U_PACE{i}": f"pace{i}@example.com" for i in range(6)}
    with (
        SlackStandIn(users=users) as slack,
        run_bot(tmp_path, slack, simulator=sim, config=CONFIG) as bot,
    ):
        since = time.time() * 1000
        with ThreadPoolExecutor(6) as pool:
            answers = list(pool.map(lambda u: bot.send_command("whoami", user=u).text, users))
    assert all("You are a viewer" in a for a in answers)
    times = sorted(e["at"] for e in requests_to_prefix(sim, "/user/email/pace") if e["at"] >= since)
    assert len(times) >= 2
    # One a second, never a burst: lookups start a second apart, and operation 13 follows users.info, whose
    # latency varies a little (hence the margins).
    assert all(b - a >= 500 for a, b in itertools.pairwise(times)), times
    assert times[-1] - times[0] >= (len(times) - 1) * 1000 - 300, times


@given(st.emails())
def test_an_address_matches_itself_in_any_ascii_case_and_nothing_else(email: str) -> None:
    upper = email.upper() if email.isascii() else email
    assert same_address(upper, email)
    assert plain_address(email) == (unicodedata.normalize("NFKC", email).casefold() == ascii_lower(email))
    if "k" in email.lower() and email.isascii():
        lookalike = email.lower().replace("k", KELVIN)
        assert not same_address(lookalike, email) and not plain_address(lookalike)
    wide = "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalpha() else c for c in email)
    if wide != email:
        assert not plain_address(wide) and not same_address(wide, email)


# -- a write that names no organization -------------------------------------------------------------------

STORM_1002_TS = "1700000003.000100"


def _storm_in_1002(db_path: Path) -> None:
    """A storm card of panel 888 (organization 1002) over EV-S2, as the notifier records it; panel 777 of
    1001 too, so samops serves both organizations."""
    db = open_cache(db_path)
    now = int(time.time() * 1000)
    with write_transaction(db):
        panels = [{"resource_id": 777, "org_id": 1001, "name": "P777"},
                  {"resource_id": 888, "org_id": 1002, "name": "P888"}]  # fmt: skip
        upsert_dicts(db, "panels", panels, "resource_id")
        upsert_activities(db, "activities", [("EV-S2", 888, 1002, now, "Burglary alarm - Door", "violation",
                                               "Burglary alarm", "alarm", 2, 1, 1)])  # fmt: skip
        db.execute("INSERT INTO notify_outbox (event_id, channel, state, ts, posted_at, attempts)"
                   " VALUES ('EV-S2', 'C_ALARMS', 'grouped', ?, ?, 0)", [STORM_1002_TS, now])  # fmt: skip
        db.execute("INSERT INTO notify_cards (ts, channel, resource_id, opened_at, updated_at, details_rowid)"
                   " VALUES (?, 'C_ALARMS', 888, ?, ?, 0)", [STORM_1002_TS, now, now])  # fmt: skip
    lifecycle.open_alarms(db, [("EV-S2", now)], now)
    db.close()


def test_a_write_naming_no_organization_needs_the_service_role_in_every_organization(
    tmp_path: Path, sim: Simulator
) -> None:
    """Issue 26's open gap: burak, a technician of 1001 only through the service, acknowledged every alarm of
    a storm card of organization 1002 (the card-wide write named no organization), and a `/sam sensor
    rename` without `org:` was checked nowhere. Now the storm card's write is checked in its panel's
    organization, and a write naming none needs the role in every organization samops serves."""
    with SamClient(Settings(base_url=sim.base_url)) as client:
        burak = client.get_user_by_email("burak.arslan106@example.com")
        sensors = client.list_panel_sensors(100101, org=1001).sensors or []  # the first panel of 1001
    sensor_id = next(s.id for s in sensors if s.id is not None)
    assert burak.organization_ids == [1001]
    db_path = tmp_path / "cache.db"
    _storm_in_1002(db_path)
    with (
        SlackStandIn(users={"U_BURAK": str(burak.email_address)}) as slack,
        run_bot(tmp_path, slack, simulator=sim, config=CONFIG, db_path=db_path) as bot,
    ):
        payload = {
            "user": {"id": "U_BURAK"}, "channel": {"id": "C_ALARMS"}, "trigger_id": "trigger-all",
            "container": {"type": "message", "message_ts": STORM_1002_TS, "channel_id": "C_ALARMS"},
            "response_url": slack.response_url("all"),
            "actions": [{"action_id": "alarm_ack_all", "block_id": "b", "value": "888", "type": "button",
                         "action_ts": f"{time.time():.6f}"}],
        }  # fmt: skip
        assert bot.send_action(payload).status_code == 200
        refused = slack.wait_for(lambda: slack.responses("all"), timeout=30)[0].params["text"]
        assert "technician role in organization 1002" in refused

        rename = f"sensor rename {sensor_id} Not yours"
        nameless = bot.send_command(rename, user="U_BURAK").text
        assert "names none" in nameless and "add `org:`" in nameless
        named = bot.send_command(f"{rename} org:1001", user="U_BURAK").text
        assert "renamed" in named
        output = bot.output()
    assert "Traceback" not in output and " ERROR " not in output
    db = open_cache(db_path)
    state = lifecycle.get(db, "EV-S2")
    assert state is not None and state.acknowledged_by is None
    denied = [(e.command, e.org_id) for e in audit.recent(db) if e.outcome == "denied"]
    assert sorted(denied, key=str) == sorted(
        [("alarm acknowledge all 1700000003.000100", 1002), (f"sensor rename {sensor_id}", None)],
        key=str,
    )
    puts = [e for e in httpx.get(f"{sim.root_url}/_sim/requests", timeout=5).json() if e["method"] != "GET"]
    assert len([e for e in puts if str(sensor_id) in e["path"]]) == 1  # the named one only
