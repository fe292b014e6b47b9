"""What the client sends, checked from the spec alone: every operation through `samops call` against the
simulator, then each request the simulator recorded (`GET /_sim/requests`) is held against service-api.md:
method, path, headers, compact JSON body with the spec's field names, and an Idempotency-Key that this
module's own code (tests/support/spec_check.py) decodes to a current stamp."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support import spec_check as S
from tests.support.processes import ROOT, Simulator, run_simulator, samops_free_env
from tests.support.spec_endpoints import ENDPOINTS

ORG = 1001  # simulator/README.md: organizations 1001, 1002, ...; the demo user (7001) is in the first two
PANEL = ORG * 100 + 1  # resourceId = orgId * 100 + n
SENSOR = PANEL * 100 + 1  # id = resourceId * 100 + orderNo
ROLE = ORG * 10 + 1
TASK = ORG * 100 + 1
SUBSCRIPTION = ORG * 10 + 1
DEMO_USER = 7001
PASSWORD = "demo"
SECURITY_CODE = "SEC-4711"
NC_CODE = "NC-0815"
FIVE_MINUTES_MS = 5 * 60_000

# The spec's endpoint table: operation name (samops call --list) -> method, path template, body fields.
SPEC: dict[str, tuple[str, str, set[str] | None]] = {
    name: (endpoint.method, endpoint.path, set(endpoint.body) or None) for name, endpoint in ENDPOINTS.items()
}
SECRET_VALUES = {"password": PASSWORD, "securityCode": SECURITY_CODE, "ncCode": NC_CODE}


def now_ms() -> int:
    return int(time.time() * 1000)


def path_pattern(template: str) -> re.Pattern[str]:
    return re.compile("^/api" + re.sub(r"\\\{[A-Za-z]+\\\}", "[^/]+", re.escape(template)) + "$")


def operation_of(method: str, raw_path: str) -> str | None:
    for name, (spec_method, template, _) in SPEC.items():
        if method == spec_method and path_pattern(template).match(raw_path):
            return name
    return None


@dataclass
class Call:
    operation: str
    args: list[str]
    data: dict[str, Any] | None
    returncode: int = -1
    stdout: str = ""
    stderr: str = ""


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0") as simulator:
        yield simulator


def samops_call(sim: Simulator, workdir: Path, call: Call, org: int = ORG) -> Call:
    env = samops_free_env()
    env |= {
        "SAM_BASE_URL": sim.base_url,
        "SAM_SCREEN_NAME": "demo",
        "SAM_PASSWORD": PASSWORD,
        "SAM_ORGANIZATION_ID": str(org),
        "PYTHONPATH": str(ROOT),
    }
    args = [sys.executable, "-m", "samops", "call", call.operation, "--compact", *call.args]
    if call.data is not None:
        args += ["--data", json.dumps(call.data, ensure_ascii=False)]
    # Run outside the tree so that no .env of the developer is read.
    done = subprocess.run(args, cwd=workdir, env=env, capture_output=True, text=True, timeout=60)
    call.returncode, call.stdout, call.stderr = done.returncode, done.stdout, done.stderr
    return call


def run_all(sim: Simulator, workdir: Path, calls: list[Call]) -> list[Call]:
    with ThreadPoolExecutor(max_workers=3) as pool:
        done = list(pool.map(lambda c: samops_call(sim, workdir, c), calls))
    for call in done:
        assert call.returncode == 0, f"samops call {call.operation}: exit {call.returncode}\n{call.stderr}"
        json.loads(call.stdout)
    return done


@dataclass
class Recorded:
    calls: dict[str, Call]
    requests: list[dict[str, Any]]
    started_ms: int
    finished_ms: int


@pytest.fixture(scope="module")
def recorded(sim: Simulator, tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    workdir = tmp_path_factory.mktemp("call")
    started = now_ms()
    day = 86_400_000
    customers = httpx.get(sim.root_url + "/_sim/customers").json()
    phone = next(
        m["characteristic"]["phoneNumber"]
        for c in customers
        for m in c["contactMedium"]
        if m.get("characteristic", {}).get("phoneNumber")
    )
    first = [
        Call("login", [], {"screenName": "demo", "password": PASSWORD, "rememberMe": True}),
        Call("get_organization_users", [], None),
        Call(
            "list_activities",
            [],
            {
                "resourceIds": [PANEL],
                "page": 1,
                "pageSize": 50,
                "startTime": started - day,
                "endTime": started,
            },
        ),
        Call(
            "update_schedule_task",
            [],
            {
                "taskName": "CLI task",
                "taskType": 2,
                "taskDates": ["2026-12-01"],
                "notificationOptions": {"channels": ["push"], "audience": ["admins"], "userId": DEMO_USER},
                "selection": "all",
                "resources": [PANEL],
                "users": [DEMO_USER],
                "combinedData": ["x"],
                "taskId": TASK,
                "userType": "admin",
            },
        ),
        Call(
            "add_camera",
            [],
            {
                "brand": "Hikvision",
                "deviceSerial": "CLI-SPEC-1",
                "name": "CLI camera",
                "organizationId": ORG,
                "securityCode": SECURITY_CODE,
                "ncCode": NC_CODE,
                "subscriptionId": SUBSCRIPTION,
            },
        ),
        Call(
            "list_bills", [], {"organizationId": ORG, "subscriptionId": SUBSCRIPTION, "monthFilter": "2026"}
        ),
        Call("find_customers", [], {"phoneNumber": phone}),
        Call(
            "update_sensor_description",
            ["--param", f"resourceSensorId={SENSOR}"],
            {"locale": "tr", "description": "Kapı sensörü İç Şube"},
        ),
        Call("list_organization_users", ["--param", f"userId={DEMO_USER}"], None),
        Call("list_panel_controllers", ["--param", f"resourceId={PANEL}"], None),
        Call("get_user_privilege_groups", ["--param", f"userId={DEMO_USER}"], None),
        Call("get_role_privilege_groups", ["--param", f"roleId={ROLE}"], None),
        Call("list_cameras", [], None),
        Call("list_panel_sensors", ["--param", f"resourceId={PANEL}"], None),
        Call(
            "list_controller_data_log",
            [
                "--param",
                f"resourceId={PANEL}",
                "--param",
                f"startTime={started - day}",
                "--param",
                f"endTime={started}",
            ],
            None,
        ),
        Call(
            "get_push_history",
            [],
            {
                "resourceId": PANEL,
                "page": 1,
                "pageSize": 50,
                "startTime": started - 7 * day,
                "endTime": started,
            },
        ),
        Call(
            "register_device_token", [], {"userId": DEMO_USER, "requestToken": "push-tok-1", "appId": "app-1"}
        ),
    ]
    done = run_all(sim, workdir, first)
    outputs = {c.operation: json.loads(c.stdout) for c in done}

    users = [u for u in outputs["list_organization_users"] if u["userId"] != DEMO_USER]
    doomed = users[-1]["userId"]
    pair = next(
        (p, u)
        for p in outputs["get_organization_users"]
        for u in p["resourceUserResponseList"]
        if u["userId"] not in (doomed, DEMO_USER)
    )
    email = next(u["emailAddress"] for u in users if "@" in u["emailAddress"])
    second = [
        Call(
            "set_user_privileges",
            [],
            {
                "userId": users[0]["userId"],
                "authorizedResourceIds": [PANEL],
                "privilegeGroups": [{"privilegeGroupId": g, "authorized": g % 2 == 1} for g in range(1, 7)],
                "organizationId": ORG,
                "expirationTime": started + 30 * day,
                "period": [{"dayOfWeek": 2, "start": 0, "end": 3_600_000}],
                "validityStart": started,
            },
        ),
        Call("delete_resource_user", [], {"resourceId": pair[0]["resourceId"], "userId": pair[1]["userId"]}),
        Call("delete_user", [], {"userId": doomed}),
        Call("get_user_by_email", ["--param", f"emailAddress={email}"], None),
    ]
    done += run_all(sim, workdir, second)
    requests = httpx.get(sim.root_url + "/_sim/requests").json()
    return Recorded({c.operation: c for c in done}, requests, started, now_ms())


def raw_body(request: dict[str, Any]) -> bytes:
    """The bytes the client sent: the recorded body with the simulator's `***` masks put back."""
    text = request["body"] or ""
    if not text:
        return b""
    parsed = json.loads(text)
    if isinstance(parsed, dict) and any(parsed.get(k) == "***" for k in SECRET_VALUES):
        parsed = {k: SECRET_VALUES[k] if k in SECRET_VALUES and v == "***" else v for k, v in parsed.items()}
        text = json.dumps(parsed, separators=(",", ":"), ensure_ascii=False)
    return text.encode()


