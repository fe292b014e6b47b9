"""The bot's HTTP front: an ASGI app under uvicorn that hands `/slack/events` to bolt (`App.dispatch`), with
`GET /healthz` (the process is up) and `GET /readyz` (alarms flow: 200, or 503 with the reasons; the rule
of core/health.py).

Before bolt sees a request the front
- bounds it: a body over `MAX_BODY_BYTES` gets 413 (by its Content-Length, before reading it, or while
  reading a chunked one); headers that take longer than `request_timeout` to arrive close the connection,
  and a body that does gets 408 — uvicorn bounds neither (it arms its keep-alive timer only after a
  response, and stops it at the next byte: an idle, half-headed or half-bodied connection stays open);
- verifies Slack's signature (`slack_sdk.signature.SignatureVerifier`) on the raw bytes, so an unsigned,
  stale or malformed request gets 401 without bolt parsing its body (bolt parses first and fails with a 500
  and a traceback on `payload=x` or a timestamp of `abc`);
- answers 400 to a signed body that bolt cannot parse, or whose shape bolt's routing would trip on
  (`bot/envelope.py`).

Nothing a client sends makes the front log at ERROR: refusals are INFO lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import signal
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator, MutableMapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

import uvicorn
from slack_bolt import App, BoltRequest, BoltResponse
from slack_sdk.signature import SignatureVerifier
from uvicorn.protocols.http.h11_impl import H11Protocol

from bot import envelope
from bot.ack_first import AckedCommands, AcksInFlight
from bot.slash.router import COMMAND

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
# (status, JSON body) of `/readyz`, read from the records on a worker thread (it opens SQLite).
Readiness = Callable[[], tuple[int, str]]
MAX_BODY_BYTES = 1024 * 1024  # Slack's largest payloads (a view submission) are tens of KiB
REQUEST_TIMEOUT_S = 10.0  # Slack sends a whole request at once; a slow one is someone holding a socket
GRACEFUL_SHUTDOWN_S = 5.0
# bolt's dispatch blocks (a listener's ack function may read or ask Slack; for a listener without lazy
# functions bolt polls for the ack every 10 ms): it runs on these threads so that a burst of commands is
# acknowledged in parallel rather than one after another on the event loop.
DISPATCH_THREADS = 64

# Commands the front acknowledges itself, then hands to bolt on the dispatch threads once its answer is out
# (the issue 25 way: ack first, the work on samops' own pool). Their listener acks with nothing
# (bot/lazy.ack_at_once) and answers through response_url, so the empty 200 is the ack bolt would
# send; bolt's whole dispatch (its middleware, the listener matching, the lazy copy), ~1-2 ms of CPU each,
# no longer delays the acks of a burst (bench/bot.py, docs/acks.md).
ACKED_BY_THE_FRONT = frozenset({COMMAND})

_TIMESTAMP = re.compile(r"\d{1,12}")
_SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class Refused(Exception):
    """A request answered by the front itself: `status` and a short reason (logged, and the body)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class _BoltDispatch:
    """bolt behind the front, through its public `App.dispatch`: a body bolt cannot parse is answered 400
    instead of raising, and bolt runs on a thread pool instead of on the event loop."""

    def __init__(self, app: App, executor: ThreadPoolExecutor, acks: AcksInFlight) -> None:
        self.app = app
        self._executor = executor
        self.acked = AckedCommands(acks, executor, self._dispatch_acked)

    async def __call__(
        self, body: bytes, query: str, headers: dict[str, str | Sequence[str]]
    ) -> BoltResponse:
        try:
            bolt_request = BoltRequest(body=body.decode("utf-8"), query=query, headers=dict(headers))
        except (ValueError, TypeError, KeyError, AttributeError) as err:  # undecodable or unparsable
            log.info("refused a signed request bolt cannot read (400): %s", type(err).__name__)
            return BoltResponse(status=400, body="unreadable request")
        if reason := envelope.problem(bolt_request.body):
            log.info("refused a signed request of the wrong shape (400): %s", reason)
            return BoltResponse(status=400, body="malformed request")
        if bolt_request.body.get("command") in ACKED_BY_THE_FRONT:
            self.acked.put(bolt_request)
            return BoltResponse(status=200, body="")
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._executor, self.app.dispatch, bolt_request
            )
        except Exception:  # a signed request bolt could not handle: Slack's shape, not ours
            log.warning("a signed request failed in bolt; answered 400", exc_info=True)
            return BoltResponse(status=400, body="unreadable request")

    def _dispatch_acked(self, bolt_request: BoltRequest) -> None:
        """bolt's dispatch of a command the front acked, once the answers in flight (its own included) are
        out (AckedCommands). bolt's ack then goes nowhere; its listener's failures reach the one error
        handler as before."""
        try:
            response = self.app.dispatch(bolt_request)
        except Exception:  # a signed request bolt could not handle: Slack's shape, not ours
            log.warning("a signed command failed in bolt after its ack", exc_info=True)
            return
        if response.status != 200:
            log.warning("bolt answered %d to a command samops had acked", response.status)


