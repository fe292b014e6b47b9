"""Security of a real run: the sync, the notifier and the bot as processes against a simulator whose demo
password is long and unique, a camera added through the bot's form with unique codes, slash commands that
read users, panels, cameras and alarms, then every dashboard page over the resulting cache. No secret may
appear in any process's output, in anything the Slack stand-in received, in the cache file's bytes or on a
dashboard page; the cache and the data folder are owner-only; a forged form submission is refused.

Covered elsewhere, not repeated here:
- forged, unsigned, stale and tampered slash commands get 401: tests/test_bot_framework.py
  (`test_forged_missing_and_stale_signatures_are_refused`, `test_unsigned_post_gets_401_and_healthz_answers`);
- a real `samops bot` run creates the local signing secret 0600 in a 0700 folder, and `samops slash` signs
  with it: tests/test_bot_framework.py
  (`test_local_run_makes_a_private_secret_and_samops_slash_gets_answers`);
- `samops dashboard --host 0.0.0.0` without authentication exits 2 with a message naming
  SAMOPS_DASHBOARD_PASSWORD: tests/dashboard/test_dashboard_cli.py
  (`test_refuses_a_public_address_without_authentication`);
- the dashboard's password gate: tests/dashboard/test_dashboard.py (`test_password_gate`).
"""

from __future__ import annotations

import json
import stat
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.bot.notify.test_notify_e2e import state, wait_until
from tests.dashboard.test_dashboard import APP, PAGES
from tests.support.bot import (
    BOT_TOKEN,
    SIGNING_SECRET,
    BotProcess,
    opened_view,
    requests_to,
    run_bot,
    slack_signature,
    state_of,
    submit,
)
from tests.support.chaos import Stack, leaks, processes_with, slack_text
from tests.support.processes import Simulator
from tests.support.slack_standin import SlackStandIn
from tests.support.spec_client import SpecClient

ADMIN = "U_SEC_ADMIN"
CHANNEL = "C_SEC_ALARMS"
CONFIG = f"""
[roles]
admins = ["{ADMIN}"]

[notify]
default_channel = "{CHANNEL}"

[notify.storm]
posts_per_second = 20
"""
SECRET_KEYS = {"token", "mqPassword", "pinCode", "securityCode", "ncCode", "password"}


def secret_values(data: Any) -> set[str]:
    """Every value of a secret field anywhere in a JSON document."""
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key in SECRET_KEYS and isinstance(value, str) and value:
                found.add(value)
            else:
                found |= secret_values(value)
    elif isinstance(data, list):
        for item in data:
            found |= secret_values(item)
    return found


def service_secrets(sim: Simulator, password: str) -> set[str]:
    """The password, and the token and mqPassword of a login of our own. (The PINs of operation 2 are four
    digits, too short to grep for; `leaks` catches them as clear values of a `pinCode` field.)"""
    with SpecClient(sim.base_url) as client:
        login = client.login(password=password)
    assert {"token", "mqPassword"} <= login.keys()
    return secret_values(login) | {password}


def add_camera_through_the_form(
    bot: BotProcess, slack: SlackStandIn, sim: Simulator, codes: dict[str, str]
) -> str:
    """`/sam camera add`, the form submitted; first a forged submission, which must change nothing."""
    serial = f"SN{uuid.uuid4().hex[:8].upper()}"
    opened = len(slack.calls_to("views.open"))
    bot.send_command("camera add", user=ADMIN, wait=False)
    view = opened_view(slack, "sam_camera_add", opened)
    values = {"name": f"Vault {serial}", "brand": "EZVIZ", "serial": serial, **codes}
    payload = {"type": "view_submission", "user": {"id": ADMIN}, "view": {**view, "state": state_of(values)}}
    body = urlencode({"payload": json.dumps(payload)}).encode()
    stamp = int(time.time())
    forged = bot.post_signed(
        body, timestamp=stamp, signature=slack_signature("not-the-secret", str(stamp), body)
    )
    assert forged.status_code == 401
    assert not [r for r in requests_to(sim, "POST", "/camera/add") if serial in r["body"]]

    assert submit(bot, view, values, ADMIN).status_code == 200
    name = json.loads(view["private_metadata"])["response_url"].rsplit("/", 1)[1]
    slack.wait_for(lambda: any("added" in r.params["text"] for r in slack.responses(name)), timeout=30)
    return serial


