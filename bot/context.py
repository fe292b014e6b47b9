"""`AppContext`: what every listener needs — settings, config, the service client, the cache, Slack."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slack_bolt import BoltRequest
from slack_sdk import WebClient

from bot.ack_first import AcksInFlight
from bot.live_budget import LiveBudget
from bot.person_zones import PersonZones, ZoneFor
from bot.roles import RoleResolver
from bot.roles_service import ServiceRoles
from bot.secrets import local_signing_secret
from core.config import SamopsConfig, load_config
from core.settings import Settings, load_settings

if TYPE_CHECKING:
    from core.client import SamClient
    from core.client.login_backoff import Refusal
    from core.sqlite_lib import sqlite_utils

log = logging.getLogger(__name__)

# Used when no SLACK_BOT_TOKEN is set: a local run answers only through response_url, never the Web API.
LOCAL_BOT_TOKEN = "xoxb-samops-local"


@dataclass
class AppContext:
    settings: Settings
    config: SamopsConfig
    signing_secret: str
    web_client: WebClient  # for use outside requests: the notifier, the audit channel
    roles: RoleResolver
    # Answers a person at the top of their App Home (`bot/events/home.py` HomeTabs.note, set by `build_app`):
    # what was opened from the Home is answered there, since it has no channel or response_url.
    home_note: Callable[[str, str], None] | None = field(default=None, repr=False)
    # The service requests `/sam who-can` and `/sam panel` may still make, per organization.
    live: LiveBudget = field(default_factory=LiveBudget, repr=False)
    # The signed requests the HTTP front is answering: lazy listeners start after them (bot/ack_first.py).
    acks: AcksInFlight = field(default_factory=AcksInFlight, repr=False)
    # Each person's Slack zone (users.info `tz`), asked once per TTL: what a person reads themselves is on
    # their clock (`reader_zones`). None to ask: a local run, everyone on the organization's clock.
    zones: PersonZones = field(default_factory=lambda: PersonZones(None), repr=False)
    # The app's one error handler for work after the ack (bot/error_handler.py `install`, set by `build_app`):
    # bolt hands a lazy function's failure to no handler, so samops' lazy functions call this (bot/lazy.py).
    on_failure: Callable[[Exception, BoltRequest], None] | None = field(default=None, repr=False)
    # The listener pool given to bolt (`App(listener_executor=...)`, set by `build_app`): drained at a stop.
    listener_pool: ThreadPoolExecutor | None = field(default=None, repr=False)
    _client: SamClient | None = field(default=None, repr=False)
    _client_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _local: threading.local = field(default_factory=threading.local, repr=False)

    @property
    def local_mode(self) -> bool:
        """No bot token: answers go to response_url only (a run driven by `samops slash`)."""
        return self.settings.slack_bot_token is None

    @property
    def bot_token(self) -> str:
        token = self.settings.slack_bot_token
        return token.get_secret_value() if token else LOCAL_BOT_TOKEN

    @property
    def client(self) -> SamClient:
        """The one shared service client, made on first use so the bot starts even if the service is down."""
        if self._client is None:
            with self._client_lock:
                if self._client is None:
                    from core.client import SamClient

                    self._client = SamClient(self.settings, on_login=self._record_login)
        return self._client

    def _record_login(self, refusal: Refusal | None) -> None:
        """The client's refused-login back-off into the cache, for `samops status` (as the sync's)."""
        from core import cache

        try:
            db = self.db()
            with cache.write_transaction(db):
                cache.record_login_refusal(db, "bot", refusal.to_json() if refusal is not None else None)
        except sqlite3.Error as err:  # status loses a line; the login's own WARNING line was said
            log.warning("could not record the login back-off for samops status: %s", err)

    def reader_zones(self, user: str) -> ZoneFor:
        """The zone each organization's times are shown in to `user` in what they alone read (a `/sam`
        answer, their App Home): their own Slack zone where Slack gives it, else the organization's
        (`core.timefmt.person_zone` over `NotifyConfig.zone_for`). Channel cards stay on `zone_for`."""
        return self.zones.reader(user, self.config.notify.zone_for)

    @property
    def dashboard_url(self) -> str:
        """The dashboard's address for links in messages (`SamopsConfig.dashboard_url`)."""
        return self.config.dashboard_url(self.settings.dashboard_url)

    @property
    def db_path(self) -> Path:
        return self.settings.db_path

    def db(self) -> sqlite_utils.Database:
        """This thread's connection to the cache (SQLite connections are not shared between threads)."""
        from core.cache import RecordsLostError, Service, open_cache, reopen_if_replaced

        db = getattr(self._local, "db", None)
        if db is not None:
            try:
                reopen_if_replaced(db)  # a cache deleted under the bot: a fresh one, never the deleted file
                return db
            except RecordsLostError as err:
                # Said, then the records file there now (the notifier's fresh one, or a restored backup):
                # never go on writing into a deleted one.
                log.error("%s", err)
                db.conn.close()
        db = self._local.db = open_cache(self.db_path, service=Service.of(self.settings))
        return db

    def close(self) -> None:
        close = getattr(self._client, "close", None)
        if close is not None:
            close()


def build_context(
    settings: Settings | None = None, config: SamopsConfig | None = None, demo_admin: str | None = None
) -> AppContext:
    """Everything from the settings (environment and `.env`); `config` defaults to the file `SAMOPS_CONFIG`
    names, which must exist when the user named it."""
    settings = settings or load_settings()
    if config is None:
        config = load_config(settings.config_path, required=settings.is_set("config_path"))
    secret = settings.slack_signing_secret
    signing_secret = secret.get_secret_value() if secret else local_signing_secret(settings.data_dir)
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else LOCAL_BOT_TOKEN
    web_client = WebClient(token=token, base_url=settings.api_url, timeout=10)
    ctx = AppContext(
        settings=settings,
        config=config,
        signing_secret=signing_secret,
        web_client=web_client,
        zones=PersonZones(web_client if settings.slack_bot_token is not None else None),
        # The demo's admin only with the demo account: never an admin by flag on a service of your own.
        roles=RoleResolver(
            config.roles, web_client, demo_admin=demo_admin if settings.demo_account else None
        ),
    )
    ctx.zones.on_zone = partial(_follow_zone, ctx)
    if ctx.roles.maps_service_roles:
        ctx.roles.service = ServiceRoles(web_client, lambda: ctx.client, seen=ctx.zones.learn)
    from core.read import UsersZones

    # Where the config names no zone for an organization, its cached users' zone (as the dashboard's).
    ctx.config = config.model_copy(update={"notify": config.notify.reading_users_zones(UsersZones(ctx.db))})
    return ctx


def _follow_zone(ctx: AppContext, user: str, zone: str) -> None:
    """A person's Slack zone, just read, into their paging preferences (if they have any): their pages and
    quiet hours are on the clock their `/sam` answers and App Home show."""
    from core import cache

    try:
        cache.follow_zone(ctx.db(), user, zone)
    except sqlite3.Error as err:  # the pages keep the zone recorded before; the answer is not held up
        log.warning("could not record a person's Slack zone for their pages: %s", err)


def with_context(func: Callable[..., Any], ctx: AppContext) -> Callable[..., Any]:
    """`func(ctx, ...)` as a bolt listener: bolt passes the other arguments by their names, which it reads
    from the signature (the bound `ctx` is not among them); the name is kept for bolt's logs."""
    bound = partial(func, ctx)
    bound.__name__ = func.__name__  # type: ignore[attr-defined]  # partial objects take attributes
    return bound
