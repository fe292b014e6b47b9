"""`samops call` and `samops idempotency-key`, run in-process against a private simulator.

The request-recording check decodes every Idempotency-Key the CLI sent with the spec's own procedure
(written out here, not imported) and compares method, path, headers and body with the spec."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from Crypto.Cipher import DES3

from core.cli import call, idempotency
from core.client import OPERATIONS, SamClient
from core.settings import Settings
from tests.support.narrow import known
from tests.support.processes import Simulator, free_port, run_simulator
from tests.support.vectors import VECTORS


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", seed=3) as simulator:
        yield simulator


@pytest.fixture(autouse=True)
def environment(sim: Simulator, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no stray .env
    for name in ("SAM_ORGANIZATION_ID", "SAM_MAX_RETRIES", "SAM_FIRST_PAGE", "SAM_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SAM_BASE_URL", sim.base_url)
    monkeypatch.setenv("SAM_SCREEN_NAME", "demo")
    monkeypatch.setenv("SAM_PASSWORD", "demo")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = call.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def last_request(sim: Simulator) -> dict:
    return httpx.get(f"{sim.root_url}/_sim/requests").json()[-1]


def spec_decode(header: str, payload: bytes) -> int:
    """The spec's procedure backwards: SHA-256 -> first 24 bytes -> Triple DES ECB -> digits."""
    key = hashlib.sha256(payload).digest()[:24]
    plain = DES3.new(key, DES3.MODE_ECB).decrypt(bytes.fromhex(header))
    assert plain.isdigit() and len(plain) % 8 == 0
    return int(plain)


def compact(data: object) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def test_every_operation_is_sent_as_the_spec_describes(
    sim: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    with SamClient(
        Settings(_env_file=None, base_url=sim.base_url, screen_name="demo", password="demo")
    ) as sam:
        login = sam.login()
        pid = known(login.panels[0].resource_id)
        sensor_id = known(sam.list_panel_sensors(pid).sensors)[0].id
        me = known(login.user_id)
        others = [u.user_id for u in sam.list_organization_users(me) if u.user_id != me]
        pair = next(p for p in sam.get_organization_users() if p.resource_user_response_list)
        panel_user = known(pair.resource_user_response_list)[0].user_id
        task = next(t for t in httpx.get(f"{sim.root_url}/_sim/tasks").json() if t["orgId"] == 1001)
    groups = [{"privilegeGroupId": g, "authorized": True} for g in range(1, 7)]
    cases: list[tuple[str, dict | None, dict, str]] = [
        ("login", None, {}, ""),
        ("get_organization_users", None, {}, ""),
        ("list_activities", {"resourceIds": [pid], "page": 1, "pageSize": 5}, {}, ""),
        (
            "set_user_privileges",
            {
                "userId": others[0],
                "authorizedResourceIds": [pid],
                "privilegeGroups": groups,
                "organizationId": 1001,
            },
            {},
            "",
        ),
        ("update_schedule_task", {"taskId": task["taskId"], "taskName": "Gece kurulumu"}, {}, ""),
        ("add_camera", {"deviceSerial": "CLI-0001", "name": "Çatı kamerası"}, {}, ""),
        ("list_bills", {"subscriptionId": 10011}, {}, ""),
        ("find_customers", {"phoneNumber": "+90 500 000 00 00"}, {}, ""),
        (
            "update_sensor_description",
            {"locale": "tr", "description": "Kapı"},
            {"resourceSensorId": sensor_id},
            "",
        ),
        ("delete_resource_user", {"resourceId": pair.resource_id, "userId": panel_user}, {}, ""),
        ("delete_user", {"userId": others[1]}, {}, ""),
        ("list_organization_users", None, {"userId": login.user_id}, ""),
        ("get_user_by_email", None, {"emailAddress": login.email_address}, ""),
        ("list_panel_controllers", None, {"resourceId": pid}, ""),
        ("get_user_privilege_groups", None, {"userId": login.user_id}, ""),
        ("get_role_privilege_groups", None, {"roleId": known(login.roles)[0].role_id}, ""),
        ("list_cameras", None, {}, ""),
        ("list_panel_sensors", None, {"resourceId": pid}, ""),
        ("list_controller_data_log", None, {"resourceId": pid}, f"resourceId={pid}"),
        ("get_push_history", {"resourceId": pid, "page": 1, "pageSize": 5}, {}, ""),
        (
            "register_device_token",
            {"userId": login.user_id, "requestToken": "tok-1", "appId": "app-1"},
            {},
            "",
        ),
    ]
    assert sorted(name for name, *_ in cases) == sorted(OPERATIONS)
    for name, data, params, query in cases:
        argv = [name, "--org", "1001", *(f"--param={k}={v}" for k, v in params.items())]
        argv += ["--data", compact(data)] if data is not None else []
        code, out, err = run(capsys, *argv)
        assert code == 0, (name, err)
        json.loads(out)
        seen, op = last_request(sim), OPERATIONS[name]
        path = "/api" + op.path.format(**{k: str(v).replace("@", "%40") for k, v in params.items()})
        assert (seen["method"], seen["path"], seen["query"]) == (op.method, path, query), name
        if name == "login":
            body = compact({"screenName": "demo", "password": "demo", "rememberMe": True})
            assert seen["body"] == body.replace('"demo","rememberMe"', '"***","rememberMe"')
            assert "authorization" not in seen["headers"] and "organizationid" not in seen["headers"]
        else:
            body = compact(data) if data is not None else ""
            assert seen["body"] == body, name
            assert seen["headers"]["authorization"] == "Bearer ***"
            assert seen["headers"]["organizationid"] == "1001"
        if body:
            assert seen["headers"]["content-type"] == "application/json"
        payload = body.encode() if body else seen["path"].encode()
        stamp = spec_decode(seen["headers"]["idempotency-key"], payload)
        assert abs(stamp - time.time() * 1000) < 60_000, name


def test_list_shows_every_operation_and_its_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--list")
    assert code == 0
    for op in OPERATIONS.values():
        assert op.name in out and op.path in out
    assert "--param emailAddress=<str>" in out and "deviceSerial*" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "name an operation"),
        (["frobnicate"], "unknown operation 'frobnicate'"),
        (["get_user_by_email"], "missing --param emailAddress"),
        (["list_panel_sensors", "--param", "resourceId=abc"], "resourceId must be an integer"),
        (["list_cameras", "--param", "userId=1"], "not a parameter of list_cameras"),
        (["list_panel_sensors", "--param", "resourceId"], "expected NAME=VALUE"),
        (["list_cameras", "--data", "{}"], "takes no body"),
        (["add_camera", "--data", "{not json"], "not valid JSON"),
        (["add_camera", "--data", "[1, 2]"], "must be a JSON object"),
        (["add_camera", "--data", '{"name": "x", "serial": "y"}'], "unknown field serial"),
        (["add_camera", "--data", '{"name": "x"}'], "missing field deviceSerial"),
        (["add_camera"], "--data required"),
        (["add_camera", "--data", "@/nonexistent/body.json"], "cannot read"),
        (["list_cameras", "--org", "abc"], "invalid int value"),
    ],
)
def test_usage_errors_exit_2_with_the_operations_arguments(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err
    if len(argv) > 1 and argv[0] in OPERATIONS and "--org" not in argv:
        assert f"usage: samops call {argv[0]}" in err and OPERATIONS[argv[0]].path in err
    assert "Traceback" not in err


def test_api_errors_exit_1_with_the_error_body_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "get_user_by_email", "--param", "emailAddress=nobody@example.com")
    assert code == 1 and out == ""
    body = json.loads(err.splitlines()[0])
    assert body["statusCode"] == 404 and body["error"] and "nobody@example.com" in body["message"]
    assert "(GET /api/user/email/nobody" in err


