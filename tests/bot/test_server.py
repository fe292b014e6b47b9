"""The bot's HTTP front (`bot/server.py`: bolt's ASGI adapter under uvicorn) against hostile clients.

`samops bot` runs as a real process on a free port; requests are real HTTP, signed (or not) the way Slack
signs them. Every refusal must be a 4xx with no traceback in the answer or at ERROR in the log.
"""

from __future__ import annotations

import json
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.bot import SIGNING_SECRET, BotProcess, run_bot, slack_signature
from tests.support.slack_standin import SlackStandIn

REQUEST_TIMEOUT_S = 1.0  # the bot's --request-timeout here, so half-sent requests are cut quickly
CUT_WITHIN_S = 15.0  # generous: only "cut at all, not held forever" is checked


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory, slack: SlackStandIn) -> Iterator[BotProcess]:
    args = ("--request-timeout", str(REQUEST_TIMEOUT_S))
    with run_bot(tmp_path_factory.mktemp("front"), slack, args=args) as process:
        yield process


def error_lines(bot: BotProcess) -> list[str]:
    return [line for line in bot.output().splitlines() if " ERROR " in line or " CRITICAL " in line]


def assert_clean(bot: BotProcess, response: httpx.Response | None = None) -> None:
    if response is not None:
        assert response.status_code < 500, response.text
        assert "Traceback" not in response.text
    assert "Traceback" not in bot.output()
    assert error_lines(bot) == []


def raw_exchange(bot: BotProcess, data: bytes, wait: float = CUT_WITHIN_S) -> tuple[bytes, float]:
    """Send `data` on a fresh connection and read until the server closes it; what came back and when."""
    host, port = bot.root_url.removeprefix("http://").split(":")
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=wait) as conn:
        conn.sendall(data)
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    return received, time.monotonic() - started


# -- the front's own answers ---------------------------------------------------------------------------------


def test_healthz_and_unknown_paths(bot: BotProcess) -> None:
    health = bot.http.get(f"{bot.root_url}/healthz")
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    assert bot.http.head(f"{bot.root_url}/healthz").status_code == 200
    assert bot.http.get(f"{bot.root_url}/nope").status_code == 404
    assert bot.http.get(bot.url).status_code == 405
    assert_clean(bot)


# -- signature first ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("timestamp", "body", "content_type"),
    [
        ("abc", b"command=%2Fsam&text=help", "application/x-www-form-urlencoded"),
        ("", b"command=%2Fsam&text=help", "application/x-www-form-urlencoded"),
        ("1795384509.5", b"command=%2Fsam&text=help", "application/x-www-form-urlencoded"),
        ("99999999999999999999999", b"x=1", "application/x-www-form-urlencoded"),
        (None, b"payload=x", "application/x-www-form-urlencoded"),
        (None, b"{not json}", "application/json"),
        (None, b"\xff\xfe\x00garbage", "application/x-www-form-urlencoded"),
        ("now", b"\xff\xfe\x00signed-but-not-utf-8", "application/json"),
    ],
)
def test_unsigned_and_malformed_requests_get_401(
    bot: BotProcess, timestamp: str | None, body: bytes, content_type: str
) -> None:
    headers = {"Content-Type": content_type, "X-Slack-Signature": "v0=" + "0" * 64}
    if timestamp == "now":  # HMAC over the raw bytes, as a forger would
        timestamp = str(int(time.time()))
        headers["X-Slack-Signature"] = slack_signature(SIGNING_SECRET, timestamp, body)
    if timestamp is not None:
        headers["X-Slack-Request-Timestamp"] = timestamp
    response = bot.http.post(bot.url, content=body, headers=headers)
    assert response.status_code == 401
    assert_clean(bot, response)


def test_missing_forged_and_stale_signatures_get_401(bot: BotProcess) -> None:
    body = urlencode(bot.command_form("help", user="U1")).encode()
    assert bot.http.post(bot.url, content=body).status_code == 401
    stamp = int(time.time())
    forged = slack_signature("not-the-secret", str(stamp), body)
    assert bot.post_signed(body, timestamp=stamp, signature=forged).status_code == 401
    assert bot.post_signed(body, timestamp=stamp - 600).status_code == 401  # signed, but 10 min old
    odd = {"X-Slack-Request-Timestamp": str(stamp), "X-Slack-Signature": "v0=ünïcode".encode()}
    assert bot.http.post(bot.url, content=body, headers=odd).status_code == 401
    assert_clean(bot)


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"payload=x", "application/x-www-form-urlencoded"),
        (b"payload=%5B1%2C2%5D", "application/x-www-form-urlencoded"),
        (b"{not json}", "application/json"),
    ],
)
def test_signed_but_unreadable_bodies_get_400(bot: BotProcess, body: bytes, content_type: str) -> None:
    response = bot.post_signed(body, content_type=content_type)
    assert response.status_code == 400
    assert_clean(bot, response)


