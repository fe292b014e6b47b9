"""The team's records apart and one service per cache (issue 22, item 1), with real processes on real files:
`samops cache reset` keeps every acknowledgement, silence, window and audit row; pointing `.env` at another
service (another simulator, other credentials) shows only that service's data and says so; and deleting
`cache.db*` while `samops up` runs loses no record, and a card's Acknowledge still works."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

import httpx
import pytest

from core import lifecycle
from core.cache import add_window, record_audit, silence_panel
from core.cache.db import open_cache
from core.cache.service import Service
from core.lifecycle import Change
from core.settings import Settings
from tests.support.bot import slack_signature
from tests.support.cache_files import connect
from tests.support.processes import (
    ctrl_c,
    folder_env,
    free_port,
    run_simulator,
    samops_cmd,
)
from tests.support.slack_standin import TEAM_ID, SlackStandIn

T = TypeVar("T")
START_TIMEOUT_S = 180.0


def clean_env(**extra: str) -> dict[str, str]:
    return folder_env(COLUMNS="200", **extra)


def run_samops(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A samops command as the user types it in that folder: what it knows comes from `.env`."""
    return subprocess.run(
        samops_cmd(*args), cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=180
    )


def rows(db: Path, sql: str, *params: object) -> list[tuple[Any, ...]]:
    if not db.exists():
        return []
    with contextlib.closing(connect(db, read_only=True)) as conn:
        return conn.execute(sql, params).fetchall()


RECORDS_SQL = {
    "acknowledgements": "SELECT event_id, state, acknowledged_by FROM alarm_state ORDER BY event_id",
    "changes": "SELECT event_id, change, by_user FROM alarm_changes ORDER BY id",
    "windows": "SELECT id, kind, resource_id, ends_at, created_by FROM quiet_windows ORDER BY id",
    "audit": "SELECT id, slack_user, command, outcome, reference FROM audit_log ORDER BY id",
    "outbox": "SELECT event_id, state, ts FROM notify_outbox ORDER BY event_id",
}


