"""`samops cache reset`: rebuild the re-syncable cache, keeping the team's records.

    samops cache reset [--db PATH]

Empties `cache.db` (what the service can give again: panels, users, cameras, activities, the sync's
cursors) and leaves `records.db` alone (acknowledgements, silences, maintenance windows, incidents, the
audit log, what the notifier posted). A running samops notices within one poll and refills it; otherwise
`samops sync` does. docs/storage.md says more.

Exit codes: 0 reset, 1 no cache there or it cannot be opened, 2 usage.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys

from core.cli.cache_file import add_db_option, existing_cache

PROG = "samops cache"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Manage the re-syncable cache (records.db is kept).")
    commands = p.add_subparsers(dest="command", required=True)
    reset = commands.add_parser(
        "reset",
        help="empty the cache for a fresh sync; records.db (acknowledgements, silences, audit…) is kept",
        description="Empty the cache (cache.db) for a fresh sync. records.db is never touched.",
    )
    add_db_option(reset)
    return p


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from core.cache.db import open_cache
    from core.cache.records import RecordsTooNewError, records_path
    from core.cache.schema import SchemaTooNewError
    from core.cache.service import Service, folder_lock
    from core.private import sqlite_files

    found = existing_cache(PROG + " reset", args.db)
    if isinstance(found, int):
        return found
    settings, path = found
    service = Service.of(settings)
    try:
        # First as any start would: an old single-file cache moves its records out, and a cache of another
        # service moves aside whole; only then is what is left purely re-syncable.
        open_cache(path, service=service).close()
        with folder_lock(path):
            for file in sqlite_files(path):
                file.unlink(missing_ok=True)
        open_cache(path, service=service).close()
    except (SchemaTooNewError, RecordsTooNewError, sqlite3.Error, OSError) as exc:
        print(f"{PROG} reset: cannot reset the cache {path}: {exc}", file=sys.stderr)
        return 1
    print(
        f"{PROG} reset: emptied {path}; kept {records_path(path)} (acknowledgements, silences, windows,"
        " incidents, audit log). A running samops refills the cache within one poll; else run `samops sync`."
    )
    return 0
