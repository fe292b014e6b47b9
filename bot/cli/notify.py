"""`samops notify`: post alarms into Slack channels (or print them, without Slack credentials)."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from core.action_plans import ActionPlans
from core.config import NotifyConfig
from core.heartbeat import HeartbeatConfig
from core.life_safety import LifeSafetyConfig
from core.priorities import Priorities
from core.redact import install
from core.settings import Settings, settings_or_report
from core.supervision import SupervisionConfig
from core.text import counted
from core.timefmt import HostLogFormatter

if TYPE_CHECKING:
    from bot.notify.watch import CycleWatch
    from core.sqlite_lib import sqlite_utils

log = logging.getLogger("samops.notify")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="samops notify", description="Post alarms into Slack channels.")
    parser.add_argument("--once", action="store_true", help="one poll, deliver what it found, then exit")
    parser.add_argument(
        "--interval", type=float, help="seconds between polls (default: config, else SAMOPS_POLL_INTERVAL)"
    )
    parser.add_argument(
        "--source",
        choices=("cache", "service"),
        help="where alarms come from (default: config, else service: this process polls the service)",
    )
    parser.add_argument(
        "--check-config", action="store_true", help="print the rules and check them, then exit"
    )
    parser.add_argument("--db", type=Path, help="the cache file (default: SAMOPS_DB)")
    parser.add_argument(
        "--beside",
        action="store_true",
        help="run beside another notifier on the same cache on purpose (without it, a second one is refused);"
        " each card, escalation level and page is still posted once",
    )
    parser.add_argument("--config", type=Path, help="the TOML config (default: SAMOPS_CONFIG, samops.toml)")
    return parser


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if args.interval is not None and args.interval <= 0:
        print("samops notify: --interval must be positive", file=sys.stderr)
        return 2
    settings = settings_or_report("samops notify")
    if settings is None:
        return 2
    from core.config import ConfigError, load_config

    try:  # the one parse of the file: [notify] and the bot's sections ([audit], [dashboard]) together
        whole = load_config(
            args.config or settings.config_path,
            required=args.config is not None or settings.is_set("config_path"),
        )
    except ConfigError as err:
        print(f"samops notify: {err}", file=sys.stderr)
        return 2
    config = whole.notify
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else None
    slack = WebClient(token=token, base_url=settings.api_url) if token else None
    if args.check_config:
        return check_config(config, slack, Console(), whole.audit.channel, whole.supervision)
    if slack is not None and config.default_channel is None:
        print("samops notify: notify.default_channel is required to post into Slack", file=sys.stderr)
        return 2
    url = whole.dashboard_url(settings.dashboard_url)
    if not args.beside:
        from core.run_lock import ALREADY_RUNNING, hold

        lock = hold(args.db or settings.db_path, "notify", "samops notify")
        if isinstance(lock, str):
            print(f"samops notify: {lock}", file=sys.stderr)
            return ALREADY_RUNNING
    return run(
        settings,
        config,
        slack,
        args,
        url,
        whole.priority_book(),
        whole.plan_book(),
        whole.supervision,
        whole.life_safety,
        whole.heartbeat.with_url(
            settings.heartbeat_url.get_secret_value() if settings.heartbeat_url else None
        ),
    )


def run(
    settings: Settings,
    config: NotifyConfig,
    slack: WebClient | None,
    args: argparse.Namespace,
    dashboard_url: str,
    priorities: Priorities | None = None,
    plans: ActionPlans | None = None,
    supervision: SupervisionConfig | None = None,
    life_safety: LifeSafetyConfig | None = None,
    heartbeat: HeartbeatConfig | None = None,
) -> int:
    from bot.notify.delivery import ConsoleDelivery, SlackDelivery
    from bot.notify.service import Notifier
    from core.cache import RecordsLostError, Service, open_cache
    from core.notify.source import CacheSource, ServiceSource, Source
    from core.private import owner_only
    from core.read import UsersZones

    _log_to_stderr()  # first: opening the cache may say that it moved another service's files aside
    owner_only(settings.data_dir)  # the cache's own files are tightened by open_cache
    db = open_cache(args.db or settings.db_path, service=Service.of(settings))
    config = config.reading_users_zones(UsersZones(lambda: db))  # as the bot's and the dashboard's
    source: Source
    if _source(args, config) == "service":
        from core.client import SamClient

        cameras = config.incidents.cameras_every if config.incidents.enabled else None
        source = ServiceSource(SamClient(settings), history_hours=config.summary_hours, cameras_every=cameras)
    else:
        source = CacheSource()
    interval = _interval(args, config, settings)
    delivery = SlackDelivery(slack, config.storm.posts_per_second) if slack else ConsoleDelivery()
    if not slack:  # the messages are read on this machine's console: on its clock, as the log lines
        config = config.on_console()

    notifier = Notifier(
        db,
        config,
        delivery,
        source,
        dashboard_url,
        priorities=priorities or Priorities(),
        plans=plans or ActionPlans(()),
        supervision_config=supervision or SupervisionConfig(),
        life_safety=life_safety or LifeSafetyConfig(),
        watch=_watch(settings, args, db, interval, slack, heartbeat),
        db_path=Path(args.db or settings.db_path),  # the timed jobs' own connection (bot/notify/jobs.py)
    )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    mode = "console" if delivery.console else "slack"
    log.info("samops notify: source %s, %s delivery, every %g s", source.name, mode, interval)
    if isinstance(source, ServiceSource) and not args.once:
        source.start_history(Path(args.db or settings.db_path))
    try:
        notifier.run(interval, stop, once=args.once)
    except RecordsLostError as err:
        log.error("samops notify: %s", err)
        return 1
    finally:
        if isinstance(source, ServiceSource) and source.history is not None:
            source.history.close()
        if notifier.watch is not None:
            notifier.watch.close()
    return 0


def _watch(
    settings: Settings,
    args: argparse.Namespace,
    db: sqlite_utils.Database,
    interval: float,
    slack: WebClient | None,
    heartbeat: HeartbeatConfig | None,
) -> CycleWatch:
    """What the notifier does after each cycle (bot/notify/watch.py): the liveness promise only for the
    folder's one notifier (not `--beside`, not `--once`), the heartbeat when a URL is configured."""
    from bot.notify.watch import CycleWatch
    from core import liveness
    from core.heartbeat import Heartbeat

    watched = not args.beside and not args.once
    return CycleWatch(
        db,
        interval,
        slack,
        Heartbeat(heartbeat) if heartbeat is not None and heartbeat.url else None,
        liveness.alive_path(Path(args.db or settings.db_path)) if watched else None,
        liveness.hang_after_s(interval, settings.hang_after),
    )


