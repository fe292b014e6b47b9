"""The one error path of the app: whatever escapes a listener — a `/sam` command, a button, a view
submission, an event, the App Home, a middleware — ends in `on_listener_error` (bolt's `app.error`).

It logs one ERROR line with a fresh reference id (the traceback under it) and tells the person the same id
where Slack lets us:
- a command or a button: through the request's response_url, an ephemeral answer below it;
- a click on the App Home (no response_url): at the top of their Home (the `respond` bot/events sets), or
  when the Home cannot be drawn (the cache it reads is what failed), a Home of that one sentence;
- a view submission (the modal is closed by then): where the modal's form answers, the originating
  command's response_url, else an ephemeral message in its channel, else a direct message;
- an App Home event: on their Home, in the same way.
An answer that could not be delivered to a response_url is a WARNING (bot/listener_errors.py says why).

bolt sends the exceptions of ordinary listeners and middleware to `app.error`, but not those of lazy
listeners: its lazy runner logs "Failed to run an internal function" and drops them (slackapi/bolt-python
issue 635). `install` replaces that runner with one that hands them to the same handler.

bolt's own handling of a listener's exception races with its answer to Slack: the worker thread sets the
request's shared response to a 500 for a moment (even when the listener had already acked), and the thread
answering Slack, woken by the ack, returns it if it looks in that moment — a 500 to a click that was
handled (seen under CPU load, 33 of 900 clicks whose answer fails after the ack). `install` therefore
catches a listener's exception inside the listener (`GuardedListener`), so bolt's racy path never runs.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from slack_bolt import App, BoltContext
from slack_bolt.kwargs_injection import build_required_kwargs
from slack_bolt.lazy_listener import LazyListenerRunner
from slack_bolt.listener import Listener
from slack_bolt.listener.listener_error_handler import ListenerErrorHandler
from slack_bolt.listener.thread_runner import ThreadListenerRunner
from slack_bolt.request import BoltRequest
from slack_bolt.response import BoltResponse
from slack_bolt.util.utils import get_arg_names_of_callable
from slack_sdk.errors import SlackClientError
from slack_sdk.models.views import View

from bot.context import AppContext
from bot.events.home import HomeAnswer, HomeTabs
from bot.forms.submission import metadata
from bot.listener_errors import (
    REFERENCE,
    busy_text,
    failure_text,
    is_answer_failure,
    log_failure,
    record_busy,
    respond_privately,
)
from bot.render.common import header, section
from bot.writes import answer_later
from core.cache import BusyError
from core.reference import new_reference

log = logging.getLogger("samops.bot")


def install(app: App, ctx: AppContext, home: HomeTabs) -> None:
    """Route every listener's failure, lazy ones included, to one handler."""
    app.error(error_handler(ctx, home))
    runner = app.listener_runner
    guard_listeners(app)

    def on_error(error: Exception, request: BoltRequest) -> None:
        runner.listener_error_handler.handle(error=error, request=request, response=None)

    runner.lazy_listener_runner = ReportingLazyRunner(
        runner.lazy_listener_runner.logger, runner.listener_executor, on_error, ctx.acks.wait_clear
    )


def guard_listeners(app: App) -> None:
    """Run `app`'s listeners as `GuardedListener`s: the same runner, its class swapped (bolt builds it)."""
    app.listener_runner.__class__ = GuardedListenerRunner


