"""`samops status`: how fresh the cache is, whether alarms flow (the rule of `/readyz`: core/health.py), the
notifier's backlog, and the last errors.

    samops status [--db PATH]

Exit codes: 0 shown, 1 no cache there (or it cannot be read), 2 usage error.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from typing import TYPE_CHECKING, Any

from core.cli.cache_file import add_db_option, existing_cache
from core.clock import now_ms
from core.text import counted

if TYPE_CHECKING:
    from rich.console import JustifyMethod

    from core.client.rejections import RejectionKey

PROG = "samops status"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, description="Show cache freshness, notifier backlog and last errors."
    )
    add_db_option(p)
    return p


def ago(at: int | None, now: int) -> str:
    if at is None:
        return "never"
    seconds = max(0, (now - at) // 1000)
    for unit, size in (("d", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return f"{seconds} s ago"


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from core import read
    from core.cache.db import CacheUnavailableError, open_reader
    from core.cache.records import records_path
    from core.cache.service import Service, recorded
    from core.read import status

    found = existing_cache(PROG, args.db)
    if isinstance(found, int):
        return found
    settings, path = found
    try:
        db = open_reader(path)
    except (CacheUnavailableError, sqlite3.Error, OSError) as exc:
        print(f"{PROG}: cannot open the cache {path}: {exc}", file=sys.stderr)
        return 1
    try:
        fresh = read.freshness(db)
        backlog = status.outbox_backlog(db)
        failing = status.failing_deliveries(db, 5)
        rejected = _rejected(db)
        refusals = status.login_refusals(db)
        schedules = _schedules(db, settings)
        backfill = read.backfill_progress(db)
        filled_by = recorded(db)
        verdict = read.readiness(db, now_ms())
    finally:
        db.close()

    now = now_ms()
    console = Console()
    table = Table(title=f"Cache {path}", title_justify="left")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("table", "left"),
        ("rows", "right"),
        ("last success", "left"),
        ("last error", "left"),
    )
    for column, justify in columns:
        table.add_column(column, justify=justify)
    for f in fresh:
        stale = f.last_error_at is not None and (f.last_success is None or f.last_error_at > f.last_success)
        error = f"{f.last_error} ({ago(f.last_error_at, now)})" if f.last_error else ""
        table.add_row(
            f.table,
            f"{f.rows:,}",
            ago(f.last_success, now),
            f"[red]{error}[/red]" if stale else f"[dim]{error}[/dim]",
        )
    console.print(table)
    console.print(f"Records (back this file up): {escape(str(records_path(path)))}", soft_wrap=True)
    service = filled_by.service
    console.print(f"Service: {escape(str(service)) if service else 'not recorded yet'}", soft_wrap=True)
    if service is not None and service != Service.of(settings):
        console.print(
            f"  [yellow]now configured: {escape(str(Service.of(settings)))}; the next start moves these files"
            " aside and starts fresh ones[/yellow]",
            soft_wrap=True,
        )
    if filled_by.switched:
        console.print(f"  [yellow]service switched {escape(filled_by.switched)}[/yellow]", soft_wrap=True)
    from core.client.login_backoff import Refusal

    for part, text in refusals:
        if (refusal := Refusal.from_json(text)) is not None:  # one line each, greppable
            console.print(f"[red]Login ({part}): {escape(refusal.status(now))}[/red]", soft_wrap=True)
    polled, refreshes = schedules
    console.print(
        f"Schedules: activities every {settings.poll_interval:g} s by the alarm poller (`samops notify`), "
        f"last poll {ago(polled, now)}"
    )
    for name, every, oldest in refreshes:
        console.print(f"  {name} every {every}, spread over it; oldest refresh {ago(oldest, now)}")
    console.print(_history_line(backfill, settings))
    _print_readiness(console, verdict)
    console.print(f"Notifier backlog: {backlog:,} pending")
    for event_id, channel, attempts, error in failing:
        tried = counted(attempts, "attempt")
        console.print(f"  [red]{event_id}[/red] to {channel}: {tried}, last error: {error}")
    if rejected:
        console.print(f"Invalid records skipped by the last sync ({ago(rejected[0][1], now)}):")
    for key, _, count in rejected:
        console.print(
            f"  [yellow]{escape(key.describe(count))}[/yellow]", soft_wrap=True
        )  # one line, greppable
    return 0


def _print_readiness(console: Any, verdict: Any) -> None:
    """`/readyz`'s verdict in words: one line, and one more per reason it is not ready."""
    from rich.markup import escape

    f = verdict.as_json()
    slack = f["last_slack_success_age_s"]
    figures = (
        f"last good poll {_seconds(f['last_poll_age_s'])}, "
        f"alarms waiting for their card: {_waiting(f['oldest_undelivered_age_s'])}, "
        + (
            f"Slack last answered {_seconds(slack)}"
            if f["delivery"] == "slack"
            else "delivery on the console"
        )
        + f", login {f['login']}"
    )
    if verdict.ready:
        console.print(f"Alarms flow (as /readyz says): {figures}", soft_wrap=True)
        return
    console.print(f"[red]Alarms do not flow (/readyz answers 503)[/red]: {figures}", soft_wrap=True)
    for reason in verdict.reasons:
        console.print(f"  [red]{escape(reason)}[/red]", soft_wrap=True)


def _seconds(age: float | None) -> str:
    return "never" if age is None else f"{age:.0f} s ago"


def _waiting(age: float | None) -> str:
    return "none" if age is None else f"the oldest for {age:.0f} s"


def _history_line(backfill: Any, settings: Any) -> str:
    """Late events and the backfill of the dashboard's week (docs/history.md), in one line."""
    from core.timefmt import host, host_zone, wall

    window, every = settings.late_window / 3600, settings.reconcile_interval
    late = f"late events: the last {window:g} h reconciled every {every:g} s"
    if backfill is None:
        days = settings.history_days
        return f"History: {late}; the backfill of {days:g} days waits for the alarm poller's first poll"
    panels = counted(backfill.panels, "panel")
    if backfill.done:
        return f"History: {late}; backfill done ({panels}, from {host(backfill.since)})"
    return (
        f"History: {late}; backfill {backfill.panels_done:,} of {panels} done; "
        f"complete from {wall(backfill.until, host_zone())}, filling back to {host(backfill.since)}"
    )


def _schedules(db: Any, settings: Any) -> tuple[int | None, list[tuple[str, str, int | None]]]:
    """(the alarm poller's latest poll, [(table, its refresh interval, its oldest refresh)])."""
    from core import tiers
    from core.poller import CURSOR_TABLE
    from core.read.cursors import latest_cursor

    refreshes = [
        (table, _every(schedule.interval_ms), tiers.oldest(db, table))
        for table, schedule in tiers.schedules(settings).items()
    ]
    return latest_cursor(db, CURSOR_TABLE), refreshes


def _every(ms: int) -> str:
    seconds = ms / 1000
    return f"{seconds / 60:g} min" if seconds >= 60 and seconds % 60 == 0 else f"{seconds:g} s"


def _rejected(db: Any) -> list[tuple[RejectionKey, int, int]]:
    """(what, when, how many) of each kind of record the last sync rejected; none on an older cache."""
    from core.client.rejections import RejectionKey
    from core.read.status import rejected_records

    return [(RejectionKey(*row[:4]), row[4], row[5]) for row in rejected_records(db)]