class SlackFront:
    """The ASGI application: limits and signature first, then bolt; `/healthz` beside it."""

    def __init__(
        self,
        app: App,
        signing_secret: str,
        *,
        path: str = EVENTS_PATH,
        max_body: int = MAX_BODY_BYTES,
        request_timeout: float = REQUEST_TIMEOUT_S,
        acks: AcksInFlight | None = None,
        readiness: Readiness | None = None,
    ) -> None:
        self.path = path
        self.readiness = readiness
        self.acks = acks or AcksInFlight()
        self.max_body = max_body
        self.request_timeout = request_timeout
        self.executor = ThreadPoolExecutor(max_workers=DISPATCH_THREADS, thread_name_prefix="dispatch")
        self._bolt = _BoltDispatch(app, self.executor, self.acks)
        self.acked_commands = self._bolt.acked
        self._verifier = SignatureVerifier(signing_secret)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # uvicorn runs with lifespan="off" and ws="none": nothing else arrives
        path, method = scope.get("path"), scope.get("method")
        if path == HEALTH_PATH:
            if method in {"GET", "HEAD"}:
                await _answer(send, 200, json.dumps({"status": "ok"}), "application/json")
            else:
                await _answer(send, 405, "method not allowed")
            return
        if path == READY_PATH and self.readiness is not None:
            if method in {"GET", "HEAD"}:
                status, body = await asyncio.to_thread(self.readiness)
                await _answer(send, status, body, "application/json")
            else:
                await _answer(send, 405, "method not allowed")
            return
        if path != self.path:
            await _answer(send, 404, "not found")
            return
        if method != "POST":
            await _answer(send, 405, "method not allowed")
            return
        try:
            body = await self._checked_body(scope, receive)
        except Refused as refused:
            log.info("refused a request to %s (%d): %s", path, refused.status, refused.reason)
            await _answer(send, refused.status, refused.reason)
            return
        self.acks.enter()  # the work of commands acked before waits for this answer (bot/ack_first.py)
        try:
            query = bytes(scope.get("query_string") or b"").decode("latin-1")
            answer = await self._bolt(body, query, dict(_headers(scope)))
            await _answer_bolt(send, answer)
        finally:
            self.acks.leave()

    async def _checked_body(self, scope: Scope, receive: Receive) -> bytes:
        """The body, read within the limits, of a request whose signature is Slack's; else Refused."""
        headers = _headers(scope)
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or len(length) > 12):
            raise Refused(400, "bad content-length")
        if length is not None and int(length) > self.max_body:
            raise Refused(413, "request body too large")
        body = await self._read_body(receive)
        timestamp, signature = headers.get("x-slack-request-timestamp"), headers.get("x-slack-signature")
        if not timestamp or not _TIMESTAMP.fullmatch(timestamp):
            raise Refused(401, "missing or malformed X-Slack-Request-Timestamp")
        if not signature or not _SIGNATURE.fullmatch(signature):
            raise Refused(401, "missing or malformed X-Slack-Signature")
        try:
            text = body.decode("utf-8")  # Slack signs UTF-8 text; other bytes cannot carry its signature
        except UnicodeDecodeError:
            raise Refused(401, "invalid signature (body not UTF-8)") from None
        if not self._verifier.is_valid(text, timestamp, signature):
            raise Refused(401, "invalid or stale signature")
        return body

    async def _read_body(self, receive: Receive) -> bytes:
        chunks = bytearray()
        try:
            async with asyncio.timeout(self.request_timeout):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":  # the client went away
                        raise Refused(400, "client disconnected")
                    chunks += message.get("body", b"")
                    if len(chunks) > self.max_body:
                        raise Refused(413, "request body too large")
                    if not message.get("more_body", False):
                        return bytes(chunks)
        except TimeoutError:
            raise Refused(408, "request body not received in time") from None