def test_network_errors_exit_1(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAM_BASE_URL", f"http://127.0.0.1:{free_port()}/api")
    monkeypatch.setenv("SAM_MAX_RETRIES", "0")
    code, out, err = run(capsys, "list_cameras")
    assert code == 1 and out == "" and "network error" in err and "Traceback" not in err


def test_bad_configuration_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAM_MAX_RETRIES", "many")
    code, _, err = run(capsys, "list_cameras")
    assert code == 2 and "MAX_RETRIES" in err


def test_secrets_are_masked_unless_asked_for(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "login")
    login = json.loads(out)
    assert code == 0 and login["token"] == "***" and login["mqPassword"] == "***" and login["userId"]
    code, out, _ = run(capsys, "login", "--show-secrets", "--compact")
    shown = json.loads(out)
    assert len(shown["token"]) > 10 and shown["token"] != "***" and out.count("\n") == 1

    code, out, _ = run(capsys, "get_organization_users")
    pins = [ru["pinCode"] for p in json.loads(out) for ru in p.get("resourceUserResponseList", [])]
    assert pins and set(pins) == {"***"}

    body = tmp_path / "camera.json"
    body.write_text(json.dumps({"deviceSerial": "CLI-SECRET", "name": "n", "securityCode": "SC-TOP-SECRET"}))
    code, out, _ = run(capsys, "add_camera", "--data", f"@{body}")
    assert code == 0 and "SC-TOP-SECRET" not in out and json.loads(out)["securityCode"] == "***"


def test_verbose_logs_on_stderr_without_secrets(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "login", "--verbose", "--show-secrets")
    token = json.loads(out)["token"]
    assert code == 0 and "POST /api/auth/login -> 200" in err
    assert token not in err and '"password"' not in err


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_idempotency_key_command_reproduces_the_vectors(
    capsys: pytest.CaptureFixture[str], vector: dict
) -> None:
    argv = ["--path", vector["path"], "--at", str(vector["epoch_ms"])]
    argv += ["--body", vector["body"]] if vector["body"] else []
    assert idempotency.main(argv) == 0
    assert capsys.readouterr().out.strip() == vector["header"]


def test_idempotency_key_command_reads_a_body_file_and_checks_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vector = next(v for v in VECTORS if v["payload_is_body"])
    (tmp_path / "body.json").write_bytes(vector["body"].encode())
    assert (
        idempotency.main(
            ["--path", "/x", "--body", f"@{tmp_path / 'body.json'}", "--at", str(vector["epoch_ms"])]
        )
        == 0
    )
    assert capsys.readouterr().out.strip() == vector["header"]
    for argv, message in [
        (["--path", "camera/list"], "must start with /"),
        (["--path", "/camera/list", "--at", "-5"], "non-negative"),
        (["--path", "/user/email/ç"], "percent-encoded"),
        (["--path", "/x", "--body", "@/nonexistent"], "cannot read"),
        ([], "required"),
    ]:
        assert idempotency.main(argv) == 2
        assert message in capsys.readouterr().err