def error_handler(ctx: AppContext, home: HomeTabs) -> Callable[..., BoltResponse | None]:
    def on_listener_error(  # bolt passes these by name
        error: Exception,
        body: dict[str, Any],
        context: BoltContext,
        respond: Any,
        response: BoltResponse | None,
    ) -> BoltResponse | None:
        reference = str(context.get(REFERENCE) or new_reference())
        what = described(body)
        if isinstance(error, BusyError):  # records locked past the wait: nothing was done; not a bug
            user = str(_dict(body.get("user")).get("id") or body.get("user_id") or "")
            try:
                record_busy(ctx.db(), slack_user=user, command=what, org_id=None, reference=reference)
                tell(ctx, home, body, context, respond, reference, busy_text(reference))
            except Exception as err:  # noqa: BLE001  # a busy refusal is never an ERROR: one WARNING line
                log.warning("%s: %s refused, records busy; not told: %s", reference, what, type(err).__name__)
        elif is_answer_failure(error):
            log.warning(
                "%s: could not answer %s through the request's response_url: %s",
                reference,
                what,
                type(error).__name__,
            )
        else:
            log_failure(reference, what, error)
            try:
                tell(ctx, home, body, context, respond, reference)
            except (SlackClientError, OSError, ValueError) as err:
                log.warning("%s: could not tell the person about it: %s", reference, type(err).__name__)
            except Exception:  # the failure is logged above; telling about it must not hide it
                log.warning("%s: could not tell the person about it", reference, exc_info=True)
        # A failure before the ack (response is bolt's answer to Slack, None for a lazy listener): the
        # person has been told with a reference, so Slack gets a plain ack rather than bolt's 500, which it
        # would show as a second, bare error and, for an event, retry.
        return None if response is None else BoltResponse(status=200, body="")

    return on_listener_error


def described(body: dict[str, Any]) -> str:
    """What failed, for the log: the command, the button's action_id, the form's callback_id, the event."""
    kind = str(body.get("type") or "")
    if body.get("command"):
        return f"{str(body['command'])[:40]} command"
    if kind == "block_actions":
        actions = body.get("actions")
        first = _dict(actions[0]) if isinstance(actions, list) and actions else {}
        return f"button {str(first.get('action_id') or '?')[:80]}"
    if kind == "view_submission":
        return f"form {str(_dict(body.get('view')).get('callback_id') or '?')[:80]}"
    if kind == "event_callback":
        return f"event {str(_dict(body.get('event')).get('type') or '?')[:40]}"
    return f"request {kind[:40] or '?'}"


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def tell(
    ctx: AppContext,
    home: HomeTabs,
    body: dict[str, Any],
    context: BoltContext,
    respond: Any,
    reference: str,
    text: str | None = None,
) -> None:
    """Give the person the reference where Slack lets us (see the module's docstring): `text`, by default
    that samops failed them."""
    text = text if text is not None else failure_text(reference)
    kind = body.get("type")
    if kind == "view_submission":
        user = str(_dict(body.get("user")).get("id") or "")
        answer_later(ctx, metadata(_dict(body.get("view"))), user, text)
    elif kind == "event_callback":
        event = _dict(body.get("event"))
        if event.get("type") == "app_home_opened" and isinstance(event.get("user"), str):
            tell_on_home(ctx, home, event["user"], text)
    elif isinstance(respond, HomeAnswer):
        tell_on_home(ctx, home, str(_dict(body.get("user")).get("id") or ""), text)
    elif context.response_url:
        respond_privately(respond, text)
    elif user := str(_dict(body.get("user")).get("id") or body.get("user_id") or ""):
        ctx.web_client.chat_postMessage(channel=user, text=text)


def tell_on_home(ctx: AppContext, home: HomeTabs, user: str, text: str) -> None:
    """`text` at the top of the person's Home; if the Home cannot be drawn, a Home of `text` alone (the next
    refresh that can draw it replaces it)."""
    try:
        HomeAnswer(home, user)(text)
    except Exception as err:  # noqa: BLE001  # most likely the failure just logged, so one line for it here
        why = type(err).__name__
        log.warning("the Home of %s could not be drawn (%s): it shows the failure alone", user, why)
        alone = View(type="home", blocks=[header("samops"), section(text)])
        ctx.web_client.views_publish(user_id=user, view=alone)


class ReportingLazyRunner(LazyListenerRunner):
    """bolt's thread runner for lazy listeners, with their exceptions handed to `on_error`; each starts
    after `acks_sent()` returns (the acks still being answered go first: bot/ack_first.py)."""

    def __init__(
        self,
        logger: logging.Logger,
        executor: Executor,
        on_error: Callable[[Exception, BoltRequest], None],
        acks_sent: Callable[[], object] = lambda: None,
    ) -> None:
        self.logger = logger
        self.executor = executor
        self.on_error = on_error
        self.acks_sent = acks_sent

    def start(self, function: Callable[..., None], request: BoltRequest) -> None:
        self.executor.submit(self.run, function, request)

    def run(self, function: Callable[..., None], request: BoltRequest) -> None:
        try:
            self.acks_sent()
            function(
                **build_required_kwargs(
                    logger=self.logger,
                    required_arg_names=get_arg_names_of_callable(function),
                    request=request,
                    response=None,
                    this_func=function,
                )
            )
        except Exception as error:  # noqa: BLE001  # every listener's failure goes to the one handler
            self.on_error(error, request)