def _log_to_stderr() -> None:
    """The notifier's log lines on stderr as `HH:MM:SS <the machine's zone> message`, through the secret
    filter."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(HostLogFormatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))
    install(handler)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    for noisy in ("httpx", "httpcore"):  # one line per HTTP request is too much at INFO
        logging.getLogger(noisy).setLevel(logging.WARNING)


def _source(args: argparse.Namespace, config: NotifyConfig) -> str:
    """--source, else the config's `source` (default `service`: the notifier hosts the alarm poller)."""
    return str(args.source or config.source)


def _interval(args: argparse.Namespace, config: NotifyConfig, settings: Settings) -> float:
    """--interval, else the config's `interval`, else SAMOPS_POLL_INTERVAL."""
    if args.interval is not None:
        return float(args.interval)
    return config.poll_interval(settings.poll_interval)


def check_config(
    config: NotifyConfig,
    slack: WebClient | None,
    console: Console,
    audit_channel: str | None = None,
    supervision: SupervisionConfig | None = None,
) -> int:
    """Print the rules and every channel the config names (routes, default, health, handover, escalation
    targets, the audit channel); check each once: that it exists and, if samops posts there, that the bot
    can. Exit 2 on errors."""
    uses = config.channel_uses()
    if audit_channel:
        uses.setdefault(audit_channel, []).append("audit")
    posted = {*config.channels(), *([audit_channel] if audit_channel else [])}
    checked = {channel: _check_channel(slack, channel, channel in posted) for channel in uses}
    table = Table(title="Alarm routing (first match wins)")
    for column in ("#", "channel", "org", "panels", "event types", "violation types", "check"):
        table.add_column(column)
    problems: list[str] = []
    for i, route in enumerate(config.routes, 1):
        shown = route.describe()
        table.add_row(str(i), route.channel, *shown.values(), checked[route.channel] or "ok")
    default = config.default_channel
    table.add_row(
        "default",
        default or "(none)",
        "any",
        "any",
        "any",
        "any",
        (checked.get(default) or "ok") if default else "missing",
    )
    console.print(table)
    channels = Table(title="Channels named in the config")
    for column in ("channel", "used for", "check"):
        channels.add_column(column)
    for channel, used_for in uses.items():
        channels.add_row(channel, "; ".join(used_for), checked[channel] or ("ok" if slack else "not checked"))
    console.print(channels)
    storm, health = config.storm, config.health
    console.print(
        f"storm: more than {counted(storm.threshold, 'alarm')} in {storm.window:g} s per channel → "
        "grouped cards; "
        f"{storm.posts_per_second:g} post/s per channel; behind notice after {storm.behind_after:g} s"
    )
    console.print(
        f"ops: notices to {config.ops or '(console)'} after {health.after:g} s of service failure, "
        "and when cards wait past their SLA"
    )
    _print_escalation(config, console)
    every = "SAMOPS_POLL_INTERVAL" if config.interval is None else f"{config.interval:g} s"
    zone = (
        config.timezone
        if "timezone" in config.model_fields_set
        else "each organization's users' zone, else UTC"
    )
    console.print(f"source: {config.source}, every {every}, time zone {zone}")
    console.print((supervision or SupervisionConfig()).describe())
    if default is None and slack is not None:  # without Slack every card goes to the console
        problems.append("notify.default_channel is not set: alarms no route matches would have nowhere to go")
    elif default is None:
        console.print("default channel: not set (needed once SLACK_BOT_TOKEN is; until then, the console)")
    problems += [f"channel {channel}: {problem}" for channel, problem in checked.items() if problem]
    if slack is None:
        console.print("channels not checked: no SLACK_BOT_TOKEN")
    for problem in problems:
        console.print(f"[red]error:[/red] {problem}")
    return 2 if problems else 0