def requests_of(recorded: Recorded, operation: str) -> list[dict[str, Any]]:
    return [r for r in recorded.requests if operation_of(r["method"], r["path"]) == operation]


def test_all_21_operations_were_sent(recorded: Recorded) -> None:
    assert len(recorded.calls) == 21 == len(SPEC)
    missing = [op for op in SPEC if not requests_of(recorded, op)]
    assert not missing, f"no request recorded for {missing}"


def test_every_recorded_request_is_a_spec_endpoint(recorded: Recorded) -> None:
    strays = [
        f"{r['method']} {r['path']}"
        for r in recorded.requests
        if operation_of(r["method"], r["path"]) is None
    ]
    assert not strays


@pytest.mark.parametrize("operation", list(SPEC))
def test_request_as_the_spec_lists_it(recorded: Recorded, operation: str) -> None:
    method, _, fields = SPEC[operation]
    call = recorded.calls[operation]
    sent = requests_of(recorded, operation)
    assert sent, f"{operation}: nothing recorded"
    if operation == "login":
        # Every `samops call` logs in; the explicit login call is one of these.
        assert len(sent) >= len(recorded.calls)
    for request in sent:
        assert request["method"] == method
        headers = request["headers"]
        where = f"{operation}: {method} {request['path']}"
        if operation == "login":
            assert "authorization" not in headers and "organizationid" not in headers, where
        else:
            assert headers.get("authorization", "").startswith("Bearer "), where
            assert headers.get("organizationid") == str(ORG), where

        body = raw_body(request)
        if fields is None:
            assert body == b"", where
            payload = S.empty_body_payload(request["path"].removeprefix("/api"))
        else:
            assert body, where
            assert int(headers["content-length"]) == len(body), f"{where}: unmasked body is not the sent body"
            assert headers.get("content-type", "").startswith("application/json"), where
            parsed = json.loads(body)
            assert isinstance(parsed, dict), where
            compact = json.dumps(parsed, separators=(",", ":"), ensure_ascii=False).encode()
            assert body == compact, f"{where}: body is not compact UTF-8 JSON: {body!r}"
            assert set(parsed) <= fields, f"{where}: fields outside the spec: {set(parsed) - fields}"
            payload = body

        key = headers.get("idempotency-key")
        assert key and re.fullmatch(r"[0-9A-F]+", key) and len(key) % 16 == 0, f"{where}: key {key!r}"
        stamp = S.decode_key(payload, key)
        assert stamp.isdigit() and len(stamp) % 8 == 0, f"{where}: key decodes to {stamp!r}"
        assert abs(int(stamp) - request["at"]) <= FIVE_MINUTES_MS, where
        assert recorded.started_ms - FIVE_MINUTES_MS <= int(stamp) <= recorded.finished_ms + FIVE_MINUTES_MS

    # The operation's own request carries what was asked for on the command line.
    if call.data is not None and operation != "login":
        bodies = [json.loads(raw_body(r)) for r in sent]
        wanted = {k: v for k, v in call.data.items() if k != "page"}
        assert any(all(b.get(k) == v for k, v in wanted.items()) for b in bodies), (call.data, bodies)