class GuardedListenerRunner(ThreadListenerRunner):
    """bolt's listener runner, running each listener as a `GuardedListener`; a listener with lazy functions
    is acked on the thread answering Slack, and its lazy functions get a request copied cheaply.

    Why (issue 25, profiled): without `process_before_response`, bolt runs every ack function on the
    listener pool and the answering thread polls for the ack every 10 ms, so each ack waits for a second
    thread and a poll, each one more turn at the GIL when 50 commands arrive at once; then it deep-copies the
    whole request (its WebClient included) for each lazy function. A listener with lazy functions has an ack
    function that only acks (or validates a form): the answering thread waits for it anyway, so it runs
    there, as bolt's own `process_before_response` path runs it, and the work stays in the lazy functions.
    Listeners without lazy functions keep bolt's path (their function acks, then works, after the answer)."""

    def run(
        self,
        request: BoltRequest,
        response: BoltResponse,
        listener_name: str,
        listener: Listener,
        starting_time: float | None = None,
    ) -> BoltResponse | None:
        guarded = GuardedListener(listener, self.listener_error_handler)
        if listener.lazy_functions and not self.process_before_response:
            acking_here = copy.copy(self)  # the same handlers, pool and lazy runner; a per-call flag
            acking_here.process_before_response = True
            return ThreadListenerRunner.run(
                acking_here, request, response, listener_name, guarded, starting_time
            )
        return super().run(request, response, listener_name, guarded, starting_time)

    def _build_lazy_request(self, request: BoltRequest, lazy_func_name: str) -> BoltRequest:
        """The lazy function's own request: the body parsed again from the raw text (a fresh dict, as bolt's
        deep copy gives), its own context dict holding the same shared objects (client, respond, say, the
        App Home's answer) rather than deep copies of them. Neither the ack function (done by now) nor
        another lazy function shares the dicts it changes."""
        context = BoltContext(
            {
                k: v
                for k, v in request.context.items()
                if k not in BoltContext.non_copyable_standard_property_names
            }
        )
        body: str | dict[str, Any] = (
            request.raw_body if request.mode == "http" else copy.deepcopy(request.body)
        )
        copied = BoltRequest(
            body=body, query=request.query, headers=request.headers, context=context, mode=request.mode
        )
        copied.lazy_only = True
        copied.lazy_function_name = lazy_func_name
        # As bolt's: these are not copied, and the lazy function may need them
        copied.context["listener_runner"] = request.context.get("listener_runner", self)
        for name in ("get_thread_context", "save_thread_context"):
            if request.context.get(name) is not None:
                copied.context[name] = request.context[name]
        return copied


class GuardedListener(Listener):
    """`listener`, whose exceptions go to `errors` here, in the listener's thread, as bolt would send them
    (a 500 answer for the handler to change when the listener had not acked yet, none after), without bolt
    touching the response the answering thread reads."""

    def __init__(self, listener: Listener, errors: ListenerErrorHandler) -> None:
        self.listener = listener
        self.errors = errors
        self.matchers = listener.matchers
        self.middleware = listener.middleware
        self.ack_function = listener.ack_function
        self.lazy_functions = listener.lazy_functions
        self.auto_acknowledgement = listener.auto_acknowledgement
        self.ack_timeout = listener.ack_timeout

    def run_ack_function(self, *, request: BoltRequest, response: BoltResponse) -> BoltResponse | None:
        try:
            return self.listener.run_ack_function(request=request, response=response)
        except Exception as error:  # noqa: BLE001  # every listener's failure goes to the one handler
            ack = request.context.ack
            if ack is None or ack.response is not None or self.auto_acknowledgement:
                self.errors.handle(error=error, request=request, response=None)
                return None
            answer = BoltResponse(status=500, body="")
            self.errors.handle(error=error, request=request, response=answer)
            ack.response = answer  # set last: the answering thread returns it as soon as it is set
            return answer
