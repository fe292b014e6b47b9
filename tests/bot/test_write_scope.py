"""Every write changes only what the person named (issue 33).

One property test per write operation (4, 5, 6, 9, 10, 11): `samops bot` as a process, signed Slack requests
through the bot's real write path (`bot/writes.run_write` and the client), a simulator of its own behind it.
Each example names one field; everything the simulator holds for the record (`GET /_sim/held/<kind>/<id>`,
a read-only test control) is compared before and after, and only the named field may differ.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bot.cli.form_fill import fill
from core.cache import audit
from core.cache.db import open_cache
from tests.support.bot import BotProcess, bot_fixtures, opened_view
from tests.support.processes import Simulator
from tests.support.slack_standin import SlackStandIn
from tests.support.spec_client import SpecClient

ADMIN, TECH = "UADMIN1", "UTECH1"
CONFIG = f"""
[roles]
admins = ["{ADMIN}"]
technicians = ["{TECH}"]
"""
ORG = 1001
PANELS = (100101, 100102)  # the small fleet's two panels of ORG
TASKS = (100101, 100102, 100103)
HOUR = 3_600_000
# Few examples: each is a round trip through the bot and the simulator, and the suite must stay quick.
FEW = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DELETES = settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])

sim, bot = bot_fixtures(CONFIG, seed=11)


@pytest.fixture(scope="module")
def service(sim: Simulator) -> Iterator[SpecClient]:
    with SpecClient(sim.base_url, org=ORG) as client:
        client.login()
        yield client


@pytest.fixture(scope="module")
def members(service: SpecClient) -> list[int]:
    """ORG's users other than the demo user samops acts as (it cannot delete itself)."""
    users = service.ok("GET", "/user/7001/organization-users")
    return sorted(u["userId"] for u in users if u["userId"] != 7001)


def held(sim: Simulator, kind: str, key: int) -> Any:
    """What the simulator holds for the record, or None when it holds none."""
    answer = httpx.get(f"{sim.root_url}/_sim/held/{kind}/{key}", timeout=10)
    if answer.status_code == 404:
        return None
    answer.raise_for_status()
    return answer.json()["record"]


def future(days: int) -> str:
    """A date `days` ahead: ahead in every zone when `days` >= 2."""
    return (date.today() + timedelta(days=days)).isoformat()


def audited(bot: BotProcess, command: str) -> int:
    return len(
        [r for r in audit.recent(open_cache(bot.db_path), limit=500, command=command) if r.command == command]
    )


def submit_form(bot: BotProcess, view: dict[str, Any], named: dict[str, str], user: str) -> None:
    """Submit `view` as Slack would: the named fields as typed, every other field as the form showed it."""
    state = {"values": fill(view, named)}
    answer = bot.send_view_submission({"user": {"id": user}, "view": {**view, "state": state}})
    assert answer.status_code == 200 and not answer.text, answer.text  # no field errors


def confirm(bot: BotProcess, slack: SlackStandIn, blocks: list[dict[str, Any]]) -> str:
    """Click the danger button of a confirmation as the admin; the text of the answer."""
    button = next(
        e for b in blocks if b["type"] == "actions" for e in b["elements"] if e.get("style") == "danger"
    )
    name = f"c{uuid.uuid4().hex[:10]}"
    bot.send_action(
        {
            "user": {"id": ADMIN},
            "actions": [{"action_id": button["action_id"], "value": button["value"], "type": "button"}],
            "container": {"type": "message", "message_ts": f"1700000000.{uuid.uuid4().int % 10**6:06d}"},
            "channel": {"id": bot.channel},
            "response_url": slack.response_url(name),
        }
    )
    return slack.wait_for(lambda: slack.responses(name))[0].params["text"]


# -- operation 5: task update --------------------------------------------------------------------------------

