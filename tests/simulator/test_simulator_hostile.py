"""The simulator as an attacker meets it (issue 12): replays only to their own caller, and every input, down
to raw header bytes, answered with the spec's error body and a 4xx, never a 500, a traceback or a secret.

Requests go over a raw socket, so that nothing on the client side cleans up what is sent.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import spec_check as S
from tests.support.processes import Simulator, run_simulator
from tests.support.spec_client import SpecClient
from tests.support.spec_endpoints import ENDPOINTS

SECRET_KEYS = {"pinCode", "mqPassword", "securityCode", "ncCode", "password", "token"}
# Where a successful answer legitimately carries the caller's own secrets (op 1, 2 and 6 of the spec).
SECRETS_ANSWERED = {
    "/api/auth/login": {"mqPassword", "token"},
    "/api/enterprise/bulk/get-organization-users": {"pinCode"},
    "/api/camera/add": {"securityCode", "ncCode"},
}
# The 21 operations: method, path with {} for a path parameter, body field names.
OPERATIONS: list[tuple[str, str, tuple[str, ...]]] = [
    (e.method, e.blank_path, e.body) for e in ENDPOINTS.values()
]


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def send_raw(port: int, request: bytes) -> Answer:
    """One request on its own connection, read to the end (the server closes: `Connection: close`)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    raw = b"".join(chunks)
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split(b" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.decode("latin-1").lower()] = value.decode("latin-1").strip()
    if headers.get("transfer-encoding") == "chunked":
        body = dechunk(body)
    return Answer(status, headers, body)


def dechunk(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out += data[:size]
        data = data[size + 2 :]
    return out


def request_bytes(method: str, target: bytes, headers: list[tuple[bytes, bytes]], body: bytes) -> bytes:
    lines = [method.encode() + b" " + target + b" HTTP/1.1", b"Host: 127.0.0.1", b"Connection: close"]
    lines += [name + b": " + value for name, value in headers]
    lines.append(b"Content-Length: " + str(len(body)).encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def assert_clean(answer: Answer, target: bytes, authenticated: bool) -> None:
    """No 5xx; a 4xx is the spec's error body; no traceback; no secret except the caller's own."""
    assert answer.status < 500, (answer.status, answer.body[:300])
    text = answer.body.decode("utf-8", "replace")
    assert "Traceback" not in text and 'File "' not in text, text[:300]
    if answer.status >= 400:
        body = answer.json()
        assert set(body) == {"statusCode", "error", "message", "path"}, body
        S.assert_shape(body, S.ERROR_BODY)
        assert body["statusCode"] == answer.status and body["error"] and body["message"]
        return
    if not answer.body:
        return
    found = secret_keys(answer.json())
    allowed = SECRETS_ANSWERED.get(target.split(b"?")[0].decode("latin-1"), set())
    assert found <= allowed, (target, found)
    if "/auth/login" not in target.decode("latin-1"):
        assert authenticated or not found, (target, found)


def secret_keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return {k for k in value if k in SECRET_KEYS} | {s for v in value.values() for s in secret_keys(v)}
    if isinstance(value, list):
        return {s for v in value for s in secret_keys(v)}
    return set()


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", seed=5) as simulator:
        yield simulator
    err = simulator.proc.stderr.read().decode("utf-8", "replace") if simulator.proc.stderr else ""
    assert "Traceback" not in err, err[-3000:]


@pytest.fixture(scope="module")
def demo(sim: Simulator) -> Iterator[SpecClient]:
    with SpecClient(sim.base_url, org=1001) as client:
        client.login()
        yield client


@pytest.fixture(scope="module")
def other(sim: Simulator) -> Iterator[SpecClient]:
    """The owner of organization 1003, which the demo user is not in."""
    with SpecClient(sim.base_url, org=1003) as client:
        client.login("other", "other")
        yield client


# --- replays -----------------------------------------------------------------------------------------------


def test_a_replayed_key_without_authorization_is_refused_not_replayed(
    sim: Simulator, demo: SpecClient
) -> None:
    path = "/enterprise/bulk/get-organization-users"
    key = S.idempotency_key(S.empty_body_payload(path), int(time.time() * 1000))
    first = demo.call("GET", path, headers={"Idempotency-Key": key})
    assert first.status_code == 200 and "pinCode" in first.text
    for headers in (
        {"OrganizationId": "1001", "Idempotency-Key": key},  # no Authorization at all
        {"OrganizationId": "1001", "Idempotency-Key": key, "Authorization": "Bearer forged"},
    ):
        attack = httpx.get(sim.base_url + path, headers=headers)
        assert attack.status_code == 401 and "pinCode" not in attack.text
        assert attack.json()["error"] == "UNAUTHORIZED" and "idempotent-replayed" not in attack.headers
    again = demo.call("GET", path, headers={"Idempotency-Key": key})
    assert again.headers.get("idempotent-replayed") == "true" and again.content == first.content


def test_the_same_key_from_another_organization_or_user_is_a_new_request(
    sim: Simulator, demo: SpecClient, other: SpecClient
) -> None:
    key = S.idempotency_key(S.empty_body_payload("/camera/list"), int(time.time() * 1000))
    mine = demo.call("GET", "/camera/list", headers={"Idempotency-Key": key})
    assert mine.status_code == 200 and {c["orgId"] for c in mine.json()} == {1001}

    theirs = other.call("GET", "/camera/list", headers={"Idempotency-Key": key})
    assert theirs.status_code == 200 and "idempotent-replayed" not in theirs.headers
    assert {c["orgId"] for c in theirs.json()} == {1003}

    # The same user in their other organization: a new request too.
    switched = demo.call("GET", "/camera/list", headers={"Idempotency-Key": key, "OrganizationId": "1002"})
    assert switched.status_code == 200 and "idempotent-replayed" not in switched.headers
    assert {c["orgId"] for c in switched.json()} == {1002}

    # Another organization's id with the demo token: refused (404 as if absent), never replayed.
    refused = demo.call("GET", "/camera/list", headers={"Idempotency-Key": key, "OrganizationId": "1003"})
    assert refused.status_code == 404 and "idempotent-replayed" not in refused.headers

    replay = demo.call("GET", "/camera/list", headers={"Idempotency-Key": key})
    assert replay.headers.get("idempotent-replayed") == "true" and replay.content == mine.content


def test_a_replayed_write_from_another_organization_runs_as_its_own(
    sim: Simulator, other: SpecClient
) -> None:
    # The key is made from the body: the same body and key from two organizations are two requests.
    body = {"phoneNumber": "+90 532 000 00 00"}
    raw = json.dumps(body, separators=(",", ":")).encode()
    key = S.idempotency_key(raw, int(time.time() * 1000))
    with SpecClient(sim.base_url, org=1001) as demo:
        demo.login()
        first = demo.call("POST", "/customer/phone", raw=raw, headers={"Idempotency-Key": key})
    second = other.call("POST", "/customer/phone", raw=raw, headers={"Idempotency-Key": key})
    assert first.status_code == second.status_code == 200
    assert "idempotent-replayed" not in second.headers


# --- inputs the issue names ---------------------------------------------------------------------------------


def test_named_hostile_inputs_answer_4xx_error_bodies(sim: Simulator, demo: SpecClient) -> None:
    token = (demo.token or "").encode()
    auth = [(b"Authorization", b"Bearer " + token), (b"OrganizationId", b"1001")]
    login = b'{"screenName":"demo","password":"d\xc3\xa9mo\xe2\x82\xac"}'
    cases: list[tuple[str, bytes, list[tuple[bytes, bytes]], bytes, int]] = [
        (
            "GET",
            b"/api/camera/list",
            [(b"Authorization", b"Bearer " + token), (b"OrganizationId", "²".encode())],
            b"",
            400,
        ),
        (
            "GET",
            b"/api/camera/list",
            [(b"Authorization", b"Bearer " + token), (b"OrganizationId", b"\xb2")],
            b"",
            400,
        ),
        (
            "GET",
            b"/api/camera/list",
            [(b"Authorization", b"Bearer " + token), (b"OrganizationId", b"9" * 5000)],
            b"",
            400,
        ),
        ("POST", b"/api/auth/login", [(b"Content-Type", b"application/json")], login, 401),
        (
            "GET",
            b"/api/camera/list",
            [(b"Authorization", b"Bearer \x00"), (b"OrganizationId", b"1001")],
            b"",
            400,
        ),
        (
            "GET",
            b"/api/camera/list",
            [(b"Authorization", b"Bearer \xff\xfe"), (b"OrganizationId", b"1001")],
            b"",
            401,
        ),
        ("POST", b"/api/activities", auth, b'{"resourceIds":[' + b"9" * 4000 + b"]}", 400),
        ("POST", b"/api/activities", auth, b'{"resourceIds":[18446744073709551616]}', 400),
        ("POST", b"/api/activities", auth, b'{"page":99999999999999999999999,"pageSize":5}', 400),
        ("POST", b"/api/activities", auth, b'{"startTime":1e400}', 400),
        ("POST", b"/api/activities", auth, b"[" * 100_000 + b"]" * 100_000, 400),
        ("POST", b"/api/activities", auth, b'{"groupIds":"' + b"x" * 900_000 + b'"}', 400),
        ("POST", b"/api/activities", auth, b"\xff\xfe{}", 400),
        ("POST", b"/api/activities", auth, b"{" + b" " * (2 * 1024 * 1024) + b"}", 413),
        ("GET", b"/api/panel/" + b"9" * 30 + b"/sensor/list", auth, b"", 400),
        ("GET", b"/api/panel/" + b"9" * 5000 + b"/sensor/list", auth, b"", 400),
        ("GET", b"/api/activities/controller/list?startTime=" + b"9" * 5000, auth, b"", 400),
        ("GET", b"/api/user/email/%FF%FE", auth, b"", 404),
        ("GET", b"/api/user/email/\xc3\xa9", auth, b"", 400),
        ("DELETE", b"/api/user/delete", auth, b'{"userId":-9223372036854775809}', 400),
        ("DELETE", b"/api/user/delete", auth, b'{"userId":-9223372036854775808}', 404),
    ]
    for method, target, headers, body, status in cases:
        answer = send_raw(sim.port, request_bytes(method, target, headers, body))
        assert answer.status == status, (method, target[:80], answer.status, answer.body[:300])
        assert_clean(answer, target, authenticated=True)


@pytest.mark.parametrize("declared", [2_000_000, 2**63, 10**20])
@pytest.mark.parametrize("target", [b"/api/activities", b"/_sim/faults"])
def test_a_declared_body_above_the_limit_is_refused_from_the_head_alone(
    sim: Simulator, demo: SpecClient, declared: int, target: bytes
) -> None:
    # Only the head is sent; the body never comes. Waiting for it would hold the connection open.
    head = (
        b"POST " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Authorization: Bearer " + (demo.token or "").encode() + b"\r\nOrganizationId: 1001\r\n"
        b"Content-Length: " + str(declared).encode() + b"\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", sim.port), timeout=30) as sock:
        sock.sendall(head)
        chunks = []
        while chunk := sock.recv(65536):  # the end of the stream: the answer is followed by a close
            chunks.append(chunk)
    raw = b"".join(chunks)
    status_line, _, rest = raw.partition(b"\r\n")
    answer = Answer(int(status_line.split(b" ")[1]), {}, rest.partition(b"\r\n\r\n")[2])
    assert answer.status == 413, raw[:300]
    assert answer.json()["error"] == "PAYLOAD_TOO_LARGE" and answer.json()["path"] == target.decode()
    assert_clean(answer, target, authenticated=True)


# --- fuzz ---------------------------------------------------------------------------------------------------

JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
PATH_PARAMS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.text(max_size=30).map(lambda t: quote(t, safe="")),
    st.sampled_from(["7001", "100101", "10011", "100101", "10010101", "demo%40example.com", "..", "%00"]),
)


@st.composite
def operation_requests(draw: st.DrawFn) -> tuple[str, bytes, dict[str, Any] | bytes]:
    method, template, fields = draw(st.sampled_from(OPERATIONS))
    path = template.format(draw(PATH_PARAMS)) if "{}" in template else template
    if draw(st.integers(0, 9)) == 0:
        method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]))
    if fields and draw(st.booleans()):
        body: dict[str, Any] | bytes = draw(
            st.fixed_dictionaries({}, optional={f: JSON_VALUES for f in fields})
        )
    else:
        body = draw(
            st.one_of(st.just(b""), st.binary(max_size=64), JSON_VALUES.map(lambda v: json.dumps(v).encode()))
        )
    return method, ("/api" + path).encode("latin-1"), body


