"""The bot's write commands end to end: `samops bot` as a process, signed Slack requests, the Slack stand-in
recording what the bot sends, and a simulator of our own (these tests change its data) behind it.

Roles come from the config: UADMIN1 is an admin, UTECH1 a technician, everyone else a viewer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.cache import audit
from core.cache.db import open_cache
from tests.support.bot import BotProcess, blocks_text, bot_fixtures, opened_view, requests_to, run_bot, submit
from tests.support.processes import Simulator
from tests.support.slack_standin import SlackStandIn
from tests.support.spec_client import SpecClient

ADMIN, TECH, VIEWER = "UADMIN1", "UTECH1", "UVIEWER1"
CONFIG = f"""
[roles]
admins = ["{ADMIN}"]
technicians = ["{TECH}"]

[audit]
channel = "C_AUDIT"
"""
ORG = 1001  # the demo user's first organization: the client's default
# Task dates ahead of today in every zone: a date in the past is refused.
SOON, LATER = ((date.today() + timedelta(days=d)).isoformat() for d in (30, 31))


sim, bot = bot_fixtures(CONFIG, seed=5)


@pytest.fixture(scope="module")
def service(sim: Simulator) -> Iterator[SpecClient]:
    with SpecClient(sim.base_url, org=ORG) as client:
        client.login()
        yield client


# -- helpers -------------------------------------------------------------------------------------------------


def audit_rows(bot: BotProcess, command: str) -> list[audit.AuditEntry]:
    """The audit rows of exactly `command`, newest first."""
    rows = audit.recent(open_cache(bot.db_path), limit=500, command=command)
    return [r for r in rows if r.command == command]


def response_errors(response: httpx.Response) -> dict[str, str]:
    assert response.status_code == 200
    if not response.text:
        return {}
    body = response.json()
    assert body.get("response_action") == "errors"
    return body["errors"]


def click(bot: BotProcess, blocks: list[dict[str, Any]], user: str, name: str, ts: str) -> httpx.Response:
    button = next(
        e for b in blocks if b["type"] == "actions" for e in b["elements"] if e.get("style") == "danger"
    )
    return bot.send_action(
        {
            "user": {"id": user},
            "actions": [{"action_id": button["action_id"], "value": button["value"], "type": "button"}],
            "container": {
                "type": "message",
                "message_ts": ts,
                "channel_id": bot.channel,
                "is_ephemeral": True,
            },
            "channel": {"id": bot.channel},
            "response_url": bot.slack.response_url(name),
            "trigger_id": f"t-{name}",
        }
    )


# -- sensor rename -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("user", [TECH, ADMIN])
def test_sensor_rename_by_technician_and_admin(
    bot: BotProcess, slack: SlackStandIn, service: SpecClient, user: str
) -> None:
    sensor_id = 10010102 if user == TECH else 10010103
    text = f"Hall sensor renamed by {user}"
    result = bot.send_command(f'sensor rename {sensor_id} "{text}"', user=user)
    assert f"Sensor {sensor_id} renamed" in result.text and result.ephemeral
    sensors = service.ok("GET", "/panel/100101/sensor/list")["sensors"]
    assert next(s for s in sensors if s["id"] == sensor_id)["description"] == text
    [row] = audit_rows(bot, f"sensor rename {sensor_id}")
    assert (row.slack_user, row.outcome) == (user, "ok") and text in row.summary
    posted = slack.wait_for(
        lambda: [
            c for c in slack.calls_to("chat.postMessage") if f"sensor rename {sensor_id}" in c.params["text"]
        ]
    )
    assert posted[0].params["channel"] == "C_AUDIT"


def test_sensor_rename_denied_to_viewer_and_audited(bot: BotProcess, service: SpecClient) -> None:
    result = bot.send_command("sensor rename 10010104 Hacked", user=VIEWER)
    assert "needs the technician role" in result.text
    sensors = service.ok("GET", "/panel/100101/sensor/list")["sensors"]
    assert next(s for s in sensors if s["id"] == 10010104)["description"] != "Hacked"
    [row] = audit.recent(open_cache(bot.db_path), command="sensor rename 10010104")
    assert (row.slack_user, row.outcome, row.command) == (VIEWER, "denied", "sensor rename 10010104 Hacked")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sensor rename", "give the sensor id and the new description"),
        ("sensor rename abc New name", "sensorId: expected a number"),
        ("sensor rename 99999999 New name", "Not found"),
    ],
)
def test_sensor_rename_bad_input(bot: BotProcess, text: str, expected: str) -> None:
    result = bot.send_command(text, user=TECH)
    assert expected in result.text
    assert "Traceback" not in result.text


def test_a_slack_retry_of_a_command_runs_the_write_once(bot: BotProcess, sim: Simulator) -> None:
    form = bot.command_form("sensor rename 10010105 Retried once", user=TECH)
    from urllib.parse import urlencode

    body = urlencode(form).encode()
    first = bot.post_signed(body)
    retry = bot.post_signed(body, headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    assert first.status_code == retry.status_code == 200
    name = form["response_url"].rsplit("/", 1)[1]
    bot.slack.wait_for(lambda: len(bot.slack.responses(name)) >= 2)
    texts = [r.params["text"] for r in bot.slack.responses(name)]
    assert any("renamed" in t for t in texts) and any("Already done" in t for t in texts)
    assert len(requests_to(sim, "PUT", "/panel/sensor/10010105/update-description")) == 1


# -- task update ---------------------------------------------------------------------------------------------


def test_task_one_line_form_updates_and_prefills_the_next_modal(
    bot: BotProcess, slack: SlackStandIn, sim: Simulator
) -> None:
    result = bot.send_command(
        f'task update 100102 name="Night patrol" dates={SOON},{LATER} type=2 channels=email,sms '
        "audience=admins selection=resources resources=100101,100102 users=7101,7102",
        user=TECH,
    )
    assert "Task 100102 updated" in result.text and "Night patrol" in result.text
    [sent] = requests_to(sim, "POST", "/enterprise/schedule/tasks/update")[-1:]
    body = json.loads(sent["body"])
    assert body["taskId"] == 100102 and body["taskDates"] == [SOON, LATER]
    assert body["notificationOptions"]["channels"] == ["email", "sms"] and body["users"] == [7101, 7102]
    [row] = audit_rows(bot, "task update 100102")
    assert row.outcome == "ok" and "name=Night patrol" in row.summary

    opened = len(slack.calls_to("views.open"))
    bot.send_command("task update 100102", user=ADMIN, wait=False)
    view = opened_view(slack, "sam_task_update", opened, task=100102)
    initial = {
        b["block_id"]: b["element"].get("initial_value") for b in view["blocks"] if b["type"] == "input"
    }
    assert initial["name"] == "Night patrol" and initial["resources"] == "100101,100102"
    assert "Prefilled with the last update" in blocks_text(view["blocks"])


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ("x1", "taskId: expected a number"),
        ("100103 dates=2026-13-40", "dates:"),
        ("100103 colour=red", "unknown field"),
        ('100103 name=""', "name: must not be empty"),
    ],
)
def test_task_one_line_form_answers_usage(bot: BotProcess, sim: Simulator, args: str, expected: str) -> None:
    before = len(requests_to(sim, "POST", "/enterprise/schedule/tasks/update"))
    result = bot.send_command(f"task update {args}", user=TECH)
    assert expected in result.text and "Usage: `/sam task update <taskId>" in result.text
    assert len(requests_to(sim, "POST", "/enterprise/schedule/tasks/update")) == before


def test_task_update_denied_to_viewer(bot: BotProcess, slack: SlackStandIn) -> None:
    opened = len(slack.calls_to("views.open"))
    result = bot.send_command("task update 100103", user=VIEWER)
    assert "needs the technician role" in result.text
    assert len(slack.calls_to("views.open")) == opened


def test_task_modal_shows_field_errors_then_runs_once_on_a_double_submit(
    bot: BotProcess, slack: SlackStandIn, sim: Simulator
) -> None:
    bot.send_command("task update 100103", user=TECH, wait=False)
    view = opened_view(slack, "sam_task_update", task=100103)
    assert "Nothing is known about this task yet" in blocks_text(view["blocks"])

    bad = {"name": "Weekly", "dates": "2026-02-30", "type": "x", "resources": "1,a"}
    errors = response_errors(submit(bot, view, bad, TECH))
    assert set(errors) == {"dates", "type", "resources"}
    before = len(requests_to(sim, "POST", "/enterprise/schedule/tasks/update"))

    good = {"name": "Weekly check", "dates": SOON, "channels": "email", "resources": "100101"}
    assert response_errors(submit(bot, view, good, TECH)) == {}
    assert response_errors(submit(bot, view, good, TECH)) == {}  # the double click
    response_url = json.loads(view["private_metadata"])["response_url"]
    name = response_url.rsplit("/", 1)[1]
    slack.wait_for(lambda: any("updated" in r.params["text"] for r in slack.responses(name)))
    slack.wait_for(lambda: len(audit_rows(bot, "task update 100103")) >= 1)
    assert len(requests_to(sim, "POST", "/enterprise/schedule/tasks/update")) == before + 1
    assert [r.outcome for r in audit_rows(bot, "task update 100103") if r.slack_user == TECH] == ["ok"]
    assert len(slack.responses(name)) == 1  # the second submit is silent


def test_task_modal_submission_forged_by_viewer_is_refused(
    bot: BotProcess, slack: SlackStandIn, sim: Simulator
) -> None:
    view = {
        "id": "VFORGED1",
        "type": "modal",
        "callback_id": "sam_task_update",
        "private_metadata": json.dumps({"task": 100201, "org": None}),
    }
    before = len(requests_to(sim, "POST", "/enterprise/schedule/tasks/update"))
    errors = response_errors(submit(bot, view, {"name": "Forged"}, VIEWER))
    assert "technician" in errors["name"]
    slack.wait_for(lambda: audit_rows(bot, "task update 100201"))
    assert [r.outcome for r in audit_rows(bot, "task update 100201")] == ["denied"]
    assert len(requests_to(sim, "POST", "/enterprise/schedule/tasks/update")) == before


# -- access grant --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("user", "target"), [(TECH, 7102), (ADMIN, 7103)])
def test_access_grant_modal_lists_every_group_and_sets_privileges(
    bot: BotProcess, slack: SlackStandIn, service: SpecClient, user: str, target: int
) -> None:
    bot.send_command(f"access grant {target}", user=user, wait=False)
    view = opened_view(slack, "sam_access_grant", user=target)
    groups = next(b for b in view["blocks"] if b.get("block_id") == "groups")
    assert [o["value"] for o in groups["element"]["options"]] == [str(i) for i in range(1, 7)]

    bad = {
        "groups": ["1"],
        "panels": ["100101"],
        "days": ["1"],
        "window_start": "18:00",
        "window_end": "08:00",
    }
    assert "window_end" in response_errors(submit(bot, view, bad, user))

    good = {
        "groups": ["1", "3"],
        "panels": ["100101", "100102"],
        "expiry": "2027-01-31",
        "days": ["1", "2"],
        "window_start": "07:30",
        "window_end": "19:00",
    }
    assert response_errors(submit(bot, view, good, user)) == {}

    def applied() -> dict[str, Any] | None:
        result = service.ok("GET", f"/role/user/{target}/privilege-groups")
        return result if result["userPrivilegeValidity"].get("expiration") else None

    result = slack.wait_for(applied)
    authority = {g["privilegeGroupId"]: g["authority"] for g in result["userPrivilegeGroups"]}
    assert authority == {1: True, 2: False, 3: True, 4: False, 5: False, 6: False}
    days = result["userPrivilegeValidity"]["accessibleDays"]
    assert days == [
        {"dayOfWeek": 1, "start": 27_000_000, "end": 68_400_000},
        {"dayOfWeek": 2, "start": 27_000_000, "end": 68_400_000},
    ]
    slack.wait_for(lambda: audit_rows(bot, f"access grant {target}"))
    [row] = audit_rows(bot, f"access grant {target}")
    assert row.outcome == "ok" and "groups authorized 1,3 of 6" in row.summary


def test_access_grant_denied_to_viewer(bot: BotProcess) -> None:
    assert "needs the technician role" in bot.send_command("access grant 7104", user=VIEWER).text


# -- destructive: revoke and user delete ---------------------------------------------------------------------


def person_name(service: SpecClient, user_id: int) -> str:
    user = next(u for u in service.ok("GET", f"/user/{user_id}/organization-users") if u["userId"] == user_id)
    return f"{user['firstName']} {user['lastName']}"


def panel_name(service: SpecClient, panel_id: int) -> str:
    return next(p["resourceName"] for p in service.login()["resources"] if p["resourceId"] == panel_id)


def test_revoke_needs_admin_and_a_danger_confirmation(
    bot: BotProcess, sim: Simulator, service: SpecClient
) -> None:
    assert "needs the admin role" in bot.send_command("access revoke 7101 100101", user=TECH).text
    assert "needs the admin role" in bot.send_command("access revoke 7101 100101", user=VIEWER).text
    result = bot.send_command("access revoke 7101 100101", user=ADMIN)
    button = next(e for b in result.blocks if b["type"] == "actions" for e in b["elements"] if "confirm" in e)
    assert button["style"] == "danger" and button["confirm"]["style"] == "danger"
    who, where = person_name(service, 7101), panel_name(service, 100101)
    assert (
        button["confirm"]["text"]["text"] == f"{who} (user 7101) will lose access to {where} (panel 100101)."
    )
    assert requests_to(sim, "DELETE", "/resource/user/delete") == []  # nothing runs before the click


def test_revoke_runs_once_on_a_double_click_by_an_admin(
    bot: BotProcess, slack: SlackStandIn, sim: Simulator, service: SpecClient
) -> None:
    def users_on(panel: int) -> set[int]:
        pairs = service.ok("GET", "/enterprise/bulk/get-organization-users")
        pair = next(p for p in pairs if p["resourceId"] == panel)
        return {u["userId"] for u in pair["resourceUserResponseList"]}

    panel = 100102
    target = sorted(users_on(panel))[0]
    result = bot.send_command(f"access revoke {target} {panel}", user=ADMIN)

    forged = click(bot, result.blocks, TECH, "forged1", ts="1700000000.000100")
    assert forged.status_code == 200
    slack.wait_for(lambda: slack.responses("forged1"))
    assert "needs the admin role" in slack.responses("forged1")[0].params["text"]
    assert target in users_on(panel)

    click(bot, result.blocks, ADMIN, "click1", ts="1700000000.000200")
    click(bot, result.blocks, ADMIN, "click2", ts="1700000000.000200")
    slack.wait_for(lambda: slack.responses("click1") or slack.responses("click2"))
    slack.wait_for(lambda: target not in users_on(panel))
    done = (slack.responses("click1") + slack.responses("click2"))[0].params
    assert done["replace_original"] is True and "no longer has access" in done["text"]
    rows = audit_rows(bot, f"access revoke {target} {panel}")
    assert sorted(r.outcome for r in rows) == ["denied", "ok"]
    assert len(requests_to(sim, "DELETE", "/resource/user/delete")) == 1


def test_user_delete_confirmed_by_admin(bot: BotProcess, slack: SlackStandIn, service: SpecClient) -> None:
    assert "needs the admin role" in bot.send_command("user delete 7106", user=TECH).text
    result = bot.send_command("user delete 7106", user=ADMIN)
    assert f"{person_name(service, 7106)} (user 7106) will be deleted" in result.text
    assert service.call("GET", "/user/7106/organization-users").status_code == 200
    click(bot, result.blocks, ADMIN, "del1", ts="1700000000.000300")
    slack.wait_for(lambda: slack.responses("del1"))
    assert "deleted" in slack.responses("del1")[0].params["text"]
    assert service.call("GET", "/user/7106/organization-users").status_code == 404
    assert "Not found" in bot.send_command("user delete 7106", user=ADMIN).text


def test_a_forged_button_value_is_refused(bot: BotProcess, slack: SlackStandIn) -> None:
    bot.send_action(
        {
            "user": {"id": ADMIN},
            "actions": [{"action_id": "sam_confirm_write", "value": '{"op":"drop_all"}', "type": "button"}],
            "container": {"type": "message", "message_ts": "1700000000.000900"},
            "response_url": slack.response_url("bogus1"),
        }
    )
    slack.wait_for(lambda: slack.responses("bogus1"))
    assert "not valid" in slack.responses("bogus1")[0].params["text"]


# -- camera add ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("user", "serial"), [(TECH, "SNTECH001"), (ADMIN, "SNADMIN01")])
def test_camera_add_sends_the_codes_to_the_service_only(
    bot: BotProcess, slack: SlackStandIn, sim: Simulator, service: SpecClient, user: str, serial: str
) -> None:
    code, nc_code = f"SECRET-{serial}-9Z", f"NCSECRET-{serial}"
    opened = len(slack.calls_to("views.open"))
    bot.send_command("camera add", user=user, wait=False)
    view = opened_view(slack, "sam_camera_add", opened)
    errors = response_errors(submit(bot, view, {"name": "", "brand": "EZVIZ", "serial": "bad serial!"}, user))
    assert {"name", "serial", "security_code"} <= set(errors)
    values = {
        "name": f"Lobby {serial}",
        "brand": "EZVIZ",
        "serial": serial,
        "security_code": code,
        "nc_code": nc_code,
    }
    view = {**view, "id": f"V-{serial}"}
    assert response_errors(submit(bot, view, values, user)) == {}
    name = json.loads(view["private_metadata"])["response_url"].rsplit("/", 1)[1]
    slack.wait_for(lambda: any("added" in r.params["text"] for r in slack.responses(name)))
    cameras = service.ok("GET", "/camera/list")
    assert any(c.get("resourceName") == f"Lobby {serial}" for c in cameras)
    [sent] = requests_to(sim, "POST", "/camera/add")[-1:]
    assert serial in sent["body"]

    [row] = audit_rows(bot, "camera add")[:1]
    assert row.outcome == "ok" and serial in row.summary
    everything = json.dumps([c.params for c in slack.calls]) + json.dumps(
        [r.__dict__ for r in audit.recent(open_cache(bot.db_path), limit=500)]
    )
    assert code not in everything and nc_code not in everything
    assert code not in bot.output() and nc_code not in bot.output()


def test_camera_add_denied_to_viewer(bot: BotProcess) -> None:
    assert "needs the technician role" in bot.send_command("camera add", user=VIEWER).text


def test_tmp_files_are_private(bot: BotProcess) -> None:
    assert Path(bot.db_path).stat().st_mode & 0o077 == 0


# -- failures of the service ---------------------------------------------------------------------------------


def test_unknown_task_says_not_found_and_remembers_nothing(bot: BotProcess, slack: SlackStandIn) -> None:
    result = bot.send_command("task update 999999 name=Ghost", user=TECH)
    assert "Task 999999 not updated" in result.text and "Not found" in result.text
    [row] = audit_rows(bot, "task update 999999")
    assert row.outcome == "failed" and row.reference in result.text
    opened = len(slack.calls_to("views.open"))
    bot.send_command("task update 999999", user=TECH, wait=False)
    view = opened_view(slack, "sam_task_update", opened, task=999999)
    assert "Nothing is known about this task yet" in blocks_text(view["blocks"])


def test_a_service_failure_is_answered_plainly_with_a_reference(
    bot: BotProcess, sim: Simulator, service: SpecClient
) -> None:
    httpx.post(f"{sim.root_url}/_sim/faults", json={"errorRate": 1.0}, timeout=5).raise_for_status()
    try:
        result = bot.send_command("sensor rename 10010106 During outage", user=TECH)
    finally:
        httpx.post(f"{sim.root_url}/_sim/faults", json={"errorRate": 0.0}, timeout=5).raise_for_status()
    assert "Sensor 10010106 not renamed" in result.text and "The service answered 5" in result.text
    assert "Traceback" not in result.text
    [row] = audit_rows(bot, "sensor rename 10010106")
    assert row.outcome == "failed" and f"ref {row.reference}" in result.text
    assert row.reference in bot.output()
    sensors = service.ok("GET", "/panel/100101/sensor/list")["sensors"]
    assert next(s for s in sensors if s["id"] == 10010106)["description"] != "During outage"


# -- a local run (no Slack token: `samops slash`) ------------------------------------------------------------


def test_without_slack_the_forms_answer_with_the_one_line_form(
    tmp_path: Path, sim: Simulator, slack: SlackStandIn
) -> None:
    with run_bot(tmp_path, slack, simulator=sim, config=CONFIG, token=None) as local:
        before = len(slack.calls_to("views.open"))
        result = local.send_command("task update 100201", user=TECH)
        assert "Nothing is known about task 100201 yet" in result.text and "one-line form" in result.text
        assert "updated" in local.send_command("task update 100201 name=Depot round org:1002", user=TECH).text
        result = local.send_command("task update 100201", user=TECH)
        assert "Depot round" in result.text and "last set by samops" in result.text
        assert "opens a form, which needs Slack" in local.send_command("camera add", user=TECH).text
        assert len(slack.calls_to("views.open")) == before
