"""Every read command of `/sam`, over signed HTTP to the running bot, against its own simulator.

The simulator is this module's own (it injects alarms and faults); the expected values come from the
service itself through SamClient and from the simulator's /_sim test controls.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core.cache.db import open_cache
from core.client import SamClient
from core.settings import Settings
from core.sync import run_sync
from tests.support.bot import BotProcess, CommandResult, run_bot
from tests.support.processes import Simulator, run_simulator
from tests.support.slack_standin import SlackStandIn

SECRET_WORDS = ("securityCode", "ncCode", "pinCode", "mqPassword", "password")


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", seed=7) as sim:
        yield sim


@pytest.fixture(scope="module")
def client(sim: Simulator) -> Iterator[SamClient]:
    with SamClient(Settings(base_url=sim.base_url)) as client:
        client.login()
        yield client


def fill_cache(db_path: Path, client: SamClient) -> None:
    """One real sync (core.sync) into the bot's cache, as `samops sync` does."""
    db = open_cache(db_path)
    try:
        report = run_sync(db, client)
        assert report.ok, report.errors
    finally:
        db.close()


@pytest.fixture(scope="module")
def injected(sim: Simulator, client: SamClient) -> list[dict]:
    """Two fresh alarms on the first panel, injected before the cache is filled."""
    panel = (client.session.resources or [])[0]
    body = {"resourceId": panel.resource_id, "count": 2, "violationType": "alarm"}
    return httpx.post(f"{sim.root_url}/_sim/activities", json=body).json()


@pytest.fixture(scope="module")
def bot(
    tmp_path_factory: pytest.TempPathFactory, sim: Simulator, client: SamClient, injected: list
) -> Iterator[BotProcess]:
    tmp = tmp_path_factory.mktemp("reads")
    db_path = tmp / "cache.db"
    fill_cache(db_path, client)
    with (
        SlackStandIn() as slack,
        run_bot(
            tmp, slack, simulator=sim, db_path=db_path, env={"SAM_TIMEOUT": "3"}, config=TECHNICIAN
        ) as bot,
    ):
        yield bot


TECHNICIAN = '[roles]\ntechnicians = ["U_TECH"]\n'


def no_secrets(result: CommandResult) -> None:
    raw = str(result.responses)
    for word in SECRET_WORDS:
        assert word not in raw
    assert "Traceback" not in raw


def usage(result: CommandResult, line: str) -> None:
    assert result.ephemeral
    assert f"Usage: `{line}`" in result.text
    no_secrets(result)


# --- /sam user -----------------------------------------------------------------------------------------


def test_user_by_email_shows_the_whole_record(bot: BotProcess, client: SamClient) -> None:
    me = client.session
    user = client.get_user_by_email(me.email_address)
    result = bot.send_command(f"user {me.email_address}")
    text = result.text
    assert f"{user.first_name} {user.last_name}" in text
    assert f"*Screen name*\n{user.screen_name}" in text
    assert "(verified)" in text if user.email_address_verified else "(not verified)" in text
    assert "active" in text
    for org in user.organizations or []:
        assert f"{org.name} ({org.id})" in text
    for role in user.roles or []:
        assert str(role.role_id) in text
    assert f"*Authorized panels* ({len(user.resources or [])})" in text
    for panel in (user.resources or [])[:3]:
        assert f"`{panel.resource_id}`" in text
    assert len(result.blocks) <= 50
    assert result.answer["text"].startswith(f"{user.first_name}")
    no_secrets(result)
    assert client.session.token.get_secret_value() not in str(result.responses)


def test_user_by_id_and_by_slack_mailto(bot: BotProcess, client: SamClient) -> None:
    me = client.session
    by_id = bot.send_command(f"user {me.user_id}")
    assert me.screen_name in by_id.text
    assert "look the user up by e-mail" in by_id.text  # operation 12 carries no panels
    mailto = bot.send_command(f"user <mailto:{me.email_address}|{me.email_address}>")
    assert "*Authorized panels*" in mailto.text


def test_user_bad_input_and_unknown(bot: BotProcess) -> None:
    usage(bot.send_command("user"), "/sam user <email | userId>")
    usage(bot.send_command("user a b"), "/sam user <email | userId>")
    assert "userId: expected a number" in bot.send_command("user bob").text
    assert "not an e-mail address" in bot.send_command("user @@").text
    missing = bot.send_command("user nobody-at-all@example.invalid")
    assert "Not found" in missing.text
    assert "Not found" in bot.send_command("user 424242").text


# --- /sam panel ----------------------------------------------------------------------------------------


