"""samops against a hostile service (issue 12, item 6, last bullet): huge ints, wrong types, times out of any
sane range, HTML, empty, truncated, huge and dripping answers, and writes answered with something else
than an Operation result. `samops sync`, `samops call` and the bot run as real processes against a real
HTTP server on loopback (tests/support/hostile_service.py); hypothesis chooses the hostility, with fixed
seeds (derandomize) and few examples.

Each asserts: no traceback and no ERROR line anywhere, a meaningful exit code (1, never a crash), bounded
time (SAM_TIMEOUT=1, no retries), no secret in any output, and that what was valid still arrived.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from core.cli import status
from core.tiers import TIERED
from tests.support.bot import BOT_TOKEN, SIGNING_SECRET, BotProcess, run_bot
from tests.support.cache_files import connect as connect_cache
from tests.support.health_checks import ALL_HEALTH_CHECKS
from tests.support.hostile_service import (
    HUGE_INTS,
    HUGE_TIMES,
    MQ_PASSWORD,
    NOT_RESULTS,
    PANELS,
    PIN_CODE,
    SENSOR_ID,
    TOKEN,
    WRONG_VALUES,
    HostileService,
    Hostility,
)
from tests.support.processes import ROOT, samops_cmd, samops_free_env, stop
from tests.support.slack_standin import SlackStandIn

PASSWORD = "hostile-sam-password-never-shown"
SECRETS = (PASSWORD, TOKEN, MQ_PASSWORD, PIN_CODE, SIGNING_SECRET, BOT_TOKEN)
LIMIT = 4096  # SAM_MAX_RESPONSE_BYTES for these runs; "huge" answers are bigger
TIMEOUT_S = 1.0  # SAM_TIMEOUT; "slow" answers take far longer at one byte every 0.5 s
RECORD_KINDS = ("huge_int", "huge_time", "wrong_type")  # one record spoilt: it is dropped, the rest kept
CALL_KINDS = ("html", "empty", "truncated", "huge", "slow", "slow_head")  # the whole answer is unusable
# route -> (operation, cache table, requests per sync)
SYNC_ROUTES = {
    "organization-users": ("list_organization_users", "users", 1),
    "camera/list": ("list_cameras", "cameras", 1),
    "controller-log": ("list_controller_data_log", "controller_values", 1),
    "sensors": ("list_panel_sensors", "sensors", len(PANELS)),
    "controllers": ("list_panel_controllers", "controllers", len(PANELS)),
    "activities": ("list_activities", "activities", len(PANELS)),
    "push-history": ("get_push_history", "push_history", len(PANELS)),
}
TIMED_ROUTES = ("controller-log", "activities", "push-history")
# Few examples, fixed seeds, no shrinking: every example starts processes, so time stays bounded.
EXAMPLES = settings(
    max_examples=6,
    derandomize=True,
    deadline=None,
    suppress_health_check=ALL_HEALTH_CHECKS,
    database=None,
    phases=[Phase.explicit, Phase.generate],
)


@st.composite
def hostilities(draw: st.DrawFn, route: str, kinds: tuple[str, ...] | None = None) -> Hostility:
    if kinds is None:
        record_kinds = RECORD_KINDS if route in TIMED_ROUTES else ("huge_int", "wrong_type")
        kinds = (*record_kinds, *CALL_KINDS)
    kind = draw(st.sampled_from(kinds))
    values = {
        "huge_int": HUGE_INTS,
        "huge_time": HUGE_TIMES,
        "wrong_type": WRONG_VALUES,
        "huge": (False, True),
    }
    value = draw(st.sampled_from(values[kind])) if kind in values else None
    return Hostility(kind, value)


@st.composite
def sync_plans(draw: st.DrawFn) -> dict[str, Hostility]:
    routes = draw(st.lists(st.sampled_from(sorted(SYNC_ROUTES)), min_size=1, max_size=3, unique=True))
    return {route: draw(hostilities(route)) for route in routes}


@pytest.fixture(scope="module")
def service() -> Iterator[HostileService]:
    with HostileService(limit_bytes=LIMIT, drip_s=0.5) as fake:
        yield fake


def service_env(service: HostileService) -> dict[str, str]:
    """The hostile service, with a short timeout, no retries and a small answer limit."""
    return {
        "SAM_BASE_URL": service.base_url,
        "SAM_PASSWORD": PASSWORD,
        "SAM_TIMEOUT": str(TIMEOUT_S),
        "SAM_MAX_RETRIES": "0",
        "SAM_MAX_RESPONSE_BYTES": str(LIMIT),
        "SAM_MAX_FLEET_RESPONSE_BYTES": str(LIMIT),
    }


def environment(service: HostileService, data_dir: Path) -> dict[str, str]:
    return (
        samops_free_env()
        | service_env(service)
        | {
            "SAMOPS_DATA_DIR": str(data_dir),
            "SAMOPS_DB": str(data_dir / "cache.db"),
        }
    )


def samops(
    service: HostileService, data_dir: Path, *args: str, timeout: float = 120
) -> tuple[int, str, float]:
    """Run `samops ARGS` against the service: (exit code, stdout + stderr, seconds)."""
    started = time.monotonic()
    done = subprocess.run(
        samops_cmd(*args),
        cwd=ROOT,
        env=environment(service, data_dir),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return done.returncode, done.stdout + done.stderr, time.monotonic() - started


def status_of(db: Path) -> tuple[int, str]:
    """`samops status --db DB`, in this process (saving a start-up per example): exit code and output."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = status.main(["--db", str(db)])
    return code, out.getvalue()


