"""The client's transport against a misbehaving stand-in service: a tiny scripted HTTP server on a free
loopback port that answers garbage, truncates, drops connections, throttles and fails on purpose."""

from __future__ import annotations

import hashlib
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from Crypto.Cipher import DES3

from core.client import SamClient
from core.errors import (
    APIError,
    AuthenticationError,
    BadRequestError,
    NotFoundError,
    RateLimitError,
    ResponseFormatError,
    ServerError,
    TransportError,
)
from core.models import CameraSummary
from core.settings import Settings
from tests.support.http_stub import QuietHandler, StubServer

PASSWORD = "pa55-word-never-logged"
TOKEN = "tok-en-never-logged"
LOGIN = {"token": TOKEN, "mqPassword": "mq-secret-never-logged", "organizations": [{"name": "o", "id": "5"}]}


@dataclass
class Reply:
    status: int = 200
    body: bytes | str | object = b"[]"
    headers: dict[str, str] = field(default_factory=dict)
    mode: str = "normal"  # normal | drop (close without answering) | truncate (promise more bytes) | slow


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    authorization: list[str] = field(default_factory=list)  # every Authorization header, repeats too


class FakeService:
    """Answers /api/auth/login with LOGIN, and everything else from a script (then `200 []`)."""

    def __init__(self) -> None:
        self.script: list[Reply] = []
        self.seen: list[Seen] = []
        self.logins = 0
        self.tokens: list[str] = []  # tokens for the next logins, in turn (then TOKEN)
        self.lock = threading.Lock()
        self.server = StubServer(self._handler())
        self.base_url = self.server.base_url

    def next_reply(self, path: str) -> Reply:
        with self.lock:
            if path == "/api/auth/login":
                self.logins += 1
                return Reply(body=LOGIN | {"token": self.tokens.pop(0)} if self.tokens else LOGIN)
            return self.script.pop(0) if self.script else Reply()

    def _handler(self) -> type[QuietHandler]:
        service = self

        class Handler(QuietHandler):
            def serve(self, body: bytes) -> None:
                with service.lock:
                    auth = self.headers.get_all("Authorization") or []
                    service.seen.append(Seen(self.command, self.path, dict(self.headers), body, auth))
                reply = service.next_reply(self.path)
                if reply.mode == "drop":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if reply.mode == "slow":
                    time.sleep(1.0)
                data = reply.body
                if not isinstance(data, bytes | str):
                    data = json.dumps(data)
                data = data.encode() if isinstance(data, str) else data
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                promised = len(data) + 100 if reply.mode == "truncate" else len(data)
                self.send_header("Content-Length", str(promised))
                self.end_headers()
                self.wfile.write(data)
                if reply.mode == "truncate":
                    self.close_connection = True

        return Handler


@pytest.fixture
def service() -> Iterator[FakeService]:
    fake = FakeService()
    fake.server.start()
    yield fake
    fake.server.stop()


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def client(service: FakeService, sleeps: list[float]) -> Iterator[SamClient]:
    with SamClient(settings_for(service), sleep=sleeps.append) as sam:
        yield sam


def settings_for(service: FakeService, **overrides: object) -> Settings:
    values: dict = {"password": PASSWORD, "max_retries": 2, "timeout": 5.0, "organization_id": None}
    return Settings(_env_file=None, base_url=service.base_url, **(values | overrides))


def api_requests(service: FakeService) -> list[Seen]:
    return [s for s in service.seen if s.path != "/api/auth/login"]


def test_success_sends_auth_org_and_key_and_parses_models(client: SamClient, service: FakeService) -> None:
    service.script = [Reply(body=[{"resourceId": 1, "name": "cam", "status": "online", "extra": 1}])]
    cameras = client.list_cameras()
    # extra="allow": the model takes a field its synthesized __init__ (pydantic's) does not list.
    assert cameras == [CameraSummary(resource_id=1, name="cam", status="online", extra=1)]  # pyright: ignore[reportCallIssue]
    (seen,) = api_requests(service)
    assert (seen.method, seen.path) == ("GET", "/api/camera/list")
    assert seen.headers["Authorization"] == f"Bearer {TOKEN}"
    assert seen.headers["OrganizationId"] == "5"  # the login's first organization
    assert len(seen.headers["Idempotency-Key"]) == 32


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply(body=b"<html>oops</html>", headers={"Content-Type": "text/html"}), "not valid JSON"),
        (Reply(body=b""), "empty response body"),
        (Reply(body=b'[{"resourceId": 1, "na'), "not valid JSON"),
        (Reply(body={"not": "a list"}), "does not match the spec"),
    ],
    ids=["html", "empty", "cut-json", "wrong-shape"],
)
def test_bad_success_bodies_raise_response_format_error(
    client: SamClient, service: FakeService, reply: Reply, expected: str
) -> None:
    service.script = [reply]
    with pytest.raises(ResponseFormatError, match=expected) as caught:
        client.list_cameras()
    assert "(GET /api/camera/list)" in str(caught.value)
    assert len(api_requests(service)) == 1  # a well-delivered bad answer is not retried


