"""The simulator as a process: options, faults, live activity, scale, and the /_sim test controls."""

from __future__ import annotations

import subprocess
import time
from collections import Counter
from collections.abc import Iterator

import httpx
import pytest

from tests.support.processes import ROOT, Simulator, free_port, run_simulator, samops_cmd, stop, wait_http
from tests.support.spec_client import SpecClient


def test_start_prints_the_base_url_and_user_not_the_password_and_tokens_expire() -> None:
    port = free_port()
    cmd = samops_cmd(
        "simulator",
        "--port",
        str(port),
        "--alarm-rate",
        "0",
        "--token-ttl",
        "1",
        "--demo-screen-name",
        "alice",
        "--demo-password",
        "wonder",
    )
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz", proc)
        assert httpx.get(f"http://127.0.0.1:{port}/healthz").json() == {"status": "ok"}
        with SpecClient(f"http://127.0.0.1:{port}/api") as client:
            assert client.login("alice", "wonder")["screenName"] == "alice"
            logged_in = time.monotonic()  # the token was issued before this, so it expires before +3 s
            assert client.call("GET", "/camera/list").status_code == 200
            time.sleep(max(0.0, logged_in + 3.3 - time.monotonic()))
            expired = client.call("GET", "/camera/list")
            assert expired.status_code == 401 and expired.json()["error"] == "UNAUTHORIZED"
            assert "expired" in expired.json()["message"]
            client.login("alice", "wonder")
            assert client.call("GET", "/camera/list").status_code == 200
    finally:
        stop(proc)
    out = proc.stdout.read().decode() if proc.stdout else ""
    assert f"http://127.0.0.1:{port}/api" in out
    assert "alice" in out and "1001" in out
    assert "wonder" not in out  # the banner never prints the password (issue 12)


def test_bad_options_are_a_usage_error() -> None:
    for args in (["--panels", "-1"], ["--error-rate", "2"], ["--orgs", "many"], ["--no-such-option"]):
        done = subprocess.run(samops_cmd("simulator", *args), cwd=ROOT, capture_output=True, timeout=60)
        assert done.returncode == 2, args
        assert b"usage: samops simulator" in done.stderr and b"Traceback" not in done.stderr


@pytest.fixture(scope="module")
def chaos() -> Iterator[Simulator]:
    """Faults and a fast live feed; the faults test runs first and the live test turns faults off."""
    with run_simulator("--alarm-rate", "600", "--error-rate", "0.3", "--throttle-rate", "0.3") as sim:
        yield sim


def test_faults_answer_5xx_and_429_with_retry_after_and_change_at_run_time(chaos: Simulator) -> None:
    sim = chaos
    assert httpx.post(f"{sim.root_url}/_sim/faults", json={}).json() == {
        "errorRate": 0.3,
        "throttleRate": 0.3,
        "latencyMs": 0,
    }
    with SpecClient(sim.base_url) as client:
        statuses: Counter[int] = Counter()
        for _ in range(60):
            response = client.call(
                "POST", "/auth/login", {"screenName": "demo", "password": "demo"}, auth=False
            )
            statuses[response.status_code] += 1
            if response.status_code == 429:
                assert response.headers["retry-after"] == "1"
                assert response.json()["error"] == "RATE_LIMITED"
            elif response.status_code >= 500:
                body = response.json()
                assert body["statusCode"] == response.status_code and body["path"] == "/api/auth/login"
        assert statuses[429] and statuses[200] and {500, 502, 503} & statuses.keys()
        assert httpx.get(f"{sim.root_url}/healthz").status_code == 200  # faults apply to /api only
        settings = {"errorRate": 0, "throttleRate": 0, "latencyMs": 300}
        assert httpx.post(f"{sim.root_url}/_sim/faults", json=settings).json() == settings
        client.login()
        started = time.monotonic()
        assert all(client.call("GET", "/camera/list").status_code == 200 for _ in range(3))
        assert time.monotonic() - started >= 0.9  # latency is a lower bound, safe on a slow machine
        bad = httpx.post(f"{sim.root_url}/_sim/faults", json={"errorRate": 5})
        assert bad.status_code == 400 and "errorRate" in bad.json()["message"]


def test_live_activities_appear_at_the_alarm_rate_and_can_be_injected(chaos: Simulator) -> None:
    sim = chaos
    httpx.post(f"{sim.root_url}/_sim/faults", json={"errorRate": 0, "throttleRate": 0, "latencyMs": 0})
    with SpecClient(sim.base_url) as client:
        login = client.login()
        since = int(time.time() * 1000)
        deadline = time.monotonic() + 20
        fresh: list[dict] = []
        alarms: list[dict] = []
        while time.monotonic() < deadline and not (len(fresh) >= 3 and alarms):
            time.sleep(0.3)
            fresh = httpx.get(f"{sim.root_url}/_sim/activities", params={"since": since}).json()
            alarms = [a for a in fresh if a["violationType"] == "alarm" and a["eventType"] == "violation"]
        assert len(fresh) >= 3 and alarms
        assert all({"resourceId", "orgId", "eventId"} <= a.keys() for a in fresh)
        mine = next(p["resourceId"] for p in login["resources"] if p["orgId"] == 1001)
        injected = httpx.post(
            f"{sim.root_url}/_sim/activities", json={"resourceId": mine, "count": 2, "violationType": "alarm"}
        ).json()
        assert [a["violationType"] for a in injected] == ["alarm", "alarm"]
        assert {a["eventType"] for a in injected} == {"violation"}
        page = client.ok(
            "POST", "/activities", {"resourceIds": [mine], "page": 1, "pageSize": 50, "startTime": since}
        )
        assert {a["eventId"] for a in injected} <= {a["eventId"] for a in page["activities"]}
        unknown = httpx.post(f"{sim.root_url}/_sim/activities", json={"resourceId": 1, "count": 1})
        assert unknown.status_code == 404


def test_two_thousand_panels_start_and_are_served() -> None:
    with run_simulator("--alarm-rate", "0", "--panels", "2000") as sim, SpecClient(sim.base_url) as client:
        login = client.login()
        assert len(login["resources"]) == 1334  # 667 + 667 of 2000 panels over three organizations
        assert len({p["resourceId"] for p in login["resources"]}) == 1334
        page = client.ok("POST", "/activities", {"page": 1, "pageSize": 10})
        assert page["totalRecords"] > 667 * 7