def team_records(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    return {name: rows(db, sql) for name, sql in RECORDS_SQL.items()}


def write_env(folder: Path, url: str, account: str, password: str) -> None:
    (folder / ".env").write_text(f"SAM_BASE_URL={url}\nSAM_SCREEN_NAME={account}\nSAM_PASSWORD={password}\n")


def test_cache_reset_empties_the_cache_and_keeps_every_record(tmp_path: Path) -> None:
    with run_simulator("--alarm-rate", "0", seed=3) as sim:
        write_env(tmp_path, sim.base_url, "demo", "demo")
        db = tmp_path / ".samops" / "cache.db"
        synced = run_samops(tmp_path, "sync", "--once")
        assert synced.returncode == 0, synced.stderr
        [(panel, event, at)] = rows(db, "SELECT resource_id, event_id, activity_time FROM activities LIMIT 1")
        # The team's records, written by the product's own functions into the data folder.
        writer = open_cache(db, service=Service.of(Settings(base_url=sim.base_url)))
        now = int(time.time() * 1000)
        lifecycle.apply(writer, event, Change.ACKNOWLEDGED, "U_TECH", now, opened_at=at)
        silence_panel(writer, panel, now + 3_600_000, "U_TECH", now)
        add_window(writer, kind="maintenance", starts_at=now, ends_at=now + 7_200_000, created_at=now,
                   resource_id=panel, created_by="U_LEAD", reason="door repair")  # fmt: skip
        record_audit(writer, slack_user="U_TECH", command=f"ack {event}", outcome="done", summary="ok",
                     reference="R-ABC123")  # fmt: skip
        writer.close()
        before = team_records(db)
        assert all(before[name] for name in ("acknowledgements", "changes", "windows", "audit"))

        reset = run_samops(tmp_path, "cache", "reset")

        assert reset.returncode == 0, reset.stderr
        assert "emptied" in reset.stdout and "records.db" in reset.stdout
        assert rows(db, "SELECT count(*) FROM activities") == [(0,)]
        assert rows(db, "SELECT count(*) FROM panels") == [(0,)]
        assert team_records(db) == before
        # The next sync refills it, and the records still join it.
        assert run_samops(tmp_path, "sync", "--once").returncode == 0
        joined = "SELECT count(*) FROM activities a JOIN alarm_state s USING (event_id) WHERE s.state = ?"
        assert rows(db, joined, "acknowledged") == [(1,)]
        assert team_records(db) == before


def test_cache_reset_usage_and_a_missing_cache(tmp_path: Path) -> None:
    usage = run_samops(tmp_path, "cache")
    assert usage.returncode == 2 and "reset" in usage.stderr
    missing = run_samops(tmp_path, "cache", "reset")
    assert missing.returncode == 1 and "no cache at" in missing.stderr and "samops sync" in missing.stderr
    assert "Traceback" not in usage.stderr + missing.stderr


def test_another_service_in_dotenv_shows_only_its_data_and_says_so(tmp_path: Path) -> None:
    db = tmp_path / ".samops" / "cache.db"
    with run_simulator("--alarm-rate", "0", "--panels", "6", seed=3) as first:
        write_env(tmp_path, first.base_url, "demo", "demo")
        assert run_samops(tmp_path, "sync", "--once").returncode == 0
        first_panels = set(rows(db, "SELECT resource_id, name FROM panels"))
        first_events = set(rows(db, "SELECT event_id, activity_time, description FROM activities"))
        assert first_panels and first_events
    other = (
        "--alarm-rate",
        "0",
        "--panels",
        "9",
        "--demo-screen-name",
        "field-ops",
        "--demo-password",
        "s3cret-9",
    )
    with run_simulator(*other, seed=11) as second:
        write_env(tmp_path, second.base_url, "field-ops", "s3cret-9")

        synced = run_samops(tmp_path, "sync", "--once")

        assert synced.returncode == 0, synced.stderr
        [line] = [x for x in synced.stderr.splitlines() if "now configured" in x]
        assert "the embedded simulator as demo" in line and f"{second.base_url} as field-ops" in line
        assert "nothing deleted" in line and "s3cret-9" not in synced.stderr
        # Exactly what a fresh folder synced from the second service holds: nothing of the first is left.
        fresh = tmp_path / "only-second"
        fresh.mkdir()
        write_env(fresh, second.base_url, "field-ops", "s3cret-9")
        assert run_samops(fresh, "sync", "--once").returncode == 0
        only_second = set(rows(fresh / ".samops" / "cache.db", "SELECT resource_id, name FROM panels"))
        second_panels = set(rows(db, "SELECT resource_id, name FROM panels"))
        assert second_panels == only_second and second_panels != first_panels
        activities = "SELECT event_id, activity_time, description FROM activities"
        assert set(rows(db, activities)) == set(rows(fresh / ".samops" / "cache.db", activities))
        assert set(rows(db, activities)) != first_events
        status = run_samops(tmp_path, "status")
        assert status.returncode == 0, status.stderr
        assert f"Service: {second.base_url} as field-ops" in status.stdout
        assert "service switched" in status.stdout and "the embedded simulator as demo" in status.stdout
    [aside] = (tmp_path / ".samops" / "previous").iterdir()
    assert set(rows(aside / "cache.db", "SELECT resource_id, name FROM panels")) == first_panels


# --- a cache deleted while samops up runs ------------------------------------------------------------------

SIGNING_SECRET = "records-signing-secret-7a1c"
ALARMS = "C_REC_ALARMS"
CONFIG = f"""
[roles]
admins = ["U_REC_ADMIN"]

[notify]
default_channel = "{ALARMS}"
interval = 1
summary_hours = 24
"""


def wait_until(predicate: Callable[[], T], what: str, proc: subprocess.Popen[bytes], log: Path) -> T:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"samops up exited while waiting for {what}:\n{log.read_text()[-3000:]}"
        # The cache may be gone, or new and not yet migrated, for a moment: ask again.
        with contextlib.suppress(httpx.HTTPError, sqlite3.Error, IndexError):
            if result := predicate():
                return result
        time.sleep(0.25)
    raise TimeoutError(f"{what} did not happen within {START_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


def click(slack: SlackStandIn, action_id: str, value: str, ts: str, name: str) -> bytes:
    payload = {
        "type": "block_actions",
        "team": {"id": TEAM_ID},
        "user": {"id": "U_REC_ADMIN", "name": "admin"},
        "channel": {"id": ALARMS},
        "container": {"type": "message", "message_ts": ts, "channel_id": ALARMS},
        "message": {"ts": ts, "text": "alarm"},
        "response_url": slack.response_url(name),
        "trigger_id": slack.trigger_id(),
        "actions": [{"action_id": action_id, "block_id": "b", "value": value, "type": "button",
                     "action_ts": f"{time.time():.6f}"}],
    }  # fmt: skip
    return urlencode({"payload": json.dumps(payload)}).encode()


def post_signed(bot: str, body: bytes) -> None:
    stamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": slack_signature(SIGNING_SECRET, stamp, body),
    }
    assert httpx.post(f"{bot}/slack/events", content=body, headers=headers, timeout=30).status_code == 200


@pytest.mark.slow
def test_deleting_the_cache_while_up_runs_loses_no_record_and_acknowledge_works(tmp_path: Path) -> None:
    sim_port, bot_port = free_port(), free_port()
    data = tmp_path / "data"
    db = data / "cache.db"
    (tmp_path / "samops.toml").write_text(CONFIG)
    log = tmp_path / "up.log"
    with SlackStandIn(channels={ALARMS}) as slack:
        env = clean_env(
            SAMOPS_DATA_DIR=str(data),
            SAMOPS_CONFIG=str(tmp_path / "samops.toml"),
            SLACK_BOT_TOKEN="xoxb-records",
            SLACK_SIGNING_SECRET=SIGNING_SECRET,
            SLACK_API_URL=slack.api_url,
        )
        cmd = samops_cmd(
            "up", "--no-dashboard", "--sim-port", str(sim_port), "--bot-port", str(bot_port),
            "--sync-every", "2", "--notify-interval", "1", "--simulator-option=--alarm-rate=0",
        )  # fmt: skip
        with log.open("wb") as out:
            proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT)
            try:
                check_deletion(
                    proc, log, slack, f"http://127.0.0.1:{sim_port}", f"http://127.0.0.1:{bot_port}", db
                )
            finally:
                ctrl_c(proc)
    text = log.read_text()
    assert "deleted or replaced under samops" in text, text[-3000:]
    assert "Traceback" not in text