def test_truncated_transfer_is_retried_then_reported(
    client: SamClient, service: FakeService, sleeps: list[float]
) -> None:
    service.script = [Reply(body=b"[]", mode="truncate")] * 3
    with pytest.raises(ResponseFormatError, match="truncated") as caught:
        client.list_cameras()
    assert caught.value.status_code == 200
    assert len(api_requests(service)) == 3 and len(sleeps) == 2


@pytest.mark.parametrize(
    ("status", "cls", "name"),
    [
        (400, BadRequestError, "VALIDATION_FAILED"),
        (404, NotFoundError, "NOT_FOUND"),
        (500, ServerError, "INTERNAL"),
        (409, APIError, "CONFLICT"),
    ],
)
def test_error_bodies_become_typed_errors_without_retry(
    client: SamClient, service: FakeService, sleeps: list[float], status: int, cls: type, name: str
) -> None:
    body = {"statusCode": status, "error": name, "message": "userId: unknown", "path": "/api/user/delete"}
    service.script = [Reply(status=status, body=body)]
    with pytest.raises(cls) as caught:
        client.delete_user(42)
    error = caught.value
    assert type(error) is cls
    assert (error.status_code, error.error, error.message, error.path) == (
        status,
        name,
        "userId: unknown",
        body["path"],
    )
    assert str(error) == f"{status} {name}: userId: unknown (DELETE /api/user/delete)"
    assert len(api_requests(service)) == 1 and sleeps == []


def test_retryable_statuses_back_off_and_keep_the_same_key(
    client: SamClient, service: FakeService, sleeps: list[float]
) -> None:
    service.script = [
        Reply(status=503, body={"statusCode": 503}),
        Reply(status=502, body=b"<html>"),
        Reply(body={}),
    ]
    assert client.add_camera(device_serial="S1", name="cam").to_json_dict() == {}
    first, second, third = api_requests(service)
    assert (
        first.headers["Idempotency-Key"]
        == second.headers["Idempotency-Key"]
        == third.headers["Idempotency-Key"]
    )
    assert first.body == second.body == third.body == b'{"deviceSerial":"S1","name":"cam"}'
    assert 0.25 <= sleeps[0] <= 0.5 and 0.5 <= sleeps[1] <= 1.0


def test_retries_stop_after_max_retries(client: SamClient, service: FakeService, sleeps: list[float]) -> None:
    service.script = [Reply(status=504, body={"statusCode": 504, "error": "GATEWAY_TIMEOUT"})] * 5
    with pytest.raises(ServerError, match="504 GATEWAY_TIMEOUT"):
        client.list_cameras()
    assert len(api_requests(service)) == 3 and len(sleeps) == 2


def test_retry_after_is_honoured_up_to_a_cap(
    client: SamClient, service: FakeService, sleeps: list[float]
) -> None:
    throttled = {"statusCode": 429, "error": "RATE_LIMITED", "message": "slow down"}
    service.script = [
        Reply(status=429, body=throttled, headers={"Retry-After": "3"}),
        Reply(status=429, body=throttled, headers={"Retry-After": "86400"}),
    ]
    client.list_cameras()
    assert sleeps == [3.0, 30.0]


def test_rate_limit_error_after_retries_carries_retry_after(client: SamClient, service: FakeService) -> None:
    service.script = [Reply(status=429, body={"statusCode": 429}, headers={"Retry-After": "2"})] * 3
    with pytest.raises(RateLimitError) as caught:
        client.list_cameras()
    assert caught.value.retry_after == 2.0


def test_dropped_connections_become_transport_errors(
    client: SamClient, service: FakeService, sleeps: list[float]
) -> None:
    service.script = [Reply(mode="drop")] * 3
    with pytest.raises(TransportError, match=r"network error.*\(GET /api/camera/list\)"):
        client.list_cameras()
    assert len(api_requests(service)) == 3


def test_a_dropped_connection_is_retried_transparently(client: SamClient, service: FakeService) -> None:
    service.script = [Reply(mode="drop"), Reply(body=[{"resourceId": 9}])]
    assert client.list_cameras()[0].resource_id == 9


def test_timeouts_become_transport_errors(service: FakeService) -> None:
    with SamClient(settings_for(service, max_retries=0, timeout=0.3)) as sam:
        sam.login()
        service.script = [Reply(mode="slow")]
        with pytest.raises(TransportError, match="timed out"):
            sam.list_cameras()


def test_refused_connection_is_a_transport_error(sleeps: list[float]) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        settings = Settings(_env_file=None, base_url=f"http://127.0.0.1:{port}/api", max_retries=1)
        with SamClient(settings, sleep=sleeps.append) as sam, pytest.raises(TransportError):
            sam.login()
    assert len(sleeps) == 1