def test_a_signed_command_still_works(bot: BotProcess) -> None:
    result = bot.send_command("help", user="U_SOMEONE")
    assert result.status == 200 and "/sam" in result.text


# -- size and time limits -----------------------------------------------------------------------------------


def test_a_20_mb_body_gets_413_without_being_read(bot: BotProcess) -> None:
    head = (
        "POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {20 * 1024 * 1024}\r\nX-Slack-Request-Timestamp: {int(time.time())}\r\n"
        "X-Slack-Signature: v0=00\r\n\r\n"
    ).encode()
    answer, _ = raw_exchange(bot, head + b"payload=" + b"x" * 1000)
    assert answer.startswith(b"HTTP/1.1 413")
    assert_clean(bot)


def test_a_chunked_body_over_the_limit_gets_413(bot: BotProcess) -> None:
    chunk = b"x" * 65536
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(20)) + b"0\r\n\r\n"
    head = (
        b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Type: application/json\r\n\r\n"
    )
    answer, _ = raw_exchange(bot, head + body)
    assert answer.startswith(b"HTTP/1.1 413")
    assert_clean(bot)


def test_a_half_sent_body_gets_408_and_the_connection_is_closed(bot: BotProcess) -> None:
    head = (
        b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n"
    )
    answer, took = raw_exchange(bot, head + b'{"half": ')
    assert answer.startswith(b"HTTP/1.1 408")
    assert REQUEST_TIMEOUT_S <= took < CUT_WITHIN_S
    assert_clean(bot)


def test_a_half_sent_head_is_closed(bot: BotProcess) -> None:
    answer, took = raw_exchange(bot, b"POST /slack/events HTTP/1.1\r\nHost: bot\r\n")
    assert answer == b"" and REQUEST_TIMEOUT_S <= took < CUT_WITHIN_S
    assert_clean(bot)


def test_a_head_sent_one_byte_at_a_time_is_still_cut(bot: BotProcess) -> None:
    host, port = bot.root_url.removeprefix("http://").split(":")
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=CUT_WITHIN_S) as conn:
        closed = False
        for byte in b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nX-Slow: " + b"a" * 200:
            try:
                conn.sendall(bytes([byte]))
            except OSError:  # the server closed it: what we wanted
                closed = True
                break
            time.sleep(0.1)
        if not closed:
            conn.settimeout(CUT_WITHIN_S)
            assert conn.recv(100) == b""
    assert time.monotonic() - started < CUT_WITHIN_S
    assert_clean(bot)


def test_an_idle_connection_is_closed(bot: BotProcess) -> None:
    answer, took = raw_exchange(bot, b"")
    assert answer == b"" and took < CUT_WITHIN_S


# -- signed payloads of the wrong shape (bolt's routing would trip on them: bot/envelope.py) ----------------

BLOCK_ACTIONS = {
    "type": "block_actions",
    "user": {"id": "U_SOMEONE"},
    "team": {"id": "T1"},
    "response_url": "http://127.0.0.1:9/respond",
    "actions": [{"action_id": "alarm_ack", "block_id": "b", "type": "button", "value": "EV-1"}],
}
VIEW_SUBMISSION = {
    "type": "view_submission",
    "user": {"id": "U_SOMEONE"},
    "team": {"id": "T1"},
    "view": {
        "id": "V1",
        "type": "modal",
        "callback_id": "task_update",
        "private_metadata": "{}",
        "state": {},
    },
}


def post_payload(bot: BotProcess, payload: object) -> httpx.Response:
    return bot.post_signed(urlencode({"payload": json.dumps(payload)}).encode())


@pytest.mark.parametrize(
    "payload",
    [
        {**BLOCK_ACTIONS, "actions": "x"},
        {**BLOCK_ACTIONS, "actions": []},
        {**BLOCK_ACTIONS, "actions": [{"value": "no action id"}]},
        {**BLOCK_ACTIONS, "user": None},
        {**BLOCK_ACTIONS, "response_url": "file:///etc/passwd"},
        {**VIEW_SUBMISSION, "view": {"id": "V1", "callback_id": "task_update"}},
        {**VIEW_SUBMISSION, "view": "x"},
        {"type": 7},
        ["not", "an", "object"],
    ],
)
def test_signed_payloads_of_the_wrong_shape_get_400(bot: BotProcess, payload: object) -> None:
    response = post_payload(bot, payload)
    assert response.status_code == 400, response.text
    assert_clean(bot, response)


JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=6,
)


def _replace(value: object, path: list[str | int], new: object) -> object:
    """A copy of `value` with the piece at `path` (as far as it exists) replaced by `new`."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict) and head in value:
        return {**value, head: _replace(value[head], rest, new)}
    if isinstance(value, list) and isinstance(head, int) and head < len(value):
        return [_replace(v, rest, new) if i == head else v for i, v in enumerate(value)]
    return new


PATHS: list[list[str | int]] = [
    ["type"], ["user"], ["user", "id"], ["actions"], ["actions", 0], ["actions", 0, "action_id"],
    ["actions", 0, "value"], ["response_url"], ["view"], ["view", "type"], ["view", "private_metadata"],
    ["view", "state"], ["team"],
]  # fmt: skip


@settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(base=st.sampled_from([BLOCK_ACTIONS, VIEW_SUBMISSION]), path=st.sampled_from(PATHS), new=JSON_VALUE)
def test_fuzz_signed_payloads_with_a_piece_replaced_never_get_a_500(
    bot: BotProcess, base: dict[str, object], path: list[str | int], new: object
) -> None:
    response = post_payload(bot, _replace(base, path, new))
    assert response.status_code < 500, (response.status_code, response.text)
    assert "Traceback" not in response.text


# -- random requests (hypothesis; a fixed seed and a bounded number of examples) ----------------------------

CONTENT_TYPES = st.sampled_from(
    ["application/x-www-form-urlencoded", "application/json", "text/plain", "", "multipart/form-data; x"]
)
TEXT = st.text(max_size=40)
FORM_BODY = st.dictionaries(
    st.sampled_from(["payload", "command", "text", "type", "user_id", "x"]), TEXT, max_size=4
).map(lambda d: urlencode(d).encode())
JSON_BODY = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
).map(lambda v: json.dumps(v).encode())
BODIES = st.one_of(st.binary(max_size=300), FORM_BODY, JSON_BODY)
TIMESTAMPS = st.one_of(
    st.just("now"), st.just("stale"), st.text(max_size=15), st.integers().map(str), st.floats().map(str)
)


@settings(
    max_examples=80,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=BODIES, content_type=CONTENT_TYPES, timestamp=TIMESTAMPS, signed=st.booleans())
def test_fuzz_random_requests_never_get_a_500_or_a_traceback(
    bot: BotProcess, body: bytes, content_type: str, timestamp: str, signed: bool
) -> None:
    now = int(time.time())
    stamp = {"now": str(now), "stale": str(now - 3600)}.get(timestamp, timestamp)
    signature = slack_signature(SIGNING_SECRET, stamp, body) if signed else "v0=" + "ab" * 32
    headers = {b"X-Slack-Request-Timestamp": stamp.encode(), b"X-Slack-Signature": signature.encode()}
    if content_type:
        headers[b"Content-Type"] = content_type.encode()
    try:
        response = bot.http.post(bot.url, content=body, headers=headers)
    except httpx.LocalProtocolError:
        return  # a header httpx itself will not send (a newline in it, say)
    assert response.status_code < 500, (response.status_code, response.text)
    assert "Traceback" not in response.text
    if not (signed and timestamp == "now"):
        assert response.status_code == 401


def test_the_fuzz_left_no_error_in_the_log(bot: BotProcess) -> None:
    assert_clean(bot)


# -- local mode and shutdown --------------------------------------------------------------------------------


def test_local_mode_answers_through_response_url(tmp_path: Path, slack: SlackStandIn) -> None:
    with run_bot(tmp_path, slack, token=None) as local:
        result = local.send_command("help", user="U_LOCAL")
        assert result.status == 200 and "/sam" in result.text


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_and_sigint_stop_gracefully_after_answering(
    tmp_path: Path, slack: SlackStandIn, sig: signal.Signals
) -> None:
    with run_bot(tmp_path, slack) as bot:
        form = bot.command_form("help", user="U_LAST")
        name = form["response_url"].rsplit("/", 1)[1]
        assert bot.post_signed(urlencode(form).encode()).status_code == 200
        bot.proc.send_signal(sig)
        assert bot.proc.wait(timeout=30) == 0
        assert slack.responses(name), "the command acknowledged before the signal was not answered"
        assert "Traceback" not in bot.output()