def check_deletion(
    proc: subprocess.Popen[bytes], log: Path, slack: SlackStandIn, sim: str, bot: str, db: Path
) -> None:
    wait_until(lambda: httpx.get(f"{bot}/healthz", timeout=2).is_success, "the bot", proc, log)
    wait_until(
        lambda: rows(db, "SELECT count(*) FROM notify_state")[0][0], "the notifier's baseline", proc, log
    )
    history = httpx.get(f"{sim}/_sim/activities", params={"since": 0}).json()
    panel, other_panel = sorted({a["resourceId"] for a in history if a["orgId"] == 1001})[:2]

    def new_card(panel: int) -> tuple[str, str]:
        [alarm] = httpx.post(
            f"{sim}/_sim/activities", json={"resourceId": panel, "count": 1, "violationType": "alarm"}
        ).json()
        event = alarm["eventId"]
        posted = "SELECT ts FROM notify_outbox WHERE event_id = ? AND state = 'posted'"
        [(ts,)] = wait_until(lambda: rows(db, posted, event), f"the card of {event}", proc, log)
        return event, ts

    def acknowledged(event: str) -> bool:
        return rows(db, "SELECT state FROM alarm_state WHERE event_id = ?", event) == [("acknowledged",)]

    first, first_ts = new_card(panel)
    post_signed(bot, click(slack, "alarm_ack", first, first_ts, "ack-1"))
    wait_until(lambda: acknowledged(first), "the first acknowledgement", proc, log)
    silence = json.dumps({"r": panel, "m": 30})
    post_signed(bot, click(slack, "alarm_silence_30", silence, first_ts, "silence"))
    wait_until(
        lambda: rows(db, "SELECT 1 FROM quiet_windows WHERE kind = 'silence'"), "the silence", proc, log
    )
    writer = open_cache(db)  # a maintenance window of the organization, as /sam maintenance records it
    now = int(time.time() * 1000)
    add_window(writer, kind="maintenance", starts_at=now + 3_600_000, ends_at=now + 7_200_000, created_at=now,
               org_id=1001, created_by="U_REC_ADMIN", reason="tomorrow")  # fmt: skip
    writer.close()
    before = team_records(db)
    assert before["acknowledgements"] and before["windows"] and before["audit"]

    for file in db.parent.glob("cache.db*"):
        file.unlink()

    # Every process notices within a poll: the cache is back, refilled, and nothing of the team's is gone.
    wait_until(lambda: rows(db, "SELECT count(*) FROM panels")[0][0], "the refilled panels", proc, log)
    wait_until(
        lambda: rows(db, "SELECT 1 FROM activities WHERE event_id = ?", first), "the refill", proc, log
    )
    after = team_records(db)
    for name in ("acknowledgements", "changes", "windows", "audit", "outbox"):
        assert set(before[name]) <= set(after[name]), name
    # The card of before still answers: Acknowledge on it is "already", not "not in samops' cache".
    post_signed(bot, click(slack, "alarm_ack", first, first_ts, "ack-again"))
    [again] = wait_until(lambda: slack.responses("ack-again"), "the answer to the second click", proc, log)
    assert "not in samops' cache" not in str(again.params) and "Already acknowledged" in str(again.params)
    # A new alarm (of a panel not silenced) gets its card, and its Acknowledge works.
    second, second_ts = new_card(other_panel)
    post_signed(bot, click(slack, "alarm_ack", second, second_ts, "ack-2"))
    wait_until(lambda: acknowledged(second), "the acknowledgement after the deletion", proc, log)
    assert set(before["audit"]) < set(team_records(db)["audit"])


def test_deleting_the_records_while_the_sync_runs_stops_it_with_one_line(tmp_path: Path) -> None:
    with run_simulator("--alarm-rate", "0", "--panels", "4", seed=3) as sim:
        write_env(tmp_path, sim.base_url, "demo", "demo")
        db = tmp_path / ".samops" / "cache.db"
        proc = subprocess.Popen(
            samops_cmd("sync", "--every", "0.5"),
            cwd=tmp_path,
            env=clean_env(),
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while True:  # the first sync has filled the cache
                assert proc.poll() is None and time.monotonic() < deadline
                with contextlib.suppress(sqlite3.Error):
                    if rows(db, "SELECT 1 FROM panels"):
                        break
                time.sleep(0.2)
            for file in db.parent.glob("records.db*"):
                file.unlink()
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 1
    [line] = [x for x in err.splitlines() if "records.db" in x]
    assert "was deleted or replaced while samops ran" in line and "restore it from a backup" in line
    assert "Traceback" not in err