@given(
    request=operation_requests(),
    # Mostly a valid caller, so that the operations themselves (not only the checks) meet the input.
    auth=st.sampled_from(["valid", "valid", "valid", "none", "garbage", "other-org", "huge-org"]),
    keyed=st.sampled_from(["valid", "valid", "none", "garbage"]),
    repeat=st.booleans(),
)
@settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_fuzz_the_21_operations(
    sim: Simulator,
    demo: SpecClient,
    request: tuple[str, bytes, dict[str, Any] | bytes],
    auth: str,
    keyed: str,
    repeat: bool,
) -> None:
    method, target, body = request
    raw = body if isinstance(body, bytes) else json.dumps(body, separators=(",", ":")).encode()
    headers: list[tuple[bytes, bytes]] = [(b"Content-Type", b"application/json")]
    token = (demo.token or "").encode()
    headers += {
        "valid": [(b"Authorization", b"Bearer " + token), (b"OrganizationId", b"1001")],
        "none": [],
        "garbage": [(b"Authorization", b"Bearer \xc2\xb2\x01"), (b"OrganizationId", b"\xb2")],
        "other-org": [(b"Authorization", b"Bearer " + token), (b"OrganizationId", b"1003")],
        "huge-org": [(b"Authorization", b"Bearer " + token), (b"OrganizationId", b"1" * 40)],
    }[auth]
    if keyed != "none":
        payload = raw if raw else target.split(b"?")[0]
        key = S.idempotency_key(payload, int(time.time() * 1000)) if keyed == "valid" else "ZZ" * 8
        headers.append((b"Idempotency-Key", key.encode()))
    message = request_bytes(method, target, headers, raw)
    first = send_raw(sim.port, message)
    assert_clean(first, target, authenticated=auth == "valid")
    if repeat:  # the same request again: a replay, or the same refusal
        assert_clean(send_raw(sim.port, message), target, authenticated=auth == "valid")


@given(
    target=st.binary(min_size=1, max_size=60),
    name=st.binary(min_size=1, max_size=20),
    value=st.binary(max_size=60),
    body=st.binary(max_size=200),
)
@settings(
    max_examples=100,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_fuzz_raw_request_lines_and_header_bytes(
    sim: Simulator, target: bytes, name: bytes, value: bytes, body: bytes
) -> None:
    # Keep one request: no line breaks inside the header line or the target.
    clean = bytes(b for b in value if b not in b"\r\n")
    head = bytes(b for b in name if b not in b"\r\n:") or b"X"
    path = b"/api/" + bytes(b for b in target if b not in b"\r\n ")
    message = request_bytes("POST", path, [(head, clean), (b"OrganizationId", clean)], body)
    assert_clean(send_raw(sim.port, message), path, authenticated=False)
