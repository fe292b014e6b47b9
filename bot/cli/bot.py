"""`samops bot`: run the Slack app — Socket Mode when SLACK_APP_TOKEN is set, else HTTP on /slack/events."""

from __future__ import annotations

import argparse
import logging
import signal
import sqlite3
import sys
import threading
from typing import TYPE_CHECKING

from bot.cli import started
from bot.secrets import secure_data_dir
from core.client.login_backoff import refused
from core.config import ConfigError
from core.errors import SamError
from core.redact import install
from core.timefmt import HostLogFormatter

if TYPE_CHECKING:
    from slack_bolt import App

    from bot.context import AppContext

log = logging.getLogger("samops.bot")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="samops bot", description="Run the samops Slack app.")
    parser.add_argument(
        "--host", help="address to listen on in HTTP mode (default SAMOPS_BOT_HOST or 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, help="port in HTTP mode (default SAMOPS_BOT_PORT or 3000)")
    parser.add_argument(
        "--request-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="HTTP mode: close a connection whose request head or body takes longer (default 10)",
    )
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument(
        "--demo-admin",
        metavar="USER_ID",
        help="a Slack user who is an admin of the demo; honoured only with the simulator's demo account "
        "(`samops up` passes samops slash's user when it runs the embedded simulator)",
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    start = started("samops bot", parse_args, argv)
    if isinstance(start, int):
        return start
    args, settings = start
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        handler.setFormatter(HostLogFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        install(handler)  # no secret reaches the log
    quiet = max(logging.WARNING, logging.getLevelName(args.log_level))
    for noisy in ("slack_bolt", "httpx", "httpcore"):  # one line per HTTP request is too much at INFO
        logging.getLogger(noisy).setLevel(quiet)
    # slack_sdk logs a response_url it could not reach at ERROR, though that URL came with the request; every
    # caller logs the failure itself, as the WARNING it is (bot/listener_errors.py, the router, answer_later).
    logging.getLogger("slack_sdk.webhook.client").setLevel(logging.CRITICAL)

    from slack_bolt.error import BoltError
    from slack_sdk.errors import SlackClientError

    from bot.app import build_app
    from bot.context import build_context
    from bot.events.home import HomeTabs
    from bot.events.refresh import HomeRefresher

    secure_data_dir(settings.data_dir)
    try:
        ctx = build_context(settings, demo_admin=args.demo_admin)
    except ConfigError as err:
        print(f"samops bot: {err}", file=sys.stderr)
        return 2
    home = HomeTabs(ctx)
    try:
        app = build_app(ctx, home)
    except (BoltError, SlackClientError, OSError) as err:  # a bad token, or Slack not reachable
        print(f"samops bot: could not start the Slack app: {err}", file=sys.stderr)
        return 1
    # Bolt gives this logger the root's level when the app is built, and it logs a refused request's whole
    # body (camera codes of a form, say) at INFO; the access log still shows the 401.
    logging.getLogger("slack_bolt.RequestVerification").setLevel(max(logging.WARNING, quiet))
    threading.Thread(target=_log_in_early, args=(ctx,), name="warm-up", daemon=True).start()
    # A local run has no Slack to publish Homes to.
    refresher = None if ctx.local_mode else HomeRefresher(home, settings.home_refresh).start()
    try:
        if settings.slack_app_token is not None:
            return _socket_mode(app, ctx, settings.slack_app_token.get_secret_value())
        return _http(
            app,
            ctx,
            args.host or settings.bot_host,
            args.port if args.port is not None else settings.bot_port,
            args.request_timeout,
        )
    finally:
        if refresher is not None:
            refresher.stop()
        ctx.close()


def _log_in_early(ctx: AppContext) -> None:
    """Log in to the service in the background, so the first command does not pay for it. A failure here is
    only logged: the bot runs without the service and says so per command."""
    try:
        ctx.client.login()
    except SamError as err:
        if not refused(err):  # a refused login: the client has said so in its one line, and when it retries
            log.warning("could not log in to the service yet: %s", err)
    # Open the cache once too: which service its files belong to is settled here, not by the first click.
    try:
        ctx.db()
    except (sqlite3.Error, OSError) as err:
        log.warning("could not open the cache yet (%s): the first request that needs it tries again", err)


def _socket_mode(app: App, ctx: AppContext, app_token: str) -> int:
    """Hold a Socket Mode connection until SIGTERM or SIGINT, then close it and finish the answers being
    worked on (lazy listeners)."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler
    from slack_sdk.errors import SlackApiError, SlackClientError

    from bot.server import GRACEFUL_SHUTDOWN_S, drain

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    handler = SocketModeHandler(app, app_token)
    try:
        handler.connect()
    except (SlackApiError, SlackClientError, OSError) as err:
        print(f"samops bot: could not open a Socket Mode connection: {err}", file=sys.stderr)
        return 1
    log.info("samops bot: Socket Mode")
    stop.wait()
    # slack_sdk's monitor thread may be reconnecting right now; closing meanwhile would leave its new
    # session running and close() waiting on it for ever. Reconnects hold this lock, so close under it.
    handler.client.auto_reconnect_enabled = False
    with handler.client.connect_operation_lock:
        handler.close()
    if ctx.listener_pool is not None:
        drain(ctx.listener_pool, GRACEFUL_SHUTDOWN_S)
    return 0


def _http(app: App, ctx: AppContext, host: str, port: int, request_timeout: float | None) -> int:
    from bot.readiness import ready_answer
    from bot.server import EVENTS_PATH, REQUEST_TIMEOUT_S, listen, make_server

    if request_timeout is not None and not 0 < request_timeout <= 3600:
        print("samops bot: --request-timeout must be between 0 and 3600 seconds", file=sys.stderr)
        return 2
    try:
        sock = listen(host, port)
    except OSError as err:
        print(f"samops bot: cannot listen on {host}:{port}: {err}", file=sys.stderr)
        return 1
    readiness = ready_answer(ctx.db)
    server = make_server(
        app, ctx.signing_secret, request_timeout or REQUEST_TIMEOUT_S, ctx.acks, readiness, ctx.listener_pool
    )
    mode = " (local: answers through response_url only)" if ctx.local_mode else ""
    log.info("samops bot listening on http://%s:%d%s%s", host, port, EVENTS_PATH, mode)
    with sock:
        server.serve_on(sock)
    return 0