WORDS = st.lists(st.sampled_from(["email", "sms", "push", "admins", "technicians"]), max_size=3, unique=True)
# one-line key → (strategy of its typed value, where the field is in the task the simulator holds)
TASK_FIELDS: dict[str, tuple[Any, tuple[str, ...], Any]] = {
    "name": (
        st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,11}( [A-Za-z0-9]{1,8})?", fullmatch=True),
        ("taskName",),
        str,
    ),
    "type": (st.integers(1, 99), ("taskType",), int),
    "dates": (
        st.lists(st.integers(2, 400), min_size=1, max_size=3, unique=True).map(
            lambda ds: [future(d) for d in ds]
        ),
        ("taskDates",),
        list,
    ),
    "channels": (WORDS, ("notificationOptions", "channels"), list),
    "audience": (WORDS, ("notificationOptions", "audience"), list),
    "selection": (st.sampled_from(["resources", "groups", "all"]), ("selection",), str),
    "resources": (st.lists(st.sampled_from(PANELS), max_size=2, unique=True), ("resources",), list),
}


def typed(value: Any) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, list) else str(value)


def with_value(record: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(record)
    holder = out
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = value
    return out


@FEW
@given(task=st.sampled_from(TASKS), key=st.sampled_from([*TASK_FIELDS, "users"]), data=st.data())
def test_a_task_update_changes_only_the_named_field(
    bot: BotProcess, sim: Simulator, members: list[int], task: int, key: str, data: st.DataObject
) -> None:
    if key == "users":
        value: Any = data.draw(st.lists(st.sampled_from([7001, *members]), max_size=3, unique=True))
        path: tuple[str, ...] = ("users",)
    else:
        strategy, path, _ = TASK_FIELDS[key]
        value = data.draw(strategy)
    before = held(sim, "task", task)
    shown = f'"{value}"' if key == "name" else typed(value)
    result = bot.send_command(f"task update {task} {key}={shown}", user=TECH)
    assert f"Task {task} updated" in result.text, result.text
    assert held(sim, "task", task) == with_value(before, path, value)


def test_a_task_date_in_the_past_is_refused_and_nothing_is_sent(bot: BotProcess, sim: Simulator) -> None:
    before = held(sim, "task", 100101)
    yesterday = (date.today() - timedelta(days=2)).isoformat()
    result = bot.send_command(f"task update 100101 dates={future(3)},{yesterday}", user=TECH)
    assert f"dates: {yesterday} is in the past" in result.text and "today is" in result.text
    assert held(sim, "task", 100101) == before


def test_the_answer_names_what_was_sent_and_what_the_service_keeps(bot: BotProcess, sim: Simulator) -> None:
    """A task samops never wrote: only the date is sent, and the answer says the rest stays (issue 33: the
    README's example wiped channels, audience, panels and users)."""
    before = held(sim, "task", 100201)
    result = bot.send_command(f"task update 100201 org:1002 dates={future(5)}", user=TECH)
    assert "Task 100201 updated" in result.text
    text = json.dumps(result.blocks)
    assert "not sent, so the service keeps them as they are" in text and "channels, audience" in text
    assert held(sim, "task", 100201) == {**before, "taskDates": [future(5)]}


# -- operation 9: sensor description -------------------------------------------------------------------------


@FEW
@given(
    sensor=st.sampled_from([10010101, 10010102, 10010103, 10010201, 10010202]),
    text=st.from_regex(r"[A-Za-z][A-Za-z0-9 ]{0,30}[A-Za-z0-9]", fullmatch=True),
)
def test_a_sensor_rename_changes_only_the_description(
    bot: BotProcess, sim: Simulator, sensor: int, text: str
) -> None:
    before = held(sim, "sensor", sensor)
    result = bot.send_command(f"sensor rename {sensor} {text}", user=TECH)
    assert f"Sensor {sensor} renamed" in result.text, result.text
    assert held(sim, "sensor", sensor) == {**before, "description": " ".join(text.split())}


# -- operation 4: access grant -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def grantees(service: SpecClient, sim: Simulator, members: list[int]) -> list[int]:
    """Two users authorized on a panel already, set through the service (not samops): the form cannot show
    which panels a user has (operation 15 does not say), so a person keeps them by choosing them again."""
    users = members[:2]
    # The second has a window of its own on each day: the form, with one window for all, must not even them.
    periods = [
        None,
        [
            {"dayOfWeek": 1, "start": 8 * HOUR, "end": 18 * HOUR},
            {"dayOfWeek": 3, "start": 9 * HOUR, "end": 17 * HOUR},
        ],
    ]
    for user, period in zip(users, periods, strict=True):
        record = held(sim, "privileges", user)
        groups = [
            {"privilegeGroupId": g["privilegeGroupId"], "authorized": g["authority"]}
            for g in record["userPrivilegeGroups"]
        ]
        body = {
            "userId": user,
            "authorizedResourceIds": [PANELS[0]],
            "privilegeGroups": groups,
            "organizationId": ORG,
            **({"period": period} if period else {}),
        }
        service.ok("POST", "/user/privilege-groups-and-resources/add-or-update", body)
    return users


@FEW
@given(
    key=st.sampled_from(["groups", "panels", "expiry", "validity_start", "days"]),
    index=st.integers(0, 1),
    data=st.data(),
)
def test_an_access_grant_changes_only_the_named_field(
    bot: BotProcess,
    sim: Simulator,
    slack: SlackStandIn,
    grantees: list[int],
    key: str,
    index: int,
    data: st.DataObject,
) -> None:
    user = grantees[index]
    before = held(sim, "privileges", user)
    opened = len(slack.calls_to("views.open"))
    bot.send_command(f"access grant {user}", user=TECH, wait=False)
    view = opened_view(slack, "sam_access_grant", opened, user=user)
    expected = copy.deepcopy(before)
    named: dict[str, str] = {"panels": typed(before["authorizedResourceIds"])}  # as the service holds them
    if key == "groups":
        flip = data.draw(st.integers(1, 6))
        on = {g["privilegeGroupId"] for g in before["userPrivilegeGroups"] if g["authority"]} ^ {flip}
        named["groups"] = typed(sorted(on))
        for group in expected["userPrivilegeGroups"]:
            group["authority"] = group["privilegeGroupId"] in on
    elif key == "panels":
        panels = data.draw(st.lists(st.sampled_from(PANELS), min_size=1, unique=True))
        named["panels"] = typed(panels)
        expected["authorizedResourceIds"] = panels
    elif key == "days":
        days = data.draw(st.lists(st.integers(1, 7), min_size=1, unique=True).map(sorted))
        named["days"] = typed(days)
        windows = {(w["start"], w["end"]) for w in before["userPrivilegeValidity"]["accessibleDays"]}
        start, end = windows.pop()
        if windows:  # a window per day: the form shows none, so the person gives one
            named |= {"window_start": "07:00", "window_end": "19:30"}
            start, end = 7 * HOUR, 19 * HOUR + 30 * 60_000
        expected["userPrivilegeValidity"]["accessibleDays"] = [
            {"dayOfWeek": d, "start": start, "end": end} for d in days
        ]
    else:
        named[key] = future(data.draw(st.integers(2, 300)))
    command = f"access grant {user}"
    done = audited(bot, command)
    submit_form(bot, view, named, TECH)
    slack.wait_for(lambda: audited(bot, command) > done)
    after = held(sim, "privileges", user)
    if key in {"expiry", "validity_start"}:  # a day's start or end on the organization's clock
        field = "expiration" if key == "expiry" else "validityStart"
        assert after["userPrivilegeValidity"][field] > 0
        expected["userPrivilegeValidity"][field] = after["userPrivilegeValidity"][field]
    assert after == expected


# -- operation 6: camera add ---------------------------------------------------------------------------------


@FEW
@given(optional=st.sampled_from([None, "nc_code", "subscription"]), data=st.data())
def test_a_camera_add_sends_only_what_was_filled_and_changes_no_other_camera(
    bot: BotProcess,
    sim: Simulator,
    slack: SlackStandIn,
    service: SpecClient,
    optional: str | None,
    data: st.DataObject,
) -> None:
    cameras = [c["resourceId"] for c in service.ok("GET", "/camera/list")]
    before = {c: held(sim, "camera", c) for c in cameras}
    serial = f"SN{uuid.uuid4().hex[:10].upper()}"
    named = {"name": f"Cam {serial[-4:]}", "brand": "EZVIZ", "serial": serial, "security_code": "ABCDEF"}
    if optional == "nc_code":
        named["nc_code"] = data.draw(st.from_regex(r"[A-Z0-9]{4,8}", fullmatch=True))
    elif optional == "subscription":
        named["subscription"] = str(data.draw(st.sampled_from([10011, 10012])))
    opened = len(slack.calls_to("views.open"))
    bot.send_command("camera add", user=TECH, wait=False)
    view = opened_view(slack, "sam_camera_add", opened)
    submit_form(bot, view, named, TECH)
    added = slack.wait_for(
        lambda: [c for c in service.ok("GET", "/camera/list") if c["resourceId"] not in before]
    )
    assert {c: held(sim, "camera", c) for c in cameras} == before
    [camera] = added
    record = held(sim, "camera", camera["resourceId"])
    assert (record["name"], record["brand"], record["deviceSerial"]) == (named["name"], "EZVIZ", serial)
    sent = [r for r in httpx.get(f"{sim.root_url}/_sim/requests").json() if r["path"] == "/api/camera/add"][
        -1
    ]
    keys = {"name", "brand", "deviceSerial", "securityCode", "organizationId"}
    keys |= {"nc_code": {"ncCode"}, "subscription": {"subscriptionId"}}.get(optional or "", set())
    assert set(json.loads(sent["body"])) == keys  # nothing empty or defaulted for a field left empty


# -- operation 10: access revoke -----------------------------------------------------------------------------


@DELETES
@given(panel=st.sampled_from(PANELS), pick=st.integers(0, 10))
def test_a_revoke_removes_only_that_user_from_that_panel(
    bot: BotProcess, sim: Simulator, slack: SlackStandIn, members: list[int], panel: int, pick: int
) -> None:
    before = {p: held(sim, "panel-users", p) for p in PANELS}
    candidates = sorted({u["userId"] for u in before[panel] if u["userId"] in members})
    assume(candidates)
    user = candidates[pick % len(candidates)]
    users_before = {u: held(sim, "user", u) for u in members}
    result = bot.send_command(f"access revoke {user} {panel}", user=ADMIN)
    assert "no longer has access" in confirm(bot, slack, result.blocks)
    expected = {**before, panel: [u for u in before[panel] if u["userId"] != user]}
    assert {p: held(sim, "panel-users", p) for p in PANELS} == expected
    assert {u: held(sim, "user", u) for u in members} == users_before


# -- operation 11: user delete -------------------------------------------------------------------------------


@DELETES
@given(pick=st.integers(0, 10))
def test_a_user_delete_removes_only_that_user(
    bot: BotProcess, sim: Simulator, slack: SlackStandIn, members: list[int], pick: int
) -> None:
    alive = [u for u in members[2:] if held(sim, "user", u) is not None]  # the grantees stay
    assume(alive)
    user = alive[pick % len(alive)]
    users_before = {u: held(sim, "user", u) for u in [7001, *members]}
    panels_before = {p: held(sim, "panel-users", p) for p in PANELS}
    result = bot.send_command(f"user delete {user}", user=ADMIN)
    assert "deleted" in confirm(bot, slack, result.blocks)
    assert {u: held(sim, "user", u) for u in [7001, *members]} == {**users_before, user: None}
    assert {p: held(sim, "panel-users", p) for p in PANELS} == {
        p: [u for u in pus if u["userId"] != user] for p, pus in panels_before.items()
    }
