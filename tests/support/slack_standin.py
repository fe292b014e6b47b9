"""A stand-in for Slack's servers: a loopback HTTP server that speaks enough of the Web API and of
`response_url` for the bot and the notifier, and records everything it receives.

It is the only stand-in the tests use. Point the bot at it with `SLACK_API_URL=standin.api_url`; give slash
commands `standin.response_url()` as their `response_url` and `standin.trigger_id()` as their `trigger_id`.

    with SlackStandIn(channels={"C_ALARMS"}) as slack:
        ...
        slack.wait_for(lambda: slack.calls_to("chat.postMessage"))

What it enforces, as Slack does:
- a token on every Web API call (`not_authed`), of the right type (`not_allowed_token_type`: a bot token for
  the Web API, an app-level `xapp-` token for `apps.connections.open`);
- the bot token's scopes (`missing_scope` with `needed` and `provided`); by default the token has exactly the
  bot scopes `manifest.yml` requests, so code calling a method the manifest has no scope for fails its tests;
- `users.info`: the `users` given, with `profile.email` only with the `users:read.email` scope
  (`user_not_found` for anyone else);
- `trigger_id`s: issued by `trigger_id()`, usable once, for 3 s (`invalid_trigger_id`,
  `exchanged_trigger_id`, `expired_trigger_id`);
- views: kept by id; `views.update` needs a known `view_id` (`not_found`) and, if given, the current `hash`
  (`hash_conflict`); `views.publish` keeps one Home per user (`home_views(user)`: every view published to
  them, in order), with the same `hash` check;
- `users.conversations`: the `memberships` given (user -> channel ids), filtered by `types` (default
  `public_channel`; each type needs its scope: `missing_scope`; an unknown type is `invalid_types`), paged
  by `limit` (1-999, `invalid_limit`) and an opaque `cursor` (`invalid_cursor`), `user_not_found` for someone
  not in the workspace (`users` or `memberships`); private channels (`G…`) are listed only where the bot is
  too (`channels`, when given), as Slack does.

Socket Mode: `apps.connections.open` answers the URL of a loopback websocket that speaks Slack's Socket Mode
protocol (`hello`, then envelopes the test sends with `send_envelope`, acknowledged by `envelope_id`).
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse
from zoneinfo import ZoneInfo

import yaml
from websockets.exceptions import ConnectionClosed
from websockets.sync.server import Server, ServerConnection, serve

# Form fields that Slack clients send as JSON strings.
_JSON_FIELDS = ("blocks", "attachments", "view", "metadata")

BOT_USER_ID = "U_SAMOPS_BOT"
TEAM_ID = "T_SAMOPS"
APP_ID = "A_SAMOPS"
MANIFEST = Path(__file__).resolve().parents[2] / "manifest.yml"
TRIGGER_TTL_S = 3.0  # Slack: "trigger_ids expire three seconds after they are sent to your app"

# The bot-token scope each Web API method needs, from Slack's method reference (docs.slack.dev/reference/
# methods). Methods with no entry need none. conversations.* need the scope of the conversation's kind.
METHOD_SCOPES: dict[str, str] = {
    "chat.postMessage": "chat:write",
    "chat.postEphemeral": "chat:write",
    "chat.update": "chat:write",
    "chat.delete": "chat:write",
    "usergroups.users.list": "usergroups:read",
    "usergroups.list": "usergroups:read",
    "users.info": "users:read",
    "users.list": "users:read",
    "users.lookupByEmail": "users:read.email",
    "users.conversations": "channels:read",  # with its default types (public_channel); see TYPE_SCOPES
}
# users.conversations needs the scope of each conversation type it is asked for (Slack's method reference).
TYPE_SCOPES = {"public_channel": "channels:read", "private_channel": "groups:read", "mpim": "mpim:read",
               "im": "im:read"}  # fmt: skip
# Scopes that add fields to a method's answer rather than allow the call: users.info has `profile.email`
# only with users:read.email (Slack: "users:read.email ... to access the email field in user objects").
EMAIL_SCOPE = "users:read.email"
FIELD_SCOPES: dict[str, tuple[str, ...]] = {"users.info": (EMAIL_SCOPE,)}
NO_SCOPE_METHODS = frozenset(
    {"auth.test", "views.open", "views.update", "views.push", "views.publish", "apps.connections.open"}
)
CONVERSATION_SCOPES = {"C": "channels:read", "G": "groups:read", "D": "im:read"}  # by the id's first letter
APP_TOKEN_SCOPES = frozenset({"connections:write"})


def needed_scope(method: str, params: dict[str, Any]) -> str | None:
    """The bot scope `method` needs with these arguments (None: no scope)."""
    if method.startswith("conversations."):
        channel = str(params.get("channel") or "C")
        return CONVERSATION_SCOPES.get(channel[:1], "channels:read")
    if method == "users.conversations":  # the first type's; the stand-in checks every type's
        first = str(params.get("types") or "public_channel").split(",")[0].strip()
        return TYPE_SCOPES.get(first, METHOD_SCOPES[method])
    return METHOD_SCOPES.get(method)


def manifest_bot_scopes(path: Path = MANIFEST) -> frozenset[str]:
    """The bot scopes `manifest.yml` requests."""
    manifest = yaml.safe_load(path.read_text(encoding="utf-8"))
    return frozenset(manifest["oauth_config"]["scopes"]["bot"])


@dataclass
class Call:
    """One request received: a Web API method (`chat.postMessage`) or `response_url:<id>`."""

    method: str
    params: dict[str, Any]
    headers: dict[str, str]
    at: float = field(default_factory=time.time)
    status: int = 200  # what the stand-in answered


@dataclass
class SocketAck:
    """What the app sent back over the socket for one envelope."""

    envelope_id: str
    payload: dict[str, Any] | None
    at: float = field(default_factory=time.time)


class SlackStandIn:
    def __init__(
        self,
        channels: set[str] | None = None,
        host: str = "127.0.0.1",
        scopes: Iterable[str] | None = None,
        users: Mapping[str, str | None] | None = None,
        memberships: Mapping[str, Iterable[str]] | None = None,
        usergroups: Mapping[str, Iterable[str]] | None = None,
        zones: Mapping[str, str | None] | None = None,
        delay: float = 0.0,
    ) -> None:
        """`channels`: if given, posting anywhere else answers `channel_not_found`, as Slack does for a
        channel the bot is not in. `scopes`: the bot token's scopes (default: those manifest.yml requests).
        `users`: the workspace's members for `users.info`, Slack user id -> e-mail (None: no e-mail set).
        `memberships`: the channels each user is in, for `users.conversations`.
        `usergroups`: each user group's members, for `usergroups.users.list` (others: no members).
        `zones`: a user's time zone for `users.info`'s `tz` (default America/Los_Angeles, Slack's example:
        real Slack gives every person one); None: a user whose answer has no `tz`: the org's zone.
        `delay`: seconds every answer waits (Slack slow to answer); the call is taken and recorded when it
        arrives, as Slack acts on a request before its answer reaches the caller. Settable while running."""
        self.channels = channels
        self.scopes = frozenset(manifest_bot_scopes() if scopes is None else scopes)
        self.users = dict(users or {})
        self.memberships = {user: list(ids) for user, ids in (memberships or {}).items()}
        self.usergroups = {group: list(ids) for group, ids in (usergroups or {}).items()}
        self.zones = dict(zones or {})
        self.delay = delay
        self.calls: list[Call] = []
        self.socket_acks: list[SocketAck] = []
        self._lock = threading.Lock()
        self._throttles: dict[str, list[int]] = {}  # method -> [remaining, retry_after]
        self._ts = itertools.count(1)
        self.trigger_ttl = TRIGGER_TTL_S
        self._triggers: dict[str, float | None] = {}  # trigger_id -> issued at (monotonic); None once used
        self._views: dict[str, dict[str, Any]] = {}  # view id -> the view as Slack keeps it
        self._opened: list[str] = []  # view ids, in the order views.open created them
        self._homes: dict[str, str] = {}  # user -> the id of their Home view (views.publish)
        self._sockets: list[ServerConnection] = []
        self._server = ThreadingHTTPServer((host, 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._ws: Server = serve(self._socket_session, host, 0)
        self._ws_thread = threading.Thread(target=self._ws.serve_forever, daemon=True)

    # -- lifecycle ---------------------------------------------------------------------------------------

    def start(self) -> SlackStandIn:
        self._thread.start()
        self._ws_thread.start()
        return self

    def stop(self) -> None:
        self._ws.shutdown()
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

    @property
    def socket_url(self) -> str:
        host, port = self._ws.socket.getsockname()[:2]
        return f"ws://{host}:{port}/link/?ticket={secrets.token_hex(8)}&app_id={APP_ID}"

    def trigger_id(self) -> str:
        """A new trigger_id, as Slack puts in a slash command or interaction; views.open takes it for 3 s."""
        trigger = f"{next(self._ts)}.{secrets.token_hex(6)}"
        with self._lock:
            self._triggers[trigger] = time.monotonic()
        return trigger

    def home_views(self, user: str) -> list[dict[str, Any]]:
        """Every view published to `user`'s Home (views.publish that succeeded), oldest first."""
        return [c.params["view"] for c in self.calls_to("views.publish") if c.params.get("user_id") == user]

    def opened_views(self) -> list[dict[str, Any]]:
        """Every view opened with views.open, in order, as it is now (after any views.update)."""
        with self._lock:
            return [dict(self._views[view_id]) for view_id in self._opened]

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

    # -- Socket Mode -------------------------------------------------------------------------------------

    def socket_connected(self, timeout: float = 10.0) -> None:
        """Wait until an app holds a Socket Mode connection (it has had its `hello`)."""
        self.wait_for(lambda: self._sockets, timeout=timeout)

    def send_envelope(self, kind: str, payload: dict[str, Any], accepts_response_payload: bool = True) -> str:
        """Deliver `payload` over the app's socket as Slack does (kind: `slash_commands`, `interactive`,
        `events_api`); returns the envelope id its ack must carry."""
        envelope_id = secrets.token_hex(16)
        envelope = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": accepts_response_payload,
            "retry_attempt": 0,
            "retry_reason": "",
        }
        with self._lock:
            connection = self._sockets[-1]
        connection.send(json.dumps(envelope))
        return envelope_id

    def socket_ack(self, envelope_id: str, timeout: float = 10.0) -> SocketAck:
        def acked() -> list[SocketAck]:
            with self._lock:
                return [a for a in self.socket_acks if a.envelope_id == envelope_id]

        return self.wait_for(acked, timeout=timeout)[0]

    def _socket_session(self, connection: ServerConnection) -> None:
        hello = {
            "type": "hello",
            "num_connections": 1,
            "debug_info": {"host": "samops-standin", "approximate_connection_time": 3600},
            "connection_info": {"app_id": APP_ID},
        }
        connection.send(json.dumps(hello))
        with self._lock:
            self._sockets.append(connection)
        try:
            for message in connection:
                with contextlib.suppress(ValueError, AttributeError, KeyError):
                    ack = json.loads(message)
                    with self._lock:
                        self.socket_acks.append(SocketAck(str(ack["envelope_id"]), ack.get("payload")))
        except ConnectionClosed:
            pass
        finally:
            with self._lock:
                self._sockets.remove(connection)

    # -- the server --------------------------------------------------------------------------------------

    def _answer(
        self, method: str, params: dict[str, Any], token: str | None
    ) -> tuple[int, dict[str, str], dict[str, Any]]:
        with self._lock:
            throttle = self._throttles.get(method)
            if throttle and throttle[0] > 0:
                throttle[0] -= 1
                return 429, {"Retry-After": str(throttle[1])}, {"ok": False, "error": "ratelimited"}
        if method.startswith("response_url:"):
            return 200, {}, {"ok": True}
        if refused := self._refusal(method, params, token):
            return 200, {}, refused
        channel = params.get("channel")
        if channel and self.channels is not None and channel not in self.channels:
            return 200, {}, {"ok": False, "error": "channel_not_found"}
        return 200, {}, self._result(method, params)

    def _refusal(self, method: str, params: dict[str, Any], token: str | None) -> dict[str, Any] | None:
        """Slack's error answer when the token may not call `method` so, else None."""
        if not token:
            return {"ok": False, "error": "not_authed"}
        app_token = token.startswith("xapp-")
        if app_token != (method == "apps.connections.open"):
            return {"ok": False, "error": "not_allowed_token_type"}
        scopes = APP_TOKEN_SCOPES if app_token else self.scopes
        needed = needed_scope(method, params)
        if needed is not None and needed not in scopes:
            provided = ",".join(sorted(scopes))
            return {"ok": False, "error": "missing_scope", "needed": needed, "provided": provided}
        if method == "views.open":
            return self._take_trigger(str(params.get("trigger_id") or ""))
        if method == "views.update":
            with self._lock:
                current = self._views.get(str(params.get("view_id") or ""))
            if current is None:
                return {"ok": False, "error": "not_found"}
            if params.get("hash") and params["hash"] != current["hash"]:
                return {"ok": False, "error": "hash_conflict"}
        if method == "views.publish":
            with self._lock:
                current = self._views.get(self._homes.get(str(params.get("user_id") or ""), ""))
            if params.get("hash") and (current is None or params["hash"] != current["hash"]):
                return {"ok": False, "error": "hash_conflict"}
        if method == "users.conversations":
            return self._types_refusal(str(params.get("types") or "public_channel"))
        return None

    def _types_refusal(self, types: str) -> dict[str, Any] | None:
        for kind in types.split(","):
            scope = TYPE_SCOPES.get(kind.strip())
            if scope is None:
                return {"ok": False, "error": "invalid_types"}
            if scope not in self.scopes:
                provided = ",".join(sorted(self.scopes))
                return {"ok": False, "error": "missing_scope", "needed": scope, "provided": provided}
        return None

    def _take_trigger(self, trigger: str) -> dict[str, Any] | None:
        with self._lock:
            if trigger not in self._triggers:
                return {"ok": False, "error": "invalid_trigger_id"}
            issued = self._triggers[trigger]
            if issued is None:
                return {"ok": False, "error": "exchanged_trigger_id"}
            if time.monotonic() - issued > self.trigger_ttl:
                return {"ok": False, "error": "expired_trigger_id"}
            self._triggers[trigger] = None
        return None

    def _keep_view(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The view as Slack stores it: an id (kept across updates) and a new hash on every change."""
        view = dict(params.get("view") or {})
        view_id = str(params.get("view_id") or "") if method == "views.update" else f"V{next(self._ts):08d}"
        if method == "views.publish":  # one Home per user, its id kept across publishes
            with self._lock:
                view_id = self._homes.setdefault(str(params.get("user_id") or ""), view_id)
        view.update(id=view_id, hash=f"{int(time.time())}.{secrets.token_hex(4)}")
        with self._lock:
            self._views[view_id] = view
            if method == "views.open":
                self._opened.append(view_id)
        return view

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
            return {"ok": True, "view": self._keep_view(method, params)}
        if method == "apps.connections.open":
            return {"ok": True, "url": self.socket_url}
        if method == "conversations.info":
            channel = params.get("channel")
            return {"ok": True, "channel": {"id": channel, "name": str(channel).lower(), "is_member": True}}
        if method == "usergroups.users.list":
            group = str(params.get("usergroup") or "")
            return {"ok": True, "users": list(self.usergroups.get(group, []))}
        if method == "users.info":
            return self._user_info(str(params.get("user") or ""))
        if method == "users.conversations":
            return self._user_conversations(params)
        return {"ok": True}

    def _user_conversations(self, params: dict[str, Any]) -> dict[str, Any]:
        """A page of the user's channels of the asked types, as `users.conversations` answers it."""
        user = str(params.get("user") or BOT_USER_ID)
        if user != BOT_USER_ID and user not in self.users and user not in self.memberships:
            return {"ok": False, "error": "user_not_found"}
        try:
            limit = int(params.get("limit") or 100)
        except ValueError:
            limit = 0
        if not 1 <= limit <= 999:
            return {"ok": False, "error": "invalid_limit"}
        try:
            decoded = base64.b64decode(str(params.get("cursor") or ""), validate=True).decode()
            start = int(decoded.removeprefix("next:") or 0)
        except ValueError:
            return {"ok": False, "error": "invalid_cursor"}
        types = {t.strip() for t in str(params.get("types") or "public_channel").split(",")}
        kinds = {"C": "public_channel", "G": "private_channel"}
        ids = [
            c for c in self.memberships.get(user, [])
            if kinds.get(c[:1]) in types and (c[:1] != "G" or self.channels is None or c in self.channels)
        ]  # fmt: skip
        page = ids[start : start + limit]
        more = start + limit < len(ids)
        cursor = base64.b64encode(f"next:{start + limit}".encode()).decode() if more else ""
        channels = [{"id": c, "name": c.lower(), "is_channel": c[:1] == "C", "is_private": c[:1] == "G",
                     "is_archived": False} for c in page]  # fmt: skip
        return {"ok": True, "channels": channels, "response_metadata": {"next_cursor": cursor}}

    def _user_info(self, user_id: str) -> dict[str, Any]:
        """A user as `users.info` answers: `profile.email` only when the token has `users:read.email` (and the
        user has an e-mail), as Slack does; `user_not_found` for someone not in the workspace."""
        if user_id not in self.users:
            return {"ok": False, "error": "user_not_found"}
        profile: dict[str, Any] = {"real_name": user_id.lower(), "display_name": user_id.lower()}
        email = self.users[user_id]
        if email and EMAIL_SCOPE in self.scopes:
            profile["email"] = email
        user = {"id": user_id, "team_id": TEAM_ID, "name": user_id.lower(), "deleted": False, "is_bot": False}
        # The zone fields as Slack gives them (tz may be absent for some users: callers must cope).
        zone = self.zones.get(user_id, "America/Los_Angeles")
        if zone is not None:
            user |= {"tz": zone, "tz_label": zone, "tz_offset": _offset_s(zone)}
        return {"ok": True, "user": {**user, "profile": profile}}

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # keep test output clean
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
                token = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
                status, headers, body = standin._answer(method, params, token or params.get("token"))
                with standin._lock:
                    standin.calls.append(Call(method, params, dict(self.headers.items()), status=status))
                if standin.delay:
                    time.sleep(standin.delay)  # taken already; only the answer is late
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

        return Handler


def _offset_s(zone: str) -> int:
    """`tz_offset`: the zone's offset from UTC now, in seconds."""
    offset = datetime.now(ZoneInfo(zone)).utcoffset()
    return int(offset.total_seconds()) if offset else 0


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