def test_401_logs_in_again_once_and_repeats(client: SamClient, service: FakeService) -> None:
    unauthorized = Reply(status=401, body={"statusCode": 401, "error": "UNAUTHORIZED", "message": "expired"})
    service.script = [unauthorized, Reply(body=[{"resourceId": 3}])]
    assert client.list_cameras()[0].resource_id == 3
    assert service.logins == 2
    first, second = api_requests(service)
    assert first.headers["Idempotency-Key"] == second.headers["Idempotency-Key"]
    service.script = [unauthorized, unauthorized]
    with pytest.raises(AuthenticationError, match="401 UNAUTHORIZED: expired"):
        client.list_cameras()
    assert service.logins == 3


def test_the_repeat_after_a_401_carries_only_the_new_token(service: FakeService) -> None:
    # One request is built per call and re-sent by every attempt: the new login's token must replace the
    # rejected one on it, not sit beside it, and the key stays the call's.
    service.tokens = ["tok-first-never-logged", "tok-second-never-logged"]
    unauthorized = Reply(status=401, body={"statusCode": 401, "error": "UNAUTHORIZED", "message": "expired"})
    service.script = [unauthorized, Reply(status=503), Reply(body=[{"resourceId": 3}])]
    with SamClient(settings_for(service), sleep=lambda _: None) as sam:
        assert sam.list_cameras()[0].resource_id == 3
    rejected, throttled, served = api_requests(service)
    assert rejected.authorization == ["Bearer tok-first-never-logged"]
    assert throttled.authorization == served.authorization == ["Bearer tok-second-never-logged"]
    assert len({s.headers["Idempotency-Key"] for s in (rejected, throttled, served)}) == 1


def test_each_call_to_a_path_gets_its_own_org_and_key(client: SamClient, service: FakeService) -> None:
    # The URL of a path is kept between calls; the headers are each call's own.
    client.list_cameras(org=77)
    time.sleep(0.002)  # the key's stamp is in milliseconds
    client.list_cameras(org=78)
    first, second = api_requests(service)
    assert (first.path, first.headers["OrganizationId"]) == ("/api/camera/list", "77")
    assert (second.path, second.headers["OrganizationId"]) == ("/api/camera/list", "78")
    assert first.headers["Idempotency-Key"] != second.headers["Idempotency-Key"]


def test_org_keyword_overrides_the_default(client: SamClient, service: FakeService) -> None:
    client.list_cameras(org=77)
    assert api_requests(service)[-1].headers["OrganizationId"] == "77"


def test_email_path_parameter_is_percent_encoded_and_hashed_as_sent(
    client: SamClient, service: FakeService
) -> None:
    import hashlib

    from Crypto.Cipher import DES3

    service.script = [Reply(body={"userId": 1})]
    client.get_user_by_email("a+b/c@example.com")
    seen = api_requests(service)[0]
    assert seen.path == "/api/user/email/a%2Bb%2Fc%40example.com"
    key = hashlib.sha256(seen.path.encode()).digest()[:24]
    stamp = DES3.new(key, DES3.MODE_ECB).decrypt(bytes.fromhex(seen.headers["Idempotency-Key"]))
    assert stamp.isdigit() and abs(int(stamp) - time.time() * 1000) < 60_000


def test_debug_logs_name_the_call_and_never_a_secret(
    client: SamClient, service: FakeService, caplog: pytest.LogCaptureFixture
) -> None:
    service.script = [Reply(status=503, body={"statusCode": 503}), Reply(body={})]
    with caplog.at_level(logging.DEBUG):
        client.add_camera(
            device_serial="S", name="n", security_code="SEC-never-logged", nc_code="NC-never-logged"
        )
    messages = [r.getMessage() for r in caplog.records if r.name == "samops.client"]
    assert any(m.startswith("POST /api/auth/login -> 200") for m in messages)
    assert any("POST /api/camera/add -> 503" in m and "(attempt 1/3)" in m for m in messages)
    assert any("POST /api/camera/add -> 200" in m and "(attempt 2/3)" in m for m in messages)
    for secret in (PASSWORD, TOKEN, "mq-secret-never-logged", "SEC-never-logged", "NC-never-logged"):
        assert secret not in caplog.text


@pytest.mark.parametrize(
    "text",
    [
        "Kapı sensörü İç Şube (ş ğ ü ö ç ı İ)",
        'quote " and back\\slash',
        "emoji 🚨 and tab\t",
        "\u2028 line sep",
    ],
)
def test_body_bytes_sent_are_the_bytes_hashed(client: SamClient, service: FakeService, text: str) -> None:
    service.script = [Reply(body={"success": True})]
    client.update_sensor_description(5001, text, locale="tr")
    seen = api_requests(service)[0]
    assert seen.path == "/api/panel/sensor/5001/update-description" and seen.method == "PUT"
    assert json.loads(seen.body) == {"locale": "tr", "description": text}
    assert b", " not in seen.body and b'": ' not in seen.body  # compact, like JSON.stringify
    assert b"\\u" not in seen.body  # UTF-8 as is, no \u escapes (ensure_ascii=False)
    key = hashlib.sha256(seen.body).digest()[:24]
    stamp = DES3.new(key, DES3.MODE_ECB).decrypt(bytes.fromhex(seen.headers["Idempotency-Key"]))
    assert stamp.isdigit()