def assert_clean(output: str) -> None:
    """No traceback, no log line at ERROR or worse, no secret."""
    assert "Traceback" not in output, output
    bad = [line for line in output.splitlines() if re.search(r"\b(ERROR|CRITICAL)\b", line)]
    assert not bad, bad
    for secret in SECRETS:
        assert secret not in output


# -- samops sync --once -------------------------------------------------------------------------------------


@EXAMPLES
@given(plan=sync_plans())
def test_sync_once_survives_any_hostility(
    service: HostileService, tmp_path_factory: pytest.TempPathFactory, plan: dict[str, Hostility]
) -> None:
    data_dir = tmp_path_factory.mktemp("sync")
    service.set(plan)
    try:
        code, output, seconds = samops(service, data_dir, "sync", "--once")
    finally:
        service.set({})
    assert_clean(output)
    whole_call_failed = any(h.kind in CALL_KINDS for h in plan.values())
    assert code == (1 if whole_call_failed else 0), output
    # Bounded: each request ends within SAM_TIMEOUT; the drips alone would take minutes.
    assert seconds < 90
    status_code, status = status_of(data_dir / "cache.db")
    assert status_code == 0 and "Traceback" not in status
    db = sqlite3.connect(data_dir / "cache.db")
    try:
        for route, hostility in plan.items():
            operation, table, calls = SYNC_ROUTES[route]
            if hostility.kind in RECORD_KINDS:
                # That record is rejected and shown with its operation; the others of that answer are kept.
                assert re.search(rf"rejected {calls} \w+ records? from {operation}: \w", status), status
                assert db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] > 0
        untouched = [t for r, (_, t, _) in SYNC_ROUTES.items() if r not in plan]
        for table in untouched:
            assert db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] > 0, table
        ints = db.execute("SELECT max(abs(activity_time)), max(abs(resource_id)) FROM activities").fetchone()
        assert all(v is None or v < 2**63 for v in ints)
    finally:
        db.close()
    for secret in SECRETS:
        assert secret.encode() not in (data_dir / "cache.db").read_bytes()


