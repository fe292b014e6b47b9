"""`samops dashboard`: the Streamlit dashboard over the cache; loopback unless authentication is set."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import FrameType

from core.settings import settings_or_report
from dashboard import auth

APP = Path(__file__).resolve().parent / "asgi.py"  # the server of app.py's pages
ROOT = APP.parents[1]


def _port(raw: str) -> int:
    try:
        port = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {raw!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 1..65535, not {port}")
    return port


def _host(raw: str) -> str:
    try:
        return auth.bind_host(raw)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="samops dashboard",
        description="Run the supervisors' Streamlit dashboard over the local cache (read-only).",
        epilog="Bound to a non-loopback address it needs SAMOPS_DASHBOARD_PASSWORD or an [auth] section "
        "(Streamlit OIDC) in .streamlit/secrets.toml.",
    )
    p.add_argument("--host", type=_host, help="address to bind (default: SAMOPS_DASHBOARD_HOST or 127.0.0.1)")
    p.add_argument("--port", type=_port, help="port (default: SAMOPS_DASHBOARD_PORT or 8501)")
    p.add_argument(
        "--db", type=Path, default=None, help="the cache file (default: SAMOPS_DB or .samops/cache.db)"
    )
    return p


def streamlit_command(host: str, port: int, app: Path = APP) -> list[str]:
    return [
        sys.executable,
        "-m",
        "dashboard.serve",  # `streamlit run`, the pages' imports done before it listens
        "run",
        str(app),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
        "--server.runOnSave",
        "false",
        "--client.toolbarMode",
        "viewer",
        # A failure the pages' error boundary misses still shows no traceback or message, only that the
        # app failed; the details go to the log.
        "--client.showErrorDetails",
        "none",
    ]


def main(argv: list[str]) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse has printed the usage or the help
        return int(exc.code or 0)
    settings = settings_or_report("samops dashboard")
    if settings is None:
        return 2
    try:
        args.host = args.host or auth.bind_host(settings.dashboard_host)
    except ValueError as exc:
        print(f"samops dashboard: SAMOPS_DASHBOARD_HOST: {exc}", file=sys.stderr)
        return 2
    args.port = args.port or settings.dashboard_port
    if not auth.is_loopback(args.host) and not auth.configured():
        print(
            f"samops dashboard: refusing to serve on {args.host}, which is not a loopback address, without "
            f"authentication. Set {auth.PASSWORD_ENV}, or configure Streamlit OIDC with an [auth] section in "
            ".streamlit/secrets.toml, or bind to 127.0.0.1.",
            file=sys.stderr,
        )
        return 2
    env = dict(os.environ)
    # The Streamlit process reads the settings again: give it this cache, whatever folder it runs in.
    env["SAMOPS_DB"] = str((args.db or settings.db_path).resolve())
    # `streamlit run` puts dashboard/ on sys.path, not the project root the pages import from.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    shown = f"[{args.host}]" if ":" in args.host else args.host  # an IPv6 address, as a URL writes it
    print(f"samops dashboard: http://{shown}:{args.port} over {env['SAMOPS_DB']}", file=sys.stderr)
    proc = subprocess.Popen(streamlit_command(args.host, args.port), env=env)

    def forward(signum: int, _frame: FrameType | None) -> None:
        proc.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        return proc.wait()