def test_panel_by_id_is_live_and_highlights_alarms(
    bot: BotProcess, client: SamClient, injected: list
) -> None:
    panel = (client.session.resources or [])[0]
    rid = panel.resource_id
    sensors = client.list_panel_sensors(rid, org=panel.org_id)
    controllers = client.list_panel_controllers(rid, org=panel.org_id)
    result = bot.send_command(f"panel {rid}")
    text = result.text
    assert panel.resource_name in text
    assert f"*Model*\n{panel.model_name}" in text
    assert f"*Brand*\n{panel.brand_name}" in text
    assert "*Enabled*\n" + ("yes" if panel.enabled else "no") in text
    for sensor in sensors.sensors or []:
        assert f"`{sensor.id}`" in text
    assert f"_{sensors.type}_" in text
    assert "partitions:" in text
    assert f"*Controllers* ({len(controllers)})" in text
    for controller in controllers:
        assert f"`{controller.id}`" in text
    assert re.search(r"\*Last 10 activities\* — \d+ alarms", text)
    assert text.count(":rotating_light:") >= 2  # the two injected alarms are among the last 10
    assert "Live from the service at" in text
    assert len(result.blocks) <= 50
    assert all(
        len(b.get("text", {}).get("text", "")) <= 3000 for b in result.blocks if b["type"] == "section"
    )
    no_secrets(result)


def test_panel_by_name_uses_the_cache_and_the_panels_org(bot: BotProcess, client: SamClient) -> None:
    panels = client.session.resources or []
    names = [p.resource_name for p in panels]
    unique = [p for p in panels if names.count(p.resource_name) == 1 and p.org_id != panels[0].org_id]
    other_org = unique[0]
    result = bot.send_command(f'panel "{other_org.resource_name.upper()}"')
    assert f"*Panel id*\n`{other_org.resource_id}`" in result.text
    assert f"*Organization*\n{other_org.org_id}" in result.text
    # the same name in two organizations: the answer asks, and `org:` decides
    twins = [p for p in panels if names.count(p.resource_name) > 1]
    if twins:
        name = twins[0].resource_name
        asked = bot.send_command(f'panel "{name}"')
        assert f"panels match `{name}`" in asked.text
        chosen = bot.send_command(f'panel "{name}" org:{twins[0].org_id}')
        assert f"*Panel id*\n`{twins[0].resource_id}`" in chosen.text


def test_panel_ambiguous_unknown_and_bad(bot: BotProcess, client: SamClient) -> None:
    word = "Branch"
    matching = [p for p in client.session.resources or [] if word.lower() in (p.resource_name or "").lower()]
    assert len(matching) > 1
    several = bot.send_command(f"panel {word}")
    assert f"{len(matching)} panels match `{word}`" in several.text
    assert "Not found: no panel named like `zzz-nothing`" in bot.send_command("panel zzz-nothing").text
    assert "Not found: panel `98765`" in bot.send_command("panel 98765").text
    usage(bot.send_command("panel"), "/sam panel <resourceId | name>")


# --- /sam alarms ---------------------------------------------------------------------------------------


def test_alarms_from_the_cache(bot: BotProcess, client: SamClient, injected: list) -> None:
    panel = (client.session.resources or [])[0]
    recent = bot.send_command(f"alarms {panel.resource_id} 2h")
    assert f"on {panel.resource_name} (`{panel.resource_id}`) since" in recent.text
    assert recent.text.count(":rotating_light:") == 2
    assert "synced" in recent.text and "min ago" in recent.text
    everything = bot.send_command("alarms 8d")
    assert "Alarms since" in everything.text
    assert everything.text.count("·") >= 2
    by_name = bot.send_command(f'alarms "{panel.resource_name}" 30m org:{panel.org_id}')
    assert by_name.text.count(":rotating_light:") == 2
    assert bot.send_command("alarms 2026-01-01").responses


def test_alarms_bad_input(bot: BotProcess) -> None:
    usage(bot.send_command("alarms 2026-13-45"), "/sam alarms [panel] [since]")
    assert "Not found" in bot.send_command("alarms nowhere-at-all 2h").text
    usage(bot.send_command("alarms 2999-01-01"), "/sam alarms [panel] [since]")


# --- /sam cameras --------------------------------------------------------------------------------------


