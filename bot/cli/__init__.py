"""The bot's programs (`samops bot`, `samops slash`, `samops notify`), and how each one starts."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from core.settings import Settings, settings_or_report


def started(
    prog: str, parse_args: Callable[[list[str]], argparse.Namespace], argv: list[str]
) -> tuple[argparse.Namespace, Settings] | int:
    """`prog`'s arguments and settings, or its exit code: argparse's (0 after --help, 2 after a usage error),
    or 2 after saying why the settings are invalid."""
    try:
        args = parse_args(argv)
    except SystemExit as stop:
        return int(stop.code or 0)
    settings = settings_or_report(prog)
    return 2 if settings is None else (args, settings)