def _print_escalation(config: NotifyConfig, console: Console) -> None:
    """Each escalation level (of a route, else of a priority) and who it reaches, and who is paged."""
    plans = [(f"route {i}", r.escalation()) for i, r in enumerate(config.routes, 1) if r.escalate_after]
    plans += [(name, e.escalation()) for name, e in sorted(config.escalation.items()) if e.escalate_after]
    if not plans:
        console.print("escalation: none (no route sets escalate_after, no [notify.escalation.P1]…)")
        return
    table = Table(title="Escalation of alarms nobody acknowledged (taking one does not stop it)")
    for column in ("of", "level", "after", "mentions"):
        table.add_column(column)
    for name, levels in plans:
        for number, level in enumerate(levels, 1):
            table.add_row(name, str(number), f"{level.after_minutes:g} min", " ".join(level.targets))
    console.print(table)
    console.print(
        "paging: at each level a direct message to its users and user groups' members and to whoever took "
        "the alarm; `/sam notify-me` adds people by priority (docs/paging.md)"
    )


def _check_channel(slack: WebClient | None, channel: str, posts: bool = True) -> str | None:
    """None if `channel` exists and (when samops `posts` there, not only mentions it) the bot can post to
    it, else why not."""
    if slack is None:
        return None
    try:
        info = slack.conversations_info(channel=channel)
    except SlackApiError as err:
        return f"{'cannot post' if posts else 'cannot be found'} ({err.response.get('error', 'error')})"
    except (SlackClientError, OSError) as err:
        return f"cannot check ({type(err).__name__})"
    details = info.get("channel") or {}
    if details.get("is_archived"):
        return "cannot post (archived)"
    if posts and details.get("is_member") is False and not details.get("is_im"):
        return "cannot post (the bot is not a member)"
    return None
