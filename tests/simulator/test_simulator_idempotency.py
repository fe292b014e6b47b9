"""Each Idempotency-Key rule of decisions.md, live against a simulator in strict mode.

Keys are built with the test-side code of tests/support/spec_client.py, which reproduces the published
vectors (test_simulator_idempotency_vectors.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.support.processes import Simulator, run_simulator
from tests.support.spec_client import SpecClient, compact, key_for


@pytest.fixture(scope="module")
def strict() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", "--require-idempotency-key", seed=11) as sim:
        yield sim


@pytest.fixture
def client(strict: Simulator) -> Iterator[SpecClient]:
    with SpecClient(strict.base_url) as c:
        c.login()
        yield c


def error_of(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["statusCode"] == status and body["path"].startswith("/api/")
    return body["error"]


def test_a_valid_key_is_accepted_for_bodies_and_empty_bodies(client: SpecClient) -> None:
    assert client.call("GET", "/camera/list").status_code == 200
    assert client.call("POST", "/activities", {"page": 1, "pageSize": 1}).status_code == 200


def test_a_missing_key_is_400_in_strict_mode(client: SpecClient, simulator: Simulator) -> None:
    assert error_of(client.call("GET", "/camera/list", key=False), 400) == "IDEMPOTENCY_KEY_REQUIRED"
    # the default (non-strict) simulator accepts it
    with SpecClient(simulator.base_url) as lenient:
        lenient.login()
        assert lenient.call("GET", "/camera/list", key=False).status_code == 200


@pytest.mark.parametrize(
    "header",
    [
        "not-hex-at-all!!",
        "ABCDEF",
        "0123456789ABCDEF0",
        "",
        "ZZZZZZZZZZZZZZZZ",
        "00112233445566778899AABBCCDDEEFF",
    ],
)
def test_a_malformed_key_is_400(client: SpecClient, header: str) -> None:
    response = client.call("GET", "/camera/list", headers={"Idempotency-Key": header})
    assert error_of(response, 400) == "IDEMPOTENCY_KEY_INVALID"


def test_a_key_for_another_payload_is_400(client: SpecClient) -> None:
    body = compact({"page": 1, "pageSize": 1})
    wrong = key_for(compact({"page": 2, "pageSize": 1}))
    response = client.call("POST", "/activities", raw=body, headers={"Idempotency-Key": wrong})
    assert error_of(response, 400) == "IDEMPOTENCY_KEY_INVALID"


# Named ids: the third value depends on the clock, and xdist's workers must collect the same test names.
@pytest.mark.parametrize(
    "age_ms",
    [6 * 60_000, -6 * 60_000, int(time.time() * 1000) - 12345678],
    ids=["6-min-old", "6-min-ahead", "stamp-12345678"],
)
def test_a_stale_stamp_is_400(client: SpecClient, age_ms: int) -> None:
    stamp = int(time.time() * 1000) - age_ms
    header = key_for(b"/api/camera/list", stamp)
    response = client.call("GET", "/camera/list", headers={"Idempotency-Key": header})
    assert error_of(response, 400) == "IDEMPOTENCY_KEY_EXPIRED"


def test_a_stamp_within_five_minutes_is_fresh(client: SpecClient) -> None:
    header = key_for(b"/api/camera/list", int(time.time() * 1000) - 4 * 60_000)
    assert client.call("GET", "/camera/list", headers={"Idempotency-Key": header}).status_code == 200


def test_a_repeated_key_replays_the_first_response_and_executes_once(client: SpecClient) -> None:
    before = len(client.ok("GET", "/camera/list"))
    body = compact({"deviceSerial": "IDEM-0001", "name": "Replay cam", "organizationId": 1001})
    header = key_for(body)
    first = client.call("POST", "/camera/add", raw=body, headers={"Idempotency-Key": header})
    second = client.call("POST", "/camera/add", raw=body, headers={"Idempotency-Key": header})
    assert first.status_code == second.status_code == 200
    assert second.content == first.content
    assert second.headers.get("idempotent-replayed") == "true"
    assert len(client.ok("GET", "/camera/list")) == before + 1
    # a new logical request (fresh key) does execute, and meets the camera the first one added
    assert client.call("POST", "/camera/add", raw=body).status_code == 409


def test_a_failed_first_attempt_is_not_replayed(client: SpecClient) -> None:
    body = compact({"userId": 7001, "requestToken": "tok", "appId": "idem-device"})
    header = key_for(body)
    expired = SpecClient(client.base_url, token="stale-token")
    assert (
        expired.call(
            "POST", "/devicetoken/addorupdate", raw=body, headers={"Idempotency-Key": header}
        ).status_code
        == 401
    )
    retried = client.call("POST", "/devicetoken/addorupdate", raw=body, headers={"Idempotency-Key": header})
    assert retried.status_code == 200 and retried.json()["success"] is True


def test_the_raw_percent_encoded_path_is_hashed(client: SpecClient) -> None:
    raw = "/user/email/demo%40example.com"
    ok = client.call("GET", raw, headers={"Idempotency-Key": key_for(b"/api" + raw.encode())})
    assert ok.status_code == 200 and ok.json()["screenName"] == "demo"
    decoded = key_for(b"/api/user/email/demo@example.com")
    response = client.call("GET", raw, headers={"Idempotency-Key": decoded})
    assert error_of(response, 400) == "IDEMPOTENCY_KEY_INVALID"


def test_the_query_string_is_not_hashed(client: SpecClient) -> None:
    header = key_for(b"/api/activities/controller/list")
    response = client.call(
        "GET", "/activities/controller/list", params={"startTime": 0}, headers={"Idempotency-Key": header}
    )
    assert response.status_code == 200


def test_the_key_covers_the_exact_bytes_sent(client: SpecClient) -> None:
    spaced = b'{"page": 1, "pageSize": 1}'
    assert client.call("POST", "/activities", raw=spaced).status_code == 200
    compact_key = key_for(compact({"page": 1, "pageSize": 1}))
    response = client.call("POST", "/activities", raw=spaced, headers={"Idempotency-Key": compact_key})
    assert error_of(response, 400) == "IDEMPOTENCY_KEY_INVALID"


def test_login_needs_a_key_too(client: SpecClient) -> None:
    body = {"screenName": "demo", "password": "demo", "rememberMe": False}
    assert (
        error_of(client.call("POST", "/auth/login", body, auth=False, key=False), 400)
        == "IDEMPOTENCY_KEY_REQUIRED"
    )
    assert client.call("POST", "/auth/login", body, auth=False).status_code == 200


def test_server_side_verification_matches_the_vectors() -> None:
    """The simulator's own decoder, as a function, on the published vectors."""
    from simulator.idempotency import decrypt_stamp
    from tests.simulator.test_simulator_idempotency_vectors import VECTORS, payload_of

    for vector in VECTORS:
        assert decrypt_stamp(vector["header"], payload_of(vector)) == vector["epoch_ms"]


def test_concurrent_repeats_of_one_key_execute_once(client: SpecClient) -> None:
    before = len(client.ok("GET", "/camera/list"))
    body = compact({"deviceSerial": "IDEM-RACE", "name": "Race cam", "organizationId": 1001})
    headers = {**client.headers(body), "Idempotency-Key": key_for(body)}

    def send(_: int) -> httpx.Response:
        return httpx.post(client.base_url + "/camera/add", content=body, headers=headers, timeout=30)

    with ThreadPoolExecutor(max_workers=4) as pool:
        responses = list(pool.map(send, range(4)))
    assert [r.status_code for r in responses] == [200] * 4
    assert len({r.content for r in responses}) == 1
    assert sum(r.headers.get("idempotent-replayed") == "true" for r in responses) == 3
    assert len(client.ok("GET", "/camera/list")) == before + 1
