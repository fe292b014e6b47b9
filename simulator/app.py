"""The simulator's ASGI app: routes, error handlers, and the /api middleware that records requests,
injects faults and enforces the Idempotency-Key."""

from __future__ import annotations

import asyncio
import logging
import random
import re
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI

from simulator.data import Record, Scale
from simulator.errors import ApiError, error_bytes
from simulator.handlers import install_handlers
from simulator.idempotency import (
    ReplayKey,
    ReplayStore,
    StoredResponse,
    check_fresh,
    decrypt_stamp,
    payload_for,
)
from simulator.live import LiveFeed
from simulator.routes import activities, auth, business, control, resources, users
from simulator.routes.common import resolve_caller
from simulator.stats import Stats, StatsMiddleware
from simulator.store import Store

log = logging.getLogger("simulator")
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MAX_RECORDED_BODY = 256 * 1024
MAX_BODY = 1024 * 1024  # far above any operation's body; the spec sets no limit
MAX_DRAIN = 32 * 1024 * 1024  # read and dropped after a 413, never kept
LOGIN_PATH = "/api/auth/login"
SECRET_BODY_FIELDS = re.compile(
    r'"(password|mqPassword|pinCode|securityCode|ncCode)"(\s*:\s*)"(?:[^"\\]|\\.)*"'
)


@dataclass
class Config:
    scale: Scale
    alarm_rate: float = 6.0
    latency_ms: int = 0
    error_rate: float = 0.0
    throttle_rate: float = 0.0
    token_ttl: float = 3600.0
    require_idempotency_key: bool = False
    first_page: int = 1
    extensions: frozenset[str] = frozenset()


class Faults:
    """Latency, random 5xx and 429 for /api requests; changeable at run time through /_sim/faults."""

    def __init__(self, config: Config) -> None:
        self.error_rate = config.error_rate
        self.throttle_rate = config.throttle_rate
        self.latency_ms = config.latency_ms
        self.rng = random.Random(config.scale.seed + 2)

    def update(self, settings: Any) -> Record:
        for name, attr in (
            ("errorRate", "error_rate"),
            ("throttleRate", "throttle_rate"),
            ("latencyMs", "latency_ms"),
        ):
            value = getattr(settings, name)
            if value is not None:
                setattr(self, attr, value)
        return self.as_dict()

    def as_dict(self) -> Record:
        return {
            "errorRate": self.error_rate,
            "throttleRate": self.throttle_rate,
            "latencyMs": self.latency_ms,
        }

    def draw(self) -> int | None:
        """A status to answer instead of executing, or None."""
        roll = self.rng.random()
        if roll < self.throttle_rate:
            return 429
        if roll < self.throttle_rate + self.error_rate:
            return self.rng.choice([500, 502, 503])
        return None


class Recorder:
    """The last requests received under /api, secrets masked, for request-recording checks."""

    def __init__(self, size: int = 1000) -> None:
        self.entries: deque[Record] = deque(maxlen=size)
        self._lock = threading.Lock()

    def record(self, scope: Scope, raw_path: bytes, body: bytes) -> None:
        headers: dict[str, str] = {}
        for name, value in scope["headers"]:
            key = name.decode("latin-1").lower()
            text = value.decode("latin-1")
            if key == "authorization":
                scheme = text.split(" ", 1)[0]
                text = f"{scheme} ***" if " " in text else "***"
            headers[key] = text
        masked = SECRET_BODY_FIELDS.sub(
            lambda m: f'"{m.group(1)}"{m.group(2)}"***"',
            body.decode("utf-8", "replace"),
        )[:MAX_RECORDED_BODY]  # cut after masking, so that no secret is cut in half and left readable
        entry = {
            "at": int(time.time() * 1000),
            "method": scope["method"],
            "path": raw_path.decode("latin-1"),
            "query": scope.get("query_string", b"").decode("latin-1"),
            "headers": headers,
            "body": masked,
        }
        with self._lock:
            self.entries.append(entry)


