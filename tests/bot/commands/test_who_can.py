"""`/sam who-can` and the "Who can?" button, over signed HTTP to a running bot, against the spec-exact
simulator whose privilege windows the test sets through operation 4 (its own simulator: the windows it sets
must not leak into other tests). The organization's clock is Europe/Berlin (`[notify] timezone`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest

from bot.commands.who_can import USAGE
from core import read
from core.cache.db import open_cache
from core.client import SamClient
from core.clock import HOUR_MS
from core.settings import Settings
from simulator.data import PRIVILEGE_GROUPS
from tests.support.bot import BotProcess, run_bot, usage
from tests.support.narrow import known
from tests.support.processes import Simulator, run_simulator
from tests.support.slack_standin import SlackStandIn

BERLIN = ZoneInfo("Europe/Berlin")
CONFIG = '[roles]\ntechnicians = ["U_TECH"]\n\n[notify]\ntimezone = "Europe/Berlin"\n'
MON, TUE = 1, 2


def at(text: str) -> int:
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=BERLIN).timestamp() * 1000)


@dataclass(frozen=True)
class Setup:
    panel: int
    panel_name: str
    night: int  # Monday 22:00 to Tuesday 06:00, groups 1 and 3
    office: int  # Tuesday 08:00-18:00, every group
    expired: int  # expired yesterday
    others: tuple[int, ...]  # also authorized on the panel: given no group at all
    pins: tuple[str, ...]


@pytest.fixture(scope="module")
def own_sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", seed=11) as sim:
        yield sim


@pytest.fixture(scope="module")
def setup(own_sim: Simulator) -> Setup:
    with SamClient(Settings(base_url=own_sim.base_url)) as client:
        login = client.login()
        first = next(r for r in login.resources or [] if r.resource_id is not None)
        org = known(first.org_id)
        # The panel with the most authorized users (the simulator gives each 2 to 4).
        pair = max(
            client.get_organization_users(org=org), key=lambda p: len(p.resource_user_response_list or [])
        )
        panel = next(r for r in login.resources or [] if r.resource_id == pair.resource_id)
        panel_id = known(panel.resource_id)
        users = sorted({ru.user_id for ru in pair.resource_user_response_list or [] if ru.user_id})
        assert len(users) >= 2, "the simulator authorizes 2 to 4 users on each panel"
        pins = tuple(
            ru.pin_code.get_secret_value() for ru in pair.resource_user_response_list or [] if ru.pin_code
        )

        def grant(user: int, groups: set[int], period: list[dict], expiration: int | None = None) -> None:
            client.set_user_privileges(
                user_id=user,
                authorized_resource_ids=[panel_id],
                privilege_groups=[{"privilegeGroupId": g["id"], "authorized": g["id"] in groups}
                                  for g in PRIVILEGE_GROUPS],
                organization_id=org,
                period=period,
                expiration_time=expiration,
                validity_start=0,
                org=org,
            )  # fmt: skip

        night, office, *rest = users
        grant(night, {1, 3}, [{"dayOfWeek": MON, "start": 22 * HOUR_MS, "end": 6 * HOUR_MS}], 0)
        grant(office, {g["id"] for g in PRIVILEGE_GROUPS},
              [{"dayOfWeek": TUE, "start": 8 * HOUR_MS, "end": 18 * HOUR_MS}], 0)  # fmt: skip
        expired = rest[0] if rest else None
        if expired is not None:
            grant(expired, {1}, [], at("2026-11-20 00:00"))
        for other in rest[1:]:
            grant(other, set(), [], 0)
        return Setup(
            panel=panel_id,
            panel_name=panel.resource_name or "",
            night=night,
            office=office,
            expired=expired or -1,
            others=tuple(rest[1:]),
            pins=pins,
        )


@pytest.fixture(scope="module")
def berlin_bot(
    tmp_path_factory: pytest.TempPathFactory, own_sim: Simulator, setup: Setup
) -> Iterator[BotProcess]:
    tmp = tmp_path_factory.mktemp("who-can")
    with SlackStandIn() as slack, run_bot(tmp, slack, simulator=own_sim, config=CONFIG) as bot:
        yield bot


def listed(text: str, user: int) -> bool:
    return f"(`{user}`)" in text


def can_section(result_blocks: list[dict]) -> str:
    """The text of the section listing who can (the one after the summary), or ""."""
    sections = [b["text"]["text"] for b in result_blocks if b.get("type") == "section"]
    return sections[1] if len(sections) > 1 and not sections[1].startswith("*Authorized, but") else ""


def test_who_can_over_midnight_and_by_day_of_week(berlin_bot: BotProcess, setup: Setup) -> None:
    # Tuesday 02:00 in Berlin: the Monday-night window is still open; the Tuesday office hours are not.
    result = berlin_bot.send_command(f"who-can {setup.panel} 2026-11-24 02:00")
    can = can_section(result.blocks)
    assert listed(can, setup.night) and not listed(can, setup.office)
    assert "Arm and disarm, View cameras" in can and "until 06:00" in can
    assert "1 of" in result.text and "Tue 2026-11-24 02:00 (Europe/Berlin)" in result.text
    assert "outside their hours; next from 08:00" in result.text  # the office user, later that day
    if setup.expired > 0:
        assert f"(`{setup.expired}`) — expired" in result.text
    for other in setup.others:
        assert f"(`{other}`) — no privilege group granted" in result.text

    # Tuesday 09:00: only the office hours.
    result = berlin_bot.send_command(f"who-can {setup.panel} 2026-11-24 09:00")
    can = can_section(result.blocks)
    assert listed(can, setup.office) and not listed(can, setup.night)
    assert "until 18:00" in can
    # Monday 21:59 and 22:00: the night window opens at 22:00 (Monday is 2026-11-23).
    assert not listed(can_section(berlin_bot.send_command(f"who-can {setup.panel} 2026-11-23 21:59").blocks),
                      setup.night)  # fmt: skip
    late = can_section(berlin_bot.send_command(f"who-can {setup.panel} 2026-11-23 22:00").blocks)
    assert listed(late, setup.night) and "until Tue 06:00" in late
    # Wednesday 02:00: Tuesday has no night window.
    assert can_section(berlin_bot.send_command(f"who-can {setup.panel} 2026-11-25 02:00").blocks) == ""


def test_the_answer_is_in_the_cache_for_the_dashboard_and_holds_no_pin(
    berlin_bot: BotProcess, setup: Setup
) -> None:
    result = berlin_bot.send_command(f"who-can {setup.panel} now")
    assert "Live from the service" in result.text and "Europe/Berlin" in result.text
    raw = json.dumps(result.responses)
    for pin in setup.pins:
        assert f"{pin}" not in raw.replace(str(setup.panel), "")  # a pin is four digits; the id may hold them
    db = open_cache(berlin_bot.db_path)
    try:
        answer = read.who_can(db, setup.panel, at("2026-11-24 02:00"), BERLIN)
        assert [e.user.user_id for e in answer.can] == [setup.night]
        assert answer.fetched_at is not None
        stored = json.dumps(db.execute("SELECT * FROM panel_access").fetchall())
        assert "pin" not in stored.lower()
    finally:
        db.close()


def test_by_name_and_the_button(berlin_bot: BotProcess, setup: Setup) -> None:
    by_name = berlin_bot.send_command(f'who-can "{setup.panel_name}" 2026-11-24 09:00')
    assert listed(can_section(by_name.blocks), setup.office)
    response = berlin_bot.slack.response_url("who-can-button")
    berlin_bot.send_action(
        {
            "user": {"id": "U_VIEWER", "name": "viewer"},
            "channel": {"id": "C_ALARMS"},
            "container": {"type": "message", "message_ts": "1700000000.000100", "channel_id": "C_ALARMS"},
            "response_url": response,
            "trigger_id": "t-who-can",
            "actions": [
                {"action_id": "who_can", "block_id": "b", "value": str(setup.panel), "type": "button"}
            ],
        }
    )
    answers = berlin_bot.slack.wait_for(lambda: berlin_bot.responses_of(response))
    assert answers[0]["response_type"] == "ephemeral"
    assert "authorized users may operate" in answers[0]["text"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("who-can", "say which panel"),
        ("who-can {panel} 25:00", "`25:00` is not a time of day"),
        ("who-can {panel} 7:5", "`7:5` is not a time of day"),
        ("who-can {panel} 2026-02-30 10:00", "`2026-02-30` is not a date"),
        ("who-can {panel} 2026-11-24", "needs a time too"),
        ("who-can {panel} 1999-01-01 10:00", "outside the years"),
        ("who-can {panel} now extra", "`extra` after the time"),
        ("who-can {panel} 22:30 and more", "`and more` after the time"),
        ("who-can {panel} 2026-11-24 07:00 x", "`x` after the time"),
        ("who-can {panel} 2026-11-24T07:00 x", "`x` after the time"),  # ISO 8601's T read as a space
        ("who-can {panel} \u0661\u0662:\u0660\u0660", "is not a time of day"),  # Arabic-Indic digits
    ],
)
def test_bad_times_get_the_usage_line(berlin_bot: BotProcess, setup: Setup, text: str, says: str) -> None:
    result = berlin_bot.send_command(text.format(panel=setup.panel))
    usage(result, USAGE)
    assert says in result.text


def test_an_unknown_panel_is_not_found(berlin_bot: BotProcess) -> None:
    assert "Not found" in berlin_bot.send_command("who-can 999999999 now").text
    assert "no panel named like" in berlin_bot.send_command("who-can Nowhere-At-All 10:00").text


def test_the_button_with_a_bad_value(berlin_bot: BotProcess, tmp_path: Path) -> None:
    response = berlin_bot.slack.response_url("who-can-bad")
    berlin_bot.send_action(
        {
            "user": {"id": "U_VIEWER", "name": "viewer"},
            "response_url": response,
            "actions": [{"action_id": "who_can", "block_id": "b", "value": "1; DROP", "type": "button"}],
        }
    )
    answers = berlin_bot.slack.wait_for(lambda: berlin_bot.responses_of(response))
    assert answers[0]["text"] == "This button names no valid id."


def test_when_the_service_fails_the_last_authorizations_read_are_used(
    berlin_bot: BotProcess, own_sim: Simulator, setup: Setup
) -> None:
    berlin_bot.send_command(f"who-can {setup.panel} now")  # read once, into the cache
    httpx.post(f"{own_sim.root_url}/_sim/faults", json={"errorRate": 1.0}).raise_for_status()
    try:
        result = berlin_bot.send_command(f"who-can {setup.panel} 2026-11-24 02:00")
        never_read = berlin_bot.send_command("who-can 999999998 now")  # nothing cached: the failure is said
    finally:
        httpx.post(f"{own_sim.root_url}/_sim/faults", json={"errorRate": 0.0}).raise_for_status()
    assert "The service did not answer; these are the authorizations samops read at" in result.text
    assert listed(can_section(result.blocks), setup.night)
    assert "The service answered 5" in never_read.text and "(reference `R-" in never_read.text