def test_sync_every_keeps_running_through_every_hostility(service: HostileService, tmp_path: Path) -> None:
    """One `--every` process meets each kind of hostility in turn and is still syncing at the end."""
    sequence = [
        {"activities": Hostility("huge_time", 99999999999999999999)},
        {"camera/list": Hostility("huge_int", 18446744073709551616)},
        {"sensors": Hostility("wrong_type", "x")},
        *({"controllers": Hostility(kind, True)} for kind in CALL_KINDS),
        {},
    ]
    log_path = tmp_path / "sync.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            samops_cmd("sync", "--every", "0.2"),
            cwd=ROOT,
            # Every slow table due on every tick (tiered freshness), so each round meets the plan.
            env=environment(service, tmp_path)
            | {f"SAMOPS_REFRESH_{t.upper()}": "0.01" for t in TIERED}
            | {"SAMOPS_REFRESH_RATE": "1000"},  # not paced: per-panel tiers due every tick too
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        for plan in sequence:
            service.set(plan)
            # Two summaries after the switch: the second sync ran wholly under this plan.
            seen = log_path.read_text().count("synced ")
            wait_for(lambda n=seen: log_path.read_text().count("synced ") >= n + 2, proc, timeout=120)
            assert proc.poll() is None, log_path.read_text()
    finally:
        service.set({})
        stop(proc)
    output = log_path.read_text()
    assert_clean(output)
    assert "rejected" in output and "activityTime out of range" in output
    assert "truncated" in output or "not valid JSON" in output