def test_path_parameters_and_query(recorded: Recorded) -> None:
    def paths(operation: str) -> set[str]:
        return {r["path"] for r in requests_of(recorded, operation)}

    assert paths("update_sensor_description") == {f"/api/panel/sensor/{SENSOR}/update-description"}
    assert paths("list_organization_users") == {f"/api/user/{DEMO_USER}/organization-users"}
    assert paths("list_panel_controllers") == {f"/api/panel/{PANEL}/controller/list"}
    assert paths("get_user_privilege_groups") == {f"/api/role/user/{DEMO_USER}/privilege-groups"}
    assert paths("get_role_privilege_groups") == {f"/api/role/{ROLE}/privilege-groups"}
    assert paths("list_panel_sensors") == {f"/api/panel/{PANEL}/sensor/list"}
    email = recorded.calls["get_user_by_email"].args[1].split("=", 1)[1]
    (email_path,) = paths("get_user_by_email")
    assert httpx.URL("http://x" + email_path).path == f"/api/user/email/{email}"
    (log,) = requests_of(recorded, "list_controller_data_log")
    query = dict(httpx.QueryParams(log["query"]))
    assert query["resourceId"] == str(PANEL)
    assert {"startTime", "endTime"} <= set(query)


def test_org_option_sets_the_organization_header(sim: Simulator, tmp_path: Path) -> None:
    before = len(httpx.get(sim.root_url + "/_sim/requests").json())
    call = samops_call(sim, tmp_path, Call("list_cameras", ["--org", "1002"], None))
    assert call.returncode == 0, call.stderr
    new = httpx.get(sim.root_url + "/_sim/requests").json()[before:]
    (cameras,) = [r for r in new if operation_of(r["method"], r["path"]) == "list_cameras"]
    assert cameras["headers"]["organizationid"] == "1002"


def test_secrets_in_the_answers_are_masked_without_show_secrets(recorded: Recorded) -> None:
    # `samops call --help`: --show-secrets prints tokens, PIN codes... instead of ***.
    login = json.loads(recorded.calls["login"].stdout)
    assert login["token"] == "***" and login["mqPassword"] == "***"
    camera = json.loads(recorded.calls["add_camera"].stdout)
    assert camera["securityCode"] == "***" and camera["ncCode"] == "***"
    assert camera["name"] == "CLI camera"
    pairs = json.loads(recorded.calls["get_organization_users"].stdout)
    pins = [
        u["pinCode"] for p in pairs for u in p["resourceUserResponseList"] if u.get("pinCode") is not None
    ]
    assert pins and set(pins) == {"***"}
    everything = "".join(c.stdout + c.stderr for c in recorded.calls.values())
    assert SECURITY_CODE not in everything and NC_CODE not in everything
