"""`samops sync`: pull the configured service (or the simulator) into the local SQLite cache.

    samops sync [--once | --every SECONDS] [--full] [--no-activities] [--db PATH] [--concurrency N]

Exit codes: 0 everything synced, 1 something failed (recorded in sync_state, see `samops status`), 2 usage,
3 another `samops sync --every` (or `samops up`'s) already runs on this cache (core/run_lock.py).
"""

from __future__ import annotations

import argparse
import logging
import sqlite3
import sys
import time
from collections.abc import Generator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from core.cli.cache_file import add_db_option
from core.redact import install
from core.sync import DEFAULT_OVERLAP_MS, Progress, SyncOptions, SyncReport
from core.text import counted, duration
from core.timefmt import HostLogFormatter

if TYPE_CHECKING:
    from core.client import SamClient
    from core.sqlite_lib import sqlite_utils

PROG = "samops sync"
log = logging.getLogger("samops.sync")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Pull the service into the local SQLite cache.")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--once", action="store_true", help="sync once and exit (the default)")
    when.add_argument(
        "--every",
        type=_seconds,
        metavar="SECONDS",
        help="sync again every SECONDS until stopped; the slow tables only when due (SAMOPS_REFRESH_*)",
    )
    p.add_argument(
        "--full", action="store_true", help="refetch everything and drop what the service no longer has"
    )
    p.add_argument(
        "--no-activities",
        action="store_true",
        help="leave operation 3's activities to the alarm poller (`samops notify`, as `samops up` runs it)",
    )
    add_db_option(p)
    p.add_argument(
        "--concurrency", type=_positive_int, default=8, metavar="N", help="parallel requests (default 8)"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log every request")
    return p


def _setup_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(HostLogFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    install(handler)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    if not verbose:
        logging.getLogger("httpx").setLevel(logging.WARNING)


@contextmanager
def _progress() -> Generator[Progress, None, None]:
    """A rich progress bar on a terminal; a log line every tenth of the work otherwise."""
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        columns = (TextColumn("sync"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Bar(*columns, TextColumn("{task.description}"), console=Console(stderr=True)) as bar:
            task = bar.add_task("", total=None)

            def show(done: int, total: int, what: str) -> None:
                bar.update(task, completed=done, total=total, description=what)

            yield show
        return
    step = {"next": 0}

    def log_line(done: int, total: int, what: str) -> None:
        if done >= step["next"] or done == total:
            log.info("fetched %d/%d (%s)", done, total, what)
            step["next"] = done + max(1, total // 10)

    yield log_line


def _summary(report: SyncReport, seconds: float) -> str:
    rows = ", ".join(f"{table} {n}" for table, n in report.rows.items()) or "nothing due"
    deleted = sum(report.deleted.values())
    text = f"synced {counted(report.panels, 'panel')} in {seconds:.1f} s: {rows}"
    if deleted:
        text += f"; deleted {deleted}"
    if report.errors:
        text += f"; {len(report.errors)} failed (see `samops status`)"
    return text


# A periodic sync that changed nothing says so at most this often (issue 37: "synced 16 panels in 0.0 s:
# push_history 0" every 30 s read as news, and as health, when there was neither).
UNCHANGED_EVERY_S = 600.0


def changed(report: SyncReport) -> bool:
    """Whether a cycle brought anything: rows fetched, rows deleted, or a failure to tell."""
    return any(report.rows.values()) or any(report.deleted.values()) or bool(report.errors)


class Unchanged:
    """The console's account of cycles that changed nothing: silent, with one line every
    UNCHANGED_EVERY_S saying the cache is still in step (the periodic sync only; `--once` always says)."""

    def __init__(self, every: float | None) -> None:
        self.every = every
        self.said_at = time.monotonic()
        self.quiet_cycles = 0

    def say(self, report: SyncReport, seconds: float) -> None:
        now = time.monotonic()
        if self.every is None or changed(report):
            log.info("%s", _summary(report, seconds))
            self.said_at, self.quiet_cycles = now, 0
            return
        self.quiet_cycles += 1
        log.debug("%s", _summary(report, seconds))  # `-v` shows every cycle
        if now - self.said_at >= UNCHANGED_EVERY_S:
            log.info(
                "in step with the service: %s, nothing new in the last %s (%s)",
                counted(report.panels, "panel"),
                duration(now - self.said_at),
                counted(self.quiet_cycles, "sync"),
            )
            self.said_at, self.quiet_cycles = now, 0


@contextmanager
def _quiet() -> Generator[Progress | None, None, None]:
    """No progress lines: the periodic sync says one line per cycle that changed something, its summary."""
    yield None


class Outage:
    """The console's account of an outage: one line when the service stops answering, one when it answers
    again with how long it did not, and nothing each cycle in between."""

    def __init__(self, every: float | None) -> None:
        self.every = every
        self.since: float | None = None  # monotonic
        self.since_clock = ""

    def failed(self, reason: str) -> None:
        if self.since is not None:
            log.debug("the service is still unavailable: %s", reason)
            return
        self.since, self.since_clock = time.monotonic(), time.strftime("%H:%M:%S")
        again = (
            f" (the sync tries again every {self.every:g} s; a line when it is back)" if self.every else ""
        )
        log.warning("the service is unavailable, nothing synced: %s%s", reason, again)

    def answered(self) -> None:
        if self.since is None:
            return
        lasted = duration(time.monotonic() - self.since)
        log.warning("the service answers again, after %s unavailable (since %s)", lasted, self.since_clock)
        self.since = None


def _record_login(db: sqlite_utils.Database, client: SamClient, recorded: str | None) -> str | None:
    """The client's refused-login back-off into the cache for `samops status`, when it changed."""
    from core.cache import sync_state, write_transaction

    refusal = client.login_backoff.refusal
    now = refusal.to_json() if refusal is not None else None
    if now != recorded:
        with write_transaction(db):
            sync_state.record_login_refusal(db, "sync", now)
    return now


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    _setup_logging(args.verbose)
    # Imported here so that `samops sync --help` and usage errors stay instant.
    from core.bills import BillsGate, refresh_due_bills
    from core.cache.db import RecordsLostError, open_cache, reopen_if_replaced
    from core.cache.schema import SchemaTooNewError
    from core.cache.service import Service
    from core.client import SamClient
    from core.clock import now_ms
    from core.private import owner_only
    from core.settings import settings_or_report
    from core.sync import run_sync

    settings = settings_or_report(PROG)
    if settings is None:
        return 2
    path = args.db or settings.db_path
    if args.every is not None:  # the loop: one per data folder (a sync --once beside it is fine)
        from core.run_lock import ALREADY_RUNNING, hold

        lock = hold(path, "sync", "samops sync --every")
        if isinstance(lock, str):
            print(f"{PROG}: {lock}", file=sys.stderr)
            return ALREADY_RUNNING
    owner_only(settings.data_dir)  # the cache's own files are tightened by open_cache
    try:
        db = open_cache(path, service=Service.of(settings))
    except (SchemaTooNewError, sqlite3.Error, OSError) as exc:
        print(f"{PROG}: cannot open the cache {path}: {exc}", file=sys.stderr)
        return 1
    from core.tiers import schedules

    options = SyncOptions(
        full=args.full,
        concurrency=args.concurrency,
        overlap_ms=DEFAULT_OVERLAP_MS,
        activities=not args.no_activities,
        # --every: each slow table on its own schedule (SAMOPS_REFRESH_*); --once and --full: everything.
        schedules=schedules(settings) if args.every is not None else None,
        refresh_rate=settings.refresh_rate,
    )
    bills_gate = None if args.every is None else BillsGate(settings.bills_rate)
    code = 0
    # --every (what `samops up` runs): one line per cycle, so no progress lines unless a bar on a terminal.
    progress_of = _progress if args.every is None or sys.stderr.isatty() else _quiet
    outage = Outage(args.every)
    unchanged = Unchanged(args.every)
    login: str | None = None
    try:
        with SamClient(settings) as client:
            while True:
                started = time.monotonic()
                try:
                    reopen_if_replaced(db)  # a cache deleted under the loop: this cycle refills a fresh one
                    with progress_of() as progress:
                        report = run_sync(db, client, options, progress)
                    # Subscription bills (operation 7): a paced tier of their own (core/bills.py).
                    if report.outage is None:
                        refresh_due_bills(
                            db,
                            client,
                            now_ms(),
                            settings.refresh_bills,
                            bills_gate,
                        )
                    login = _record_login(db, client, login)
                except RecordsLostError as exc:
                    print(f"{PROG}: {exc}", file=sys.stderr)
                    return 1
                except sqlite3.Error as exc:  # the cache itself failed (disk full, locked too long)
                    print(f"{PROG}: cannot write the cache {path}: {exc}", file=sys.stderr)
                    return 1
                if report.outage is not None:
                    outage.failed(report.outage)
                elif report.asked or outage.since is None:  # a run that asked nothing proves nothing
                    outage.answered()
                    unchanged.say(report, time.monotonic() - started)
                code = 0 if report.ok else 1
                if args.every is None:
                    return code
                time.sleep(max(0.0, args.every - (time.monotonic() - started)))
    except KeyboardInterrupt:
        return code
    finally:
        db.close()
