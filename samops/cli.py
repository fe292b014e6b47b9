"""The `samops` console script: one name, many subcommands.

Each subcommand lives in the package that owns it and is imported only when asked for, so that
starting the simulator never imports Slack or Streamlit, and no package imports another to start it.
"""

from __future__ import annotations

import importlib
import os
import sys

# name -> ("module:function", one-line help). Each function takes argv (without the subcommand) and
# returns an exit code.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "simulator": ("simulator.cli:main", "run the embedded simulator of the service API"),
    "call": ("core.cli.call:main", "call one operation of the service and print JSON"),
    "idempotency-key": ("core.cli.idempotency:main", "compute an Idempotency-Key header"),
    "sync": ("core.cli.sync:main", "pull the service into the local SQLite cache"),
    "status": ("core.cli.status:main", "show cache freshness, notifier backlog and last errors"),
    "audit": ("core.cli.audit:main", "show the audit log: who did what through the bot, and the outcome"),
    "cache": ("core.cli.cache:main", "`samops cache reset`: rebuild the cache, keeping the team's records"),
    "bot": ("bot.cli.bot:main", "run the Slack app"),
    "slash": ("bot.cli.slash:main", "send a signed slash command to the running bot"),
    "notify": ("bot.cli.notify:main", "post alarms into Slack channels"),
    "dashboard": ("dashboard.cli:main", "run the supervisors' Streamlit dashboard"),
    "up": ("samops.up:main", "run everything: simulator, sync, notifier, bot, dashboard"),
}

# The subcommands that open the SQLite cache, so import sqlite-utils. It imports pandas and numpy whenever
# they are installed (Streamlit brings them), only to map their scalar types: about 3 s of CPU that these
# processes, which never hand it a pandas or numpy value, can skip. The dashboard is not among them: its
# Streamlit server runs in a process of its own, which needs pandas anyway.
CACHE_USERS = frozenset({"sync", "status", "audit", "cache", "bot", "notify"})


def usage() -> str:
    width = max(map(len, SUBCOMMANDS))
    lines = ["usage: samops <command> [options]", "", "commands:"]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in SUBCOMMANDS.items()]
    lines += ["", "Run `samops <command> --help` for a command's options."]
    return "\n".join(lines)


def import_sqlite_utils_without_pandas() -> None:
    """Import sqlite-utils with pandas and numpy hidden, then unhide them for whoever needs them later.

    `sys.modules` is shared by every thread: hiding a module while another thread may import it makes that
    import fail. So this runs only here, in the console script's main thread, before a subcommand (which may
    start threads) is even imported."""
    if "sqlite_utils" in sys.modules:
        return
    hidden = [name for name in ("pandas", "numpy") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # None makes `import` raise ImportError
    try:
        from core.sqlite_lib import sqlite_utils  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in {"-h", "--help", "help"}:
        print(usage())
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in SUBCOMMANDS:
        print(f"samops: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    if argv is None and name in CACHE_USERS:  # the console script itself, not a caller inside a process
        import_sqlite_utils_without_pandas()
    module_name, func_name = SUBCOMMANDS[name][0].split(":")
    func = getattr(importlib.import_module(module_name), func_name)
    try:
        code = int(func(rest) or 0)
        sys.stdout.flush()  # inside the try: a closed pipe shows here, not as noise at interpreter exit
        return code
    except BrokenPipeError:
        # The reader went away (`samops call ... | head`): stop quietly, as Unix tools do. Python's own
        # recipe: point stdout at /dev/null so the flush at exit does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a tool killed by a closed pipe


if __name__ == "__main__":
    sys.exit(main())