def test_cameras_problems_first_and_filtered(bot: BotProcess, client: SamClient, sim: Simulator) -> None:
    cameras = client.list_cameras()
    result = bot.send_command("cameras")
    text = result.text
    assert f"{len(cameras)} cameras" in text
    lines = [line for line in text.splitlines() if line.startswith("*") and "(`" in line]
    assert len(lines) == len(cameras)
    flags = [":warning:" in line for line in lines]
    assert flags == sorted(flags, reverse=True)  # problems first
    assert any(flags)
    problems = bot.send_command("cameras problems")
    assert problems.text.count(":warning:") == sum(flags)
    assert ":white_check_mark:" not in problems.text
    one = cameras[0]
    assert f"`{one.resource_id}`" in bot.send_command(f"cameras {one.resource_name}").text
    no_secrets(result)


# --- /sam privileges and /sam role ---------------------------------------------------------------------


def test_privileges_in_words(bot: BotProcess, client: SamClient) -> None:
    uid = client.session.user_id
    priv = client.get_user_privilege_groups(uid)
    text = bot.send_command(f"privileges {uid}").text
    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    for window in priv.user_privilege_validity.accessible_days or []:
        assert f"{days[window.day_of_week - 1]} 08:00–18:00" in text
    granted = sum(1 for g in priv.user_privilege_groups or [] if g.authority)
    assert f"{granted} of {len(priv.user_privilege_groups or [])}" in text
    usage(bot.send_command("privileges"), "/sam privileges <userId>")
    assert "Not found" in bot.send_command("privileges 1").text


def test_role_privilege_groups(bot: BotProcess, client: SamClient) -> None:
    role = (client.session.roles or [])[0]
    groups = client.get_role_privilege_groups(role.role_id)
    text = bot.send_command(f"role {role.role_id}").text
    assert f"{len(groups)} privilege groups" in text
    usage(bot.send_command("role one"), "/sam role <roleId>")
    assert "Not found" in bot.send_command("role 1").text


# --- /sam customer and /sam bills ----------------------------------------------------------------------


def test_customer_names_stay_masked(bot: BotProcess, sim: Simulator, client: SamClient) -> None:
    org = client.resolve_org()
    customer = next(c for c in httpx.get(f"{sim.root_url}/_sim/customers").json() if c["orgId"] == org)
    phone = customer["contactMedium"][0]["characteristic"]["phoneNumber"]
    refused = bot.send_command(f"customer {phone}")  # personal data: technicians and admins only
    assert "needs the technician role" in refused.text and customer["id"] not in refused.text
    result = bot.send_command(f"customer {phone}", user="U_TECH")
    assert customer["name"] in result.text and "*" in customer["name"]
    assert customer["id"] in result.text
    assert "masked" in result.text
    for secret in ("clearName", "identityNumber"):
        if secret in customer:
            assert str(customer[secret]) not in result.text
    usage(bot.send_command("customer call-me", user="U_TECH"), "/sam customer <phone>")
    assert "0 customers" in bot.send_command("customer +1 000 000 0000", user="U_TECH").text


def test_bills_of_a_subscription(bot: BotProcess, client: SamClient) -> None:
    sub = next(
        p.resource_subscription_id for p in client.session.resources or [] if p.resource_subscription_id
    )
    org = next(p.org_id for p in client.session.resources or [] if p.resource_subscription_id == sub)
    bills = client.list_bills(sub, organization_id=org, org=org)
    assert bills
    result = bot.send_command(f"bills {sub} org:{org}")
    assert f"{len(bills)} bills of subscription {sub}" in result.text
    month = bills[0].bill_date.strftime("%Y-%m")
    assert f"for {month}" in bot.send_command(f"bills {sub} {month} org:{org}").text
    usage(bot.send_command(f"bills {sub} 2026-13"), "/sam bills <subscriptionId> [YYYY-MM]")
    usage(bot.send_command("bills"), "/sam bills <subscriptionId> [YYYY-MM]")
    assert "Not found" in bot.send_command("bills 999").text


# --- service failures ----------------------------------------------------------------------------------


def test_service_errors_and_timeouts_are_said_plainly(bot: BotProcess, sim: Simulator) -> None:
    faults = f"{sim.root_url}/_sim/faults"
    try:
        httpx.post(faults, json={"errorRate": 1.0})
        failed = bot.send_command("cameras")
        match = re.search(r"The service answered 5\d\d: .* \(reference `(R-[0-9A-F]{6})`\)", failed.text)
        assert match, failed.text
        assert match.group(1) in bot.output()
        httpx.post(faults, json={"errorRate": 0.0, "latencyMs": 4000})
        slow = bot.send_command("role 10011", timeout=20)
        assert "did not answer in time" in slow.text
        assert re.search(r"reference `R-[0-9A-F]{6}`", slow.text)
    finally:
        httpx.post(faults, json={"errorRate": 0.0, "latencyMs": 0, "throttleRate": 0.0})
    assert "Traceback" not in str(failed.responses) + str(slow.responses)
