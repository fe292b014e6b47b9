"""`build_app(ctx)`: the slack-bolt App, with the listeners of every surface package registered.

What the app listens to is listed in the `register` of each surface package's `__init__.py`: `/sam` in
`bot/slash`, buttons in `bot/actions` (with the Resolve form the cards' buttons open), the write modals'
submissions in `bot/forms`, events in `bot/events`. The `/sam` subcommands are listed in
`bot/commands/__init__.py`.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor

from slack_bolt import App
from slack_bolt.authorization import AuthorizeResult
from slack_sdk import WebClient

import bot.commands  # noqa: F401  # every /sam subcommand, registered by importing it
from bot import actions, error_handler, events, forms, response_urls, slash
from bot.context import AppContext
from bot.events.home import HomeTabs

log = logging.getLogger(__name__)

LOCAL_BOT_USER_ID = "U_SAMOPS_LOCAL"


def prewarm(executor: ThreadPoolExecutor, workers: int) -> None:
    """Start every worker thread now: a pool grows one thread per submit, and starting threads in the middle
    of a burst of slash commands would delay the acks queued behind them."""
    gate = threading.Barrier(workers + 1)
    for _ in range(workers):
        executor.submit(gate.wait)
    gate.wait()


def build_app(ctx: AppContext, home: HomeTabs | None = None) -> App:
    """The bolt App: acks at once, runs the work in lazy listeners on a pool sized for concurrent use
    (bot/lazy.py).
    `home` keeps the App Homes (its refresher is started by whoever runs the app: `samops bot`)."""
    # In a local run `authorize` supplies the token per request, so the client carries none (bolt warns
    # otherwise); with a real token the client carries it and bolt takes it from there.
    token = None if ctx.local_mode else ctx.bot_token
    response_urls.use_key(ctx.signing_secret)  # modals' response_urls sealed under it (bot/response_urls.py)
    client = WebClient(token=token, base_url=ctx.settings.api_url, timeout=10)
    executor = ThreadPoolExecutor(max_workers=ctx.settings.bot_workers, thread_name_prefix="bolt")
    prewarm(executor, ctx.settings.bot_workers)
    ctx.listener_pool = executor
    common = {
        "signing_secret": ctx.signing_secret,
        "client": client,
        # Each ack function runs on the thread answering Slack and the work in lazy functions (bot/lazy.py)
        "process_before_response": True,
        "listener_executor": executor,
    }
    if ctx.local_mode:
        # No Slack to ask auth.test: authorize every request as ourselves with the placeholder token.
        def authorize(enterprise_id: str | None, team_id: str | None, user_id: str | None) -> AuthorizeResult:
            return AuthorizeResult(
                enterprise_id=enterprise_id,
                team_id=team_id,
                bot_token=ctx.bot_token,
                bot_user_id=LOCAL_BOT_USER_ID,
                bot_id="B_SAMOPS_LOCAL",
            )

        app = App(authorize=authorize, **common)
    else:
        app = App(token_verification_enabled=True, **common)
    home = home or HomeTabs(ctx)
    error_handler.install(app, ctx, home)  # every listener's failure: one ERROR line, the person told
    slash.register(app, ctx)
    actions.register(app, ctx)
    forms.register(app, ctx)
    ctx.home_note = home.note  # what was opened from the Home is answered there (bot/actions/lifecycle.py)
    events.register(app, ctx, home)
    return app
