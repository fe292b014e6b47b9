"""A stand-in for Slack's servers: a loopback HTTP server that speaks enough of the Web API and of
`response_url` for the bot and the notifier, and records everything it receives.

It is the only stand-in the tests use. Point the bot at it with `SLACK_API_URL=standin.api_url`; give slash
commands `standin.response_url()` as their `response_url`.

    with SlackStandIn(channels={"C_ALARMS"}) as slack:
        ...
        slack.wait_for(lambda: slack.calls_to("chat.postMessage"))
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

# Form fields that Slack clients send as JSON strings.
_JSON_FIELDS = ("blocks", "attachments", "view", "metadata")

BOT_USER_ID = "U_SAMOPS_BOT"
TEAM_ID = "T_SAMOPS"


@dataclass
class Call:
    """One request received: a Web API method (`chat.postMessage`) or `response_url:<id>`."""

    method: str
    params: dict[str, Any]
    headers: dict[str, str]
    at: float = field(default_factory=time.time)
    status: int = 200  # what the stand-in answered


class SlackStandIn:
    def __init__(self, channels: set[str] | None = None, host: str = "127.0.0.1") -> None:
        """`channels`: if given, posting anywhere else answers `channel_not_found`, as Slack does for a
        channel the bot is not in."""
        self.channels = channels
        self.calls: list[Call] = []
        self._lock = threading.Lock()
        self._throttles: dict[str, list[int]] = {}  # method -> [remaining, retry_after]
        self._ts = itertools.count(1)
        self._server = ThreadingHTTPServer((host, 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # -- lifecycle ---------------------------------------------------------------------------------------

    def start(self) -> SlackStandIn:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> SlackStandIn:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def root_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def api_url(self) -> str:
        """The Web API base URL, with its trailing slash, as slack_sdk expects."""
        return f"{self.root_url}/api/"

    def response_url(self, name: str = "r1") -> str:
        return f"{self.root_url}/response/{name}"

    # -- what tests inspect and control ------------------------------------------------------------------

    def calls_to(self, method: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method and c.status == 200]

    def responses(self, name: str | None = None) -> list[Call]:
        """Messages sent to response URLs (all, or those of one name)."""
        with self._lock:
            return [
                c
                for c in self.calls
                if c.method.startswith("response_url:")
                and (name is None or c.method == f"response_url:{name}")
            ]

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Poll `predicate` until it returns something truthy; return that, or raise TimeoutError."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            result = predicate()
            if result:
                return result
            time.sleep(0.02)
        raise TimeoutError(
            f"condition not met within {timeout} s; calls so far: {[c.method for c in self.calls]}"
        )

    def throttle(self, method: str, times: int = 1, retry_after: int = 1) -> None:
        """Answer the next `times` calls of `method` with 429 and `Retry-After`, as Slack's limiter does."""
        with self._lock:
            self._throttles[method] = [times, retry_after]

    def clear(self) -> None:
        with self._lock:
            self.calls.clear()

    # -- the server --------------------------------------------------------------------------------------

    def _answer(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any]]:
        with self._lock:
            throttle = self._throttles.get(method)
            if throttle and throttle[0] > 0:
                throttle[0] -= 1
                return 429, {"Retry-After": str(throttle[1])}, {"ok": False, "error": "ratelimited"}
        if method.startswith("response_url:"):
            return 200, {}, {"ok": True}
        channel = params.get("channel")
        if channel and self.channels is not None and channel not in self.channels:
            return 200, {}, {"ok": False, "error": "channel_not_found"}
        return 200, {}, self._result(method, params)

    def _result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        ts = f"{int(time.time())}.{next(self._ts):06d}"
        if method == "auth.test":
            return {"ok": True, "url": "https://samops.slack.invalid/", "team": "samops", "user": "samops",
                    "team_id": TEAM_ID, "user_id": BOT_USER_ID, "bot_id": "B_SAMOPS"}  # fmt: skip
        if method in {"chat.postMessage", "chat.postEphemeral"}:
            message = {"text": params.get("text"), "blocks": params.get("blocks"), "ts": ts}
            return {
                "ok": True,
                "channel": params.get("channel"),
                "ts": ts,
                "message_ts": ts,
                "message": message,
            }
        if method == "chat.update":
            return {
                "ok": True,
                "channel": params.get("channel"),
                "ts": params.get("ts"),
                "text": params.get("text"),
            }
        if method in {"views.open", "views.update", "views.push", "views.publish"}:
            view = dict(params.get("view") or {})
            view.setdefault("id", f"V{next(self._ts):08d}")
            return {"ok": True, "view": view}
        if method == "conversations.info":
            channel = params.get("channel")
            return {"ok": True, "channel": {"id": channel, "name": str(channel).lower(), "is_member": True}}
        if method == "usergroups.users.list":
            return {"ok": True, "users": []}
        return {"ok": True}

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                self._handle()

            def do_POST(self) -> None:
                self._handle()

            def _handle(self) -> None:
                url = urlparse(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                params = _parse_params(raw, self.headers.get("Content-Type", ""), url.query)
                if url.path.startswith("/api/"):
                    method = url.path.removeprefix("/api/")
                elif url.path.startswith("/response/"):
                    method = "response_url:" + url.path.removeprefix("/response/")
                else:
                    self.send_error(404)
                    return
                status, headers, body = standin._answer(method, params)
                with standin._lock:
                    standin.calls.append(Call(method, params, dict(self.headers.items()), status=status))
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

        return Handler


def _parse_params(raw: bytes, content_type: str, query: str) -> dict[str, Any]:
    params: dict[str, Any] = {k: v[-1] for k, v in parse_qs(query).items()}
    if "json" in content_type and raw:
        params.update(json.loads(raw))
    elif raw:
        params.update({k: v[-1] for k, v in parse_qs(raw.decode()).items()})
    for name in _JSON_FIELDS:
        if isinstance(params.get(name), str):
            with contextlib.suppress(ValueError):
                params[name] = json.loads(params[name])
    return params