def dashboard_text(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every element of every dashboard page (AppTest, in this process) over the run's cache."""
    monkeypatch.setenv("SAMOPS_DB", str(db_path))
    monkeypatch.delenv("SAMOPS_DASHBOARD_PASSWORD", raising=False)
    st.cache_data.clear()
    out: list[str] = []

    def walk(node: Any) -> None:
        if (proto := getattr(node, "proto", None)) is not None:
            out.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    for page in PAGES:
        if page != PAGES[0]:
            at.switch_page(page).run()
        assert not at.exception, [e.message for e in at.exception]
        walk(at.main)
        walk(at.sidebar)
        out += [frame.value.to_csv() for frame in at.dataframe]
    st.cache_data.clear()
    return "\n".join(out)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_no_secret_leaks_from_a_real_run_and_the_cache_is_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    password = f"pw-{uuid.uuid4().hex}"
    codes = {"security_code": f"SEC{uuid.uuid4().hex[:10]}", "nc_code": f"NC{uuid.uuid4().hex[:10]}"}
    with SlackStandIn(channels={CHANNEL}) as slack, Stack(tmp_path) as stack:
        stack.config_path.write_text(CONFIG)
        sim = stack.simulator("--demo-password", password, "--alarm-rate", "0", "--panels", "6",
                              "--history-days", "1")  # fmt: skip
        secrets = service_secrets(sim, password)
        env = stack.env(slack, SAM_PASSWORD=password)
        assert stack.run("sync", "sync", env=env) == 0, stack.log_text()
        stack.start("notify", "notify", "--source", "service", "--interval", "1", env=env)
        bot_env = {"SAM_PASSWORD": password, "SAMOPS_DATA_DIR": str(stack.data_dir)}
        with run_bot(
            tmp_path, slack, simulator=sim, config=CONFIG, env=bot_env, db_path=stack.db_path
        ) as bot:
            wait_until(lambda: state(stack.data_dir, "baseline"), 90, "the notifier's start")
            rid = min(p["resourceId"] for p in httpx.get(f"{sim.root_url}/_sim/activities").json())
            injected = httpx.post(
                f"{sim.root_url}/_sim/activities",
                json={"resourceId": rid, "count": 2, "violationType": "alarm"},
            ).json()
            serial = add_camera_through_the_form(bot, slack, sim, codes)
            for text in ("user demo@example.com", "user 7001", f"panel {rid}", "cameras", "alarms 2h",
                         "privileges 7001", "access grant 7001"):  # fmt: skip
                bot.send_command(text, user=ADMIN, wait=not text.startswith("access"))

            # Two alarm cards, or (a tamper and another alarm: a site incident) one card and its thread.
            def in_slack() -> bool:
                posted = str([c.params for c in slack.calls_to("chat.postMessage")])
                return all(a["eventId"] in posted for a in injected)

            wait_until(in_slack, 60, "the alarms in Slack")
            assert stack.run("sync", "sync", env=env) == 0, stack.log_text()

            # The cache and its side files as the running processes keep them.
            assert mode(stack.data_dir) == 0o700
            for name in ("cache.db", "cache.db-wal", "cache.db-shm"):
                assert mode(stack.data_dir / name) == 0o600, name
            bot_log = bot.output()
        secrets |= {codes["security_code"], codes["nc_code"], BOT_TOKEN, SIGNING_SECRET, "xoxb-stack-test"}
        cache_bytes = b"".join((stack.data_dir / n).read_bytes() for n in ("cache.db", "cache.db-wal")
                               if (stack.data_dir / n).exists())  # fmt: skip
        assert serial.encode() in cache_bytes  # the camera did reach the cache, without its codes
        captured = {
            # The simulator's own output is left out: it stands in for the service, and announcing its demo
            # credentials is its job.
            "logs": stack.log_text(leave_out=("simulator",)) + bot_log,
            "slack": slack_text(slack),
            "cache": cache_bytes.decode("utf-8", errors="replace"),
            "dashboard": dashboard_text(stack.db_path, monkeypatch),
        }
    found = [leak for where, text in captured.items() for leak in leaks(where, text, secrets)]
    assert found == []
    assert all(len(text) > 1000 for text in captured.values()), {k: len(v) for k, v in captured.items()}
    assert processes_with(stack.data_dir) == []