def wait_for(condition: object, proc: subprocess.Popen[str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        assert proc.poll() is None, "the sync stopped"
        time.sleep(0.1)
    raise AssertionError("the sync made no progress")


# -- samops call --------------------------------------------------------------------------------------------

READS = {
    "camera/list": ["list_cameras"],
    "sensors": ["list_panel_sensors", "--param", f"resourceId={PANELS[0]}"],
    "activities": ["list_activities", "--data", f'{{"resourceIds": [{PANELS[0]}]}}'],
    "controller-log": ["list_controller_data_log"],
}
WRITES = {
    "sensor-rename": ["update_sensor_description", "--param", f"resourceSensorId={SENSOR_ID}", "--data",
                      '{"description": "Front door"}'],
    "delete-user": ["delete_user", "--data", '{"userId": 8}'],
}  # fmt: skip


@st.composite
def call_cases(draw: st.DrawFn) -> tuple[str, Hostility]:
    route = draw(st.sampled_from(sorted(READS) + sorted(WRITES)))
    if route in WRITES:
        kind = draw(st.sampled_from(("not_result", *CALL_KINDS)))
        value = draw(st.sampled_from(NOT_RESULTS)) if kind == "not_result" else True
        return route, Hostility(kind, value)
    return route, draw(hostilities(route))


@EXAMPLES
@given(case=call_cases())
def test_call_answers_every_hostility_with_a_clear_line(
    service: HostileService, tmp_path_factory: pytest.TempPathFactory, case: tuple[str, Hostility]
) -> None:
    route, hostility = case
    service.set({route: hostility})
    try:
        code, output, seconds = samops(
            service, tmp_path_factory.mktemp("call"), "call", *(READS | WRITES)[route], "--compact"
        )
    finally:
        service.set({})
    assert_clean(output)
    assert seconds < 60
    if route in WRITES:
        assert code == 1, output
        assert "outcome is unknown" in output and "check in the service before retrying" in output
    elif hostility.kind in RECORD_KINDS:
        assert code == 0, output
        assert "WARNING samops.client" in output and "skipped an invalid record" in output
    else:
        assert code == 1, output
        assert re.search(r"samops call: .*\((GET|POST) /api/", output), output


# -- the bot ------------------------------------------------------------------------------------------------

TECH = "UTECH1"
CONFIG = f"""
[roles]
technicians = ["{TECH}"]
"""
BOT_COMMANDS = {  # command -> routes it reads
    f"panel {PANELS[0]}": ("sensors", "controllers", "controller-log", "activities"),
    "cameras": ("camera/list",),
}


@pytest.fixture(scope="module")
def slack() -> Iterator[SlackStandIn]:
    with SlackStandIn() as standin:
        yield standin


@pytest.fixture(scope="module")
def bot(
    tmp_path_factory: pytest.TempPathFactory, service: HostileService, slack: SlackStandIn
) -> Iterator[BotProcess]:
    env = service_env(service)
    with run_bot(tmp_path_factory.mktemp("bot"), slack, config=CONFIG, env=env) as process:
        yield process


@st.composite
def bot_cases(draw: st.DrawFn) -> tuple[str, dict[str, Hostility]]:
    command = draw(st.sampled_from(sorted(BOT_COMMANDS)))
    routes = BOT_COMMANDS[command]
    chosen = draw(st.lists(st.sampled_from(routes), min_size=1, max_size=2, unique=True))
    return command, {route: draw(hostilities(route)) for route in chosen}


@EXAMPLES
@given(case=bot_cases())
def test_bot_reads_answer_every_hostility_cleanly(
    bot: BotProcess, service: HostileService, case: tuple[str, dict[str, Hostility]]
) -> None:
    command, plan = case
    log_before = len(bot.output())
    service.set(plan)
    try:
        result = bot.send_command(command, user=TECH, timeout=30)
    finally:
        service.set({})
    text = result.text
    assert result.status == 200
    assert "Something went wrong" not in text, text
    assert_clean(text + bot.output()[log_before:])
    if all(h.kind in RECORD_KINDS for h in plan.values()):
        # Only one record was bad: the answer shows the rest.
        expected = f"{PANELS[0]}" if command.startswith("panel") else "Yard camera"
        assert expected in text, text


@pytest.mark.parametrize(
    "hostility",
    [Hostility("not_result", body) for body in NOT_RESULTS[:4]]
    + [Hostility(kind, True) for kind in ("html", "empty", "truncated", "huge")],
    ids=lambda h: f"{h.kind}-{h.value!r}"[:40],
)
def test_bot_write_of_unknown_outcome_says_so_and_audits_it(
    bot: BotProcess, service: HostileService, hostility: Hostility
) -> None:
    log_before = len(bot.output())
    service.set({"sensor-rename": hostility})
    try:
        result = bot.send_command(f"sensor rename {SENSOR_ID} Front door", user=TECH, timeout=30)
    finally:
        service.set({})
    text = result.text
    assert "outcome unknown" in text and "check in the service before retrying" in text.lower(), text
    assert "renamed" not in text.replace("not renamed", "")
    assert_clean(text + bot.output()[log_before:])
    db = connect_cache(bot.db_path)
    try:
        outcome = db.execute(
            "SELECT outcome FROM audit_log WHERE command = ? ORDER BY id DESC LIMIT 1",
            [f"sensor rename {SENSOR_ID}"],
        ).fetchone()
    finally:
        db.close()
    assert outcome == ("unknown",)


def test_samops_slash_through_the_running_bot(
    bot: BotProcess, service: HostileService, tmp_path: Path
) -> None:
    service.set({"camera/list": Hostility("huge_int", 2**64), "sensor-rename": Hostility("not_result", {})})
    try:
        env = {
            **os.environ,
            "SLACK_SIGNING_SECRET": bot.signing_secret,
            "SAMOPS_DATA_DIR": str(tmp_path),
        }
        answers = [
            subprocess.run(
                samops_cmd("slash", f"/sam {text}", "--as", TECH, "--url", bot.url, "--timeout", "30"),
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            for text in ("cameras", f"sensor rename {SENSOR_ID} Back door")
        ]
    finally:
        service.set({})
    cameras, rename = answers
    assert cameras.returncode == 0 and "Yard camera" in cameras.stdout, cameras.stdout + cameras.stderr
    assert rename.returncode == 0 and "outcome unknown" in rename.stdout, rename.stdout + rename.stderr
    for done in answers:
        assert_clean(done.stdout + done.stderr)
