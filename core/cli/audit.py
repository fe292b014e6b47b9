"""`samops audit`: who did what through the bot, when, the outcome and the reference id, newest first.

    samops audit [--limit N] [--user SLACK_ID] [--outcome OUTCOME] [--command WORDS] [--db PATH]

The same rows as `/sam audit` and the dashboard's Audit page (`core.cache.audit.recent`); secrets were kept
out when they were written and are masked again on the way out. Times are on the clock of the machine
it runs on (`core.timefmt.host_zone`, TZ honoured), the zone named once, in the column's header.

Exit codes: 0 shown (also when there is nothing to show), 1 no cache there (or it cannot be read), 2 usage.
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import sys

from core.cache.audit import OUTCOMES
from core.cli.cache_file import add_db_option, existing_cache
from core.text import counted

PROG = "samops audit"
DEFAULT_LIMIT = 50
MAX_COMMAND = 200  # the audit log keeps a command's first 200 characters
_SLACK_USER = re.compile(r"[UWB][A-Z0-9_]{2,39}")  # a user's (U, W) or a bot's (B) id, in upper case


def _limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= 10_000:
        raise argparse.ArgumentTypeError("must be between 1 and 10000")
    return value


def _user(text: str) -> str:
    """A Slack user id, also as pasted from Slack (`<@U012AB3CD>`, `<@U012AB3CD|ann>`)."""
    value = text.strip().removeprefix("<@").removesuffix(">").split("|", 1)[0]
    if not _SLACK_USER.fullmatch(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a Slack user id (like U012AB3CD)")
    return value


def _outcome(text: str) -> str:
    """One of OUTCOMES; `not-found` and `not_found` are `not found` (no quotes needed)."""
    value = " ".join(text.lower().replace("-", " ").replace("_", " ").split())
    if value not in OUTCOMES:
        raise argparse.ArgumentTypeError(f"{text!r} is not an outcome; choose from {', '.join(OUTCOMES)}")
    return value


def _command(text: str) -> str:
    value = " ".join(text.split())
    if not value:
        raise argparse.ArgumentTypeError("give the first words of a command, e.g. 'alarm acknowledge'")
    if len(value) > MAX_COMMAND:
        raise argparse.ArgumentTypeError(f"at most {MAX_COMMAND} characters (the log keeps no more)")
    return value


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, description="Show the audit log of the bot's writes, newest first."
    )
    p.add_argument(
        "--limit", "-n", type=_limit, default=DEFAULT_LIMIT, help=f"rows (default {DEFAULT_LIMIT})"
    )
    p.add_argument("--user", type=_user, metavar="SLACK_ID", help="only this Slack user's rows")
    p.add_argument(
        "--outcome", type=_outcome, metavar="OUTCOME", help=f"only this outcome: {', '.join(OUTCOMES)}"
    )
    p.add_argument(
        "--command", type=_command, metavar="WORDS", help="only commands starting with these words"
    )
    add_db_option(p)
    return p


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from core.cache import audit
    from core.cache.db import CacheUnavailableError, open_reader
    from core.timefmt import host_zone, wall, zone_name

    found = existing_cache(PROG, args.db)
    if isinstance(found, int):
        return found
    _, path = found
    try:
        db = open_reader(path)
        rows = audit.recent(db, args.limit, args.user, args.command, outcome=args.outcome)
        db.close()
    except (CacheUnavailableError, sqlite3.Error, OSError) as exc:
        print(f"{PROG}: cannot read the audit log in {path}: {exc}", file=sys.stderr)
        return 1
    console = Console()
    if not rows:
        filtered = any(v is not None for v in (args.user, args.command, args.outcome))
        console.print("No audit rows" + (" match these filters." if filtered else " yet."))
        return 0
    table = Table(title=f"Audit log, newest first ({counted(len(rows), 'row')})", title_justify="left")
    tz = host_zone()  # the console's reader is at this machine: its clock, named once in the header
    when = f"when ({zone_name(tz)})"
    for column in (when, "who", "command", "outcome", "summary", "reference"):
        table.add_column(column, overflow="fold")
    for row in rows:
        colour = "green" if row.outcome == "ok" else "yellow" if row.outcome == "unknown" else "red"
        outcome = f"[{colour}]{escape(row.outcome)}[/{colour}]"
        cells = (escape(row.slack_user), escape(row.command), outcome, escape(row.summary), row.reference)
        table.add_row(wall(row.at, tz), *cells)
    console.print(table)
    return 0
