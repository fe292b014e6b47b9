"""Acks at the front's speed (issue 25 item 1): with bolt's `process_before_response`, a listener is acked on
the thread that answers Slack (no hop to the listener pool, no 10 ms poll), its lazy functions get their own
request, and they start only once the answers being sent are out (`bot/ack_first.py`, `bot/lazy.py`), within
`MAX_DEFER_S`. bolt's real dispatch, the real front (`bot/server.py`) and the real runners; the end-to-end
path (a command acked, answered once, a retry run once, a failure told) is in tests/bot/test_writes.py and
tests/bot/test_error_path.py, through the running bot."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, MutableMapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from slack_bolt import Ack, App, BoltContext, BoltRequest, BoltResponse
from slack_bolt.authorization import AuthorizeResult

from bot.ack_first import MAX_DEFER_S, SETTLE_S, AckedCommands, AcksInFlight
from bot.lazy import after_ack
from bot.server import EVENTS_PATH, SlackFront
from tests.support.bot import SIGNING_SECRET, slack_signature

LOG = logging.getLogger(__name__)
COMMAND = {"command": "/sam", "text": "cameras", "team_id": "T1", "user_id": "U1", "channel_id": "C1"}


def authorize(**_: Any) -> AuthorizeResult:
    return AuthorizeResult(enterprise_id=None, team_id="T1", bot_token="xoxb-x", bot_user_id="U_BOT")


@dataclass
class Host:
    """What `after_ack` needs of the app (bot.context.AppContext in the bot)."""

    acks: AcksInFlight
    on_failure: Callable[[Exception, BoltRequest], None] | None = None


def samops_like_app(
    acks: AcksInFlight | None = None, *, ack: Callable[..., Any], lazy: list[Callable[..., None]]
) -> tuple[App, list[Exception], ThreadPoolExecutor]:
    """A bolt App run the way `bot/app.py` runs ours: `process_before_response`, the lazy functions wrapped
    by `after_ack`, failures to `app.error` (which answers a plain 200 as samops' handler does) and to the
    host's `on_failure`; `/sam` registered with `ack` and `lazy`."""
    executor = ThreadPoolExecutor(max_workers=4)
    app = App(
        signing_secret=SIGNING_SECRET,
        authorize=authorize,
        process_before_response=True,
        listener_executor=executor,
    )
    errors: list[Exception] = []

    def on_error(error: Exception, response: BoltResponse | None) -> BoltResponse | None:
        errors.append(error)
        return None if response is None else BoltResponse(status=200, body="")

    app.error(on_error)
    host = Host(acks or AcksInFlight(), lambda error, _request: errors.append(error))
    app.command("/sam")(ack=ack, lazy=[after_ack(host, work) for work in lazy])
    return app, errors, executor


def signed_headers(body: bytes) -> dict[str, str | Sequence[str]]:
    timestamp = str(int(time.time()))
    return {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": timestamp,
        "x-slack-signature": slack_signature(SIGNING_SECRET, timestamp, body),
    }


def signed(form: dict[str, str]) -> BoltRequest:
    body = urlencode(form)
    return BoltRequest(body=body, headers=signed_headers(body.encode()))


def test_the_ack_runs_on_the_answering_thread_and_its_body_is_the_answer() -> None:
    seen: dict[str, Any] = {}
    done = threading.Event()

    def ack_here(ack: Ack) -> None:
        seen["ack thread"] = threading.get_ident()
        ack(text="on it")

    def work(body: dict[str, Any], context: BoltContext) -> None:
        seen["work thread"] = threading.get_ident()
        seen["body"], seen["context"] = body, context
        done.set()

    app, errors, executor = samops_like_app(ack=ack_here, lazy=[work])
    request = signed(COMMAND)
    answer = app.dispatch(request)
    assert (answer.status, answer.body) == (200, "on it")
    assert seen["ack thread"] == threading.get_ident()  # bolt's own path ran it on the listener pool
    assert done.wait(5)
    assert seen["work thread"] != threading.get_ident()
    # The lazy function's own body and context (bolt's copy for each lazy function).
    assert seen["body"] == request.body and seen["body"] is not request.body
    assert seen["context"] is not request.context
    assert errors == []
    executor.shutdown()


def test_an_ack_that_fails_is_answered_200_and_reaches_the_error_handler_and_the_work_still_runs() -> None:
    done = threading.Event()

    def failing_ack(ack: Ack) -> None:
        raise RuntimeError("before the ack")

    app, errors, executor = samops_like_app(ack=failing_ack, lazy=[lambda: done.set()])
    answer = app.dispatch(signed(COMMAND))
    assert answer.status == 200
    assert [str(e) for e in errors] == ["before the ack"]
    assert done.wait(5)
    executor.shutdown()


def test_a_failure_in_the_lazy_work_reaches_the_error_handler() -> None:
    def failing_work() -> None:
        raise RuntimeError("in the work")

    app, errors, executor = samops_like_app(ack=lambda ack: ack(), lazy=[failing_work])
    assert app.dispatch(signed(COMMAND)).status == 200
    executor.shutdown(wait=True)
    assert [str(e) for e in errors] == ["in the work"]


def test_the_work_waits_for_the_answers_in_flight_and_no_longer_than_its_bound() -> None:
    acks = AcksInFlight()
    started = threading.Event()
    work = after_ack(Host(acks), lambda: started.set())
    acks.enter()
    acks.enter()
    threading.Thread(target=work, args=(signed(COMMAND),), daemon=True).start()
    assert not started.wait(0.3)
    acks.leave()
    assert not started.wait(0.2)  # one answer still being sent
    acks.leave()
    assert started.wait(5)

    acks.enter()  # an answer that never goes out: the work starts after the bound all the same
    t0 = time.monotonic()
    assert not acks.wait_clear(0.2)
    assert time.monotonic() - t0 >= 0.2
    bounded = threading.Event()
    t0 = time.monotonic()
    threading.Thread(target=after_ack(Host(acks), lambda: bounded.set()), args=(signed(COMMAND),)).start()
    assert bounded.wait(5)
    assert time.monotonic() - t0 >= MAX_DEFER_S


def test_through_the_front_the_work_starts_after_the_ack_is_sent() -> None:
    """The real front and bolt's ASGI adapter: the front acks `/sam` itself (an empty 200), and bolt's
    dispatch, its ack function and the lazy function all run on a thread after the answer's last byte was
    handed to the server, though sending it is slow (without the wait, they run while it is being sent)."""
    acks = AcksInFlight()
    events: list[str] = []
    done = threading.Event()

    def work() -> None:
        events.append("work")
        done.set()

    def ack_here(ack: Ack) -> None:
        events.append("acked on the loop" if threading.get_ident() == loop_thread else "acked on a thread")
        ack()

    loop_thread = threading.get_ident()  # asyncio.run runs the loop here
    app, _, executor = samops_like_app(acks, ack=ack_here, lazy=[work])
    front = SlackFront(app, SIGNING_SECRET, acks=acks)
    body = urlencode(COMMAND).encode()
    headers = [(k.encode(), str(v).encode()) for k, v in signed_headers(body).items()]
    scope = {"type": "http", "method": "POST", "path": EVENTS_PATH, "headers": headers, "query_string": b""}
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        await asyncio.sleep(0.3)  # a slow write: the work must not take the CPU meanwhile
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            events.append("answer sent")

    asyncio.run(front(scope, receive, send))
    assert sent[0]["status"] == 200 and sent[1]["body"] == b""
    assert done.wait(5)
    assert events == ["answer sent", "acked on a thread", "work"]
    executor.shutdown()
    front.executor.shutdown()


def test_after_a_burst_the_work_waits_for_a_lull() -> None:
    """The count touches 0 between a burst's arrivals: work queued while others were in flight waits until
    none has come for SETTLE_S."""
    acks = AcksInFlight()
    acks.enter()
    acks.enter()
    cleared: list[float] = []
    waiter = threading.Thread(target=lambda: cleared.append(time.monotonic()) if acks.wait_clear(5) else None)
    waiter.start()
    time.sleep(0.05)
    acks.leave()
    left = time.monotonic()  # before the last leave: the lull is counted from it
    acks.leave()
    waiter.join(5)
    assert cleared and cleared[0] - left >= SETTLE_S


def test_commands_acked_by_the_front_wait_for_the_answers_and_a_stop_hands_them_over() -> None:
    """Commands the front acked are handed to bolt once no answer is in flight, all of a burst at once; at a
    stop, `flush` hands over those still waiting, so none that was acked is lost."""
    acks = AcksInFlight()
    ran: list[str] = []
    executor = ThreadPoolExecutor(max_workers=2)
    acked = AckedCommands(acks, executor, ran.append)
    acks.enter()  # an answer being sent
    acked.put("first")
    acked.put("second")
    time.sleep(0.2)
    assert ran == []  # behind the answer in flight
    acks.leave()
    deadline = time.monotonic() + 5
    while len(ran) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sorted(ran) == ["first", "second"]

    acks.enter()  # a stop while answers are in flight: nothing waits for them any more
    acked.put("third")
    acked.flush()
    executor.shutdown(wait=True)
    assert sorted(ran) == ["first", "second", "third"]
    acks.leave()
