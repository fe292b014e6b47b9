"""`samops simulator`: run the simulator of the service API on uvicorn."""

from __future__ import annotations

import argparse
import sys

from simulator.data import Scale
from simulator.extensions import EXTENSIONS, parse_extensions


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="samops simulator", description="Run a faithful simulator of the SAM service API."
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--seed", type=int, default=42, help="data seed (same seed, same data)")
    p.add_argument(
        "--orgs", type=int, default=3, help="number of organizations (the demo user is in the first two)"
    )
    p.add_argument("--panels", type=int, default=24, help="alarm panels over all organizations")
    p.add_argument("--history-days", type=int, default=7, help="days of activity history")
    p.add_argument("--alarm-rate", type=float, default=6.0, help="new activities per minute (0: none)")
    p.add_argument("--latency-ms", type=int, default=0, help="delay added to every /api request")
    p.add_argument(
        "--error-rate", type=float, default=0.0, help="fraction of /api requests answered 500/502/503"
    )
    p.add_argument(
        "--throttle-rate", type=float, default=0.0, help="fraction answered 429 with Retry-After: 1"
    )
    p.add_argument("--token-ttl", type=float, default=3600.0, help="access token lifetime in seconds")
    p.add_argument(
        "--require-idempotency-key", action="store_true", help="answer 400 when the header is missing"
    )
    p.add_argument(
        "--first-page", type=int, default=1, help="number of the first page of operations 3 and 20"
    )
    p.add_argument(
        "--extensions",
        default="none",
        metavar="NAMES",
        help="answer fields beyond the spec: a comma list of "
        + ", ".join(EXTENSIONS)
        + ", or all (default none: spec-exact)",
    )
    p.add_argument("--demo-screen-name", default="demo")
    p.add_argument("--demo-password", default="demo")
    return p


def check(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not 1 <= args.orgs <= 50:
        p.error("--orgs must be between 1 and 50")
    if not 0 <= args.panels <= 20000:
        p.error("--panels must be between 0 and 20000")
    if not 1 <= args.history_days <= 365:
        p.error("--history-days must be between 1 and 365")
    for name in ("error_rate", "throttle_rate"):
        if not 0 <= getattr(args, name) <= 1:
            p.error(f"--{name.replace('_', '-')} must be between 0 and 1")
    if args.error_rate + args.throttle_rate > 1:
        p.error("--error-rate plus --throttle-rate must not exceed 1")
    if args.alarm_rate < 0 or args.latency_ms < 0 or args.token_ttl <= 0:
        p.error("--alarm-rate and --latency-ms must be >= 0, --token-ttl > 0")
    if not 0 < args.port < 65536:
        p.error("--port must be between 1 and 65535")
    if not args.demo_screen_name or not args.demo_password:
        p.error("--demo-screen-name and --demo-password must not be empty")
    try:
        args.extensions = parse_extensions(args.extensions)
    except ValueError as exc:
        p.error(f"--extensions: {exc}")


def main(argv: list[str]) -> int:
    p = parser()
    try:
        args = p.parse_args(argv)
        check(p, args)
    except SystemExit as exc:
        return int(exc.code or 0)

    import uvicorn

    from simulator.app import Config, create_app

    scale = Scale(
        seed=args.seed,
        orgs=args.orgs,
        panels=args.panels,
        history_days=args.history_days,
        demo_screen_name=args.demo_screen_name,
        demo_password=args.demo_password,
    )
    config = Config(
        scale=scale,
        alarm_rate=args.alarm_rate,
        latency_ms=args.latency_ms,
        error_rate=args.error_rate,
        throttle_rate=args.throttle_rate,
        token_ttl=args.token_ttl,
        require_idempotency_key=args.require_idempotency_key,
        first_page=args.first_page,
        extensions=args.extensions,
    )
    app = create_app(config)
    print(f"SAM service simulator: base URL http://{args.host}:{args.port}/api", flush=True)
    orgs = ", ".join(str(1001 + i) for i in range(min(2, args.orgs)))
    # Never the password: a banner ends up in terminals, logs and screenshots.
    print(f"  demo user: screenName {args.demo_screen_name} (password as configured)", flush=True)
    print(
        f"  the demo user belongs to organizations {orgs} (send one as the OrganizationId header)", flush=True
    )
    extensions = ", ".join(sorted(args.extensions)) or "none, spec-exact answers"
    print(f"  extensions: {extensions}", flush=True)
    print("  /healthz answers when ready; /_sim/* are test controls, not part of the service", flush=True)
    from simulator.protocol import SpecH11Protocol

    server = uvicorn.Server(
        uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", http=SpecH11Protocol)
    )
    try:
        server.run()
    except KeyboardInterrupt:
        return 0
    return 0 if server.started else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