class ApiMiddleware:
    """Pure ASGI, so that it sees the raw body bytes and the raw path of the request line."""

    def __init__(self, app: Any, config: Config, faults: Faults, recorder: Recorder, store: Store) -> None:
        self.app = app
        self.store = store
        self.config = config
        self.faults = faults
        self.recorder = recorder
        self.replays = ReplayStore()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not (scope["path"] == "/api" or scope["path"].startswith("/api/")):
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive, MAX_BODY)
        if body is None:
            # Read (and drop) the rest, up to a bound, so that the client is there to read the answer.
            await _read_body(receive, MAX_DRAIN)
            await _send_error(
                send, 413, "PAYLOAD_TOO_LARGE", f"body: larger than {MAX_BODY} bytes", scope["path"]
            )
            return
        raw_path = scope.get("raw_path") or scope["path"].encode()
        raw_path = raw_path.split(b"?", 1)[0]
        path = scope["path"]
        self.recorder.record(scope, raw_path, body)
        if self.faults.latency_ms:
            await asyncio.sleep(self.faults.latency_ms / 1000)
        fault = self.faults.draw()
        if fault == 429:
            await _send_error(
                send, 429, "RATE_LIMITED", "too many requests, retry after 1 s", path, retry_after=True
            )
            return
        if fault:
            name = {500: "INTERNAL", 502: "BAD_GATEWAY", 503: "SERVICE_UNAVAILABLE"}[fault]
            await _send_error(send, fault, name, "simulated failure", path)
            return
        key = _header(scope, b"idempotency-key")
        if key is None:
            if self.config.require_idempotency_key:
                await _send_error(
                    send, 400, "IDEMPOTENCY_KEY_REQUIRED", "Idempotency-Key: header required", path
                )
                return
            await self._execute(scope, receive, body, send)
            return
        try:
            check_fresh(decrypt_stamp(key.strip(), payload_for(raw_path, body)))
        except ApiError as exc:
            await _send_error(send, exc.status, exc.error, exc.message, path)
            return
        who = self._replay_scope(scope, path)
        if who is None:
            # Not authenticated (or not in that organization): never a replay; the operation answers
            # its own 401/400/404 and nothing is stored.
            await self._execute(scope, receive, body, send)
            return
        replay_key = ReplayKey(key.strip().upper(), who, scope["method"], raw_path, body)
        await self._once(scope, receive, body, send, replay_key)

    def _replay_scope(self, scope: Scope, path: str) -> tuple[int, int] | None:
        """Whom a stored answer may be replayed to (decisions.md 8): the token's user and the organization,
        checked here, before any replay. Login has no caller: its body (the credentials) scopes it."""
        if path == LOGIN_PATH:
            return (0, 0)
        try:
            who = resolve_caller(
                self.store, _header(scope, b"authorization"), _header(scope, b"organizationid")
            )
        except ApiError:
            return None
        return (who.user["userId"], who.org)

    async def _once(self, scope: Scope, receive: Receive, body: bytes, send: Send, key: ReplayKey) -> None:
        while True:
            claim = self.replays.claim(key)
            if isinstance(claim, StoredResponse):
                headers = [*claim.headers, (b"idempotent-replayed", b"true")]
                await send({"type": "http.response.start", "status": claim.status, "headers": headers})
                await send({"type": "http.response.body", "body": claim.body})
                return
            if claim is None:
                break
            await asyncio.to_thread(claim.wait, 30)
        stored: StoredResponse | None = None
        try:
            stored = await self._execute(scope, receive, body, send)
        finally:
            # Only successes are kept: a failed first attempt (401, 404...) may be retried with the same key.
            self.replays.finish(key, stored if stored and 200 <= stored.status < 300 else None)

    async def _execute(
        self, scope: Scope, receive: Receive, body: bytes, send: Send
    ) -> StoredResponse | None:
        """Run the app on the already-read body, passing the response on and keeping a copy of it."""
        delivered = False
        status = 500
        headers: list[tuple[bytes, bytes]] = []
        chunks: list[bytes] = []

        async def replay_receive() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body only a disconnect can come

        started = False

        async def capture(message: Message) -> None:
            nonlocal status, headers, started
            if message["type"] == "http.response.start":
                started = True
                status = message["status"]
                headers = list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, replay_receive, capture)
        except Exception:
            log.exception("unexpected error on %s %s", scope["method"], scope["path"])
            if not started:
                await _send_error(send, 500, "INTERNAL", "internal error", scope["path"])
            return None
        return StoredResponse(status, headers, b"".join(chunks), int(time.time() * 1000))


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None as soon as it grows beyond `limit` bytes."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


async def _send_error(
    send: Send, status: int, error: str, message: str, path: str, retry_after: bool = False
) -> None:
    body = error_bytes(status, error, message, path)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after:
        headers.append((b"retry-after", b"1"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def create_app(config: Config) -> FastAPI:
    store = Store(config.scale, config.token_ttl, config.first_page, config.extensions)
    live = LiveFeed(store, config.alarm_rate)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        live.start()
        yield
        live.stop()

    # No docs pages and no trailing-slash redirects: every /api answer is the service's own.
    app = FastAPI(
        title="SAM service simulator",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        redirect_slashes=False,
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.faults = Faults(config)
    app.state.recorder = Recorder()
    app.state.stats = Stats()
    install_handlers(app)
    for module in (auth, users, resources, activities, business):
        app.include_router(module.router, prefix="/api")
    app.include_router(control.router)

    @app.get("/healthz")
    async def healthz() -> Record:
        return {"status": "ok"}

    app.add_middleware(
        ApiMiddleware, config=config, faults=app.state.faults, recorder=app.state.recorder, store=store
    )
    app.add_middleware(StatsMiddleware, stats=app.state.stats)  # added last: outermost, counts everything
    return app


__all__ = ["Config", "create_app"]