def _headers(scope: Scope) -> dict[str, str]:
    # latin-1 decodes any byte: a header no one could have signed fails the signature check, not the front.
    return {bytes(k).decode("latin-1").lower(): bytes(v).decode("latin-1") for k, v in scope["headers"]}


async def _answer_bolt(send: Send, answer: BoltResponse) -> None:
    """bolt's answer as bolt's own ASGI adapter sends it: its headers, and the length of its body."""
    body = answer.body.encode()
    headers = [
        (name.encode("latin-1"), value.encode("latin-1"))
        for name, values in answer.headers.items()
        if name.lower() != "content-length"
        for value in values
    ]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _answer(
    send: Send, status: int, text: str, content_type: str = "text/plain; charset=utf-8"
) -> None:
    body = text.encode()
    headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _DeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for a request's head: a connection that has not sent a whole
    request head within `header_timeout` of opening, or of its last answer, is closed. (uvicorn cancels its
    keep-alive timer at the first byte, so one byte at a time would hold a socket forever.)"""

    header_timeout = REQUEST_TIMEOUT_S

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)
        self._arm_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_deadline()
        super().connection_lost(exc)

    def _arm_deadline(self) -> None:
        self._disarm_deadline()
        self._deadline = self.loop.call_later(self.header_timeout, self._deadline_passed)

    def _disarm_deadline(self) -> None:
        deadline = getattr(self, "_deadline", None)
        if deadline is not None:
            deadline.cancel()
            self._deadline = None

    def _deadline_passed(self) -> None:
        self._deadline = None
        waiting_for_head = self.cycle is None or self.cycle.response_complete
        if waiting_for_head and not self.transport.is_closing():
            log.info("closed a connection that sent no complete request within %.0f s", self.header_timeout)
            self.transport.close()


def listen(host: str, port: int) -> socket.socket:
    """The listening socket (bound here so that a taken port is one clear error, not uvicorn's exit)."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    return socket.create_server((host, port), family=family, backlog=1024)  # bursts queue, not refused


def make_server(
    app: App,
    signing_secret: str,
    request_timeout: float = REQUEST_TIMEOUT_S,
    acks: AcksInFlight | None = None,
    readiness: Readiness | None = None,
    listener_pool: Executor | None = None,
) -> Server:
    """The server; `listener_pool` (given to bolt as `App(listener_executor=...)`) is drained at a stop."""
    front = SlackFront(app, signing_secret, request_timeout=request_timeout, acks=acks, readiness=readiness)
    protocol = type("DeadlineProtocol", (_DeadlineProtocol,), {"header_timeout": request_timeout})
    config = uvicorn.Config(
        front,
        http=protocol,
        ws="none",
        lifespan="off",
        log_config=None,  # the bot's logging, not uvicorn's own handlers
        access_log=False,
        server_header=False,
        date_header=False,
        timeout_keep_alive=max(1, int(request_timeout)),
        timeout_graceful_shutdown=int(GRACEFUL_SHUTDOWN_S),
    )
    return Server(config, front, listener_pool)


class Server(uvicorn.Server):
    """uvicorn's server, minus re-raising SIGTERM/SIGINT after its graceful shutdown: `samops bot` then
    returns 0 like every samops process stopped on purpose (and `samops up` reads it so)."""

    def __init__(self, config: uvicorn.Config, front: SlackFront, listener_pool: Executor | None) -> None:
        super().__init__(config)
        self.front = front
        self.listener_pool = listener_pool

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        originals = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in originals.items():
                signal.signal(sig, handler)

    def serve_on(self, sock: socket.socket) -> None:
        """Serve until SIGTERM or SIGINT; then finish the requests in flight and the answers being worked
        on (lazy listeners), for up to GRACEFUL_SHUTDOWN_S each."""
        try:
            self.run(sockets=[sock])
        finally:
            # The commands acked but not yet handed to bolt, then bolt's dispatch of them (which queues
            # their lazy work), then that work: nothing acked is lost.
            self.front.acked_commands.flush()
            drain(self.front.executor, GRACEFUL_SHUTDOWN_S)
            if self.listener_pool is not None:
                drain(self.listener_pool, GRACEFUL_SHUTDOWN_S)


def drain(executor: Any, timeout: float) -> None:
    waiter = threading.Thread(target=executor.shutdown, kwargs={"wait": True}, daemon=True)
    waiter.start()
    waiter.join(timeout)
    if waiter.is_alive():
        log.warning("stopped with answers still being worked on after %.0f s", timeout)
