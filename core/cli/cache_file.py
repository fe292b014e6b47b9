"""The `--db PATH` option of the console commands that read the cache, and finding that file or why not."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.settings import Settings


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", type=Path, metavar="PATH", help="cache file (default: SAMOPS_DB or .samops/cache.db)"
    )


def existing_cache(prog: str, db: Path | None) -> tuple[Settings, Path] | int:
    """The settings and the cache file (`--db`, else the settings'), or the exit code after saying why not:
    2 for invalid settings (a usage error), 1 when there is no cache file there yet."""
    from core.settings import settings_or_report

    settings = settings_or_report(prog)
    if settings is None:
        return 2
    path = db or settings.db_path
    if not path.exists():
        print(f"{prog}: no cache at {path}; run `samops sync` first", file=sys.stderr)
        return 1
    return settings, path
