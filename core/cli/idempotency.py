"""`samops idempotency-key`: compute the Idempotency-Key header of a request, for debugging an integration.

    samops idempotency-key --path /camera/list [--body '{"a":1}' | --body @file] [--at EPOCH_MS] [-v]

--path is the path after the base URL (which ends in /api), exactly as it goes on the request line,
percent-encoding included. With a body, the body bytes are hashed and the path does not matter.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

from core.idempotency import idempotency_key, payload_for, stamp_for

PROG = "samops idempotency-key"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Compute the Idempotency-Key header of a request.")
    p.add_argument("--path", required=True, help="request path after /api, e.g. /user/email/a%%40b.com")
    p.add_argument("--body", help="exact request body, or @file to read its bytes")
    p.add_argument("--at", type=int, metavar="EPOCH_MS", help="stamp in epoch milliseconds (default: now)")
    p.add_argument("-v", "--verbose", action="store_true", help="also show payload, SHA-256 and stamp")
    return p


def main(argv: list[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if not args.path.startswith("/"):
        parser.print_usage(sys.stderr)
        print(f"{PROG}: error: --path must start with / (the path after /api)", file=sys.stderr)
        return 2
    if args.at is not None and args.at < 0:
        parser.print_usage(sys.stderr)
        print(f"{PROG}: error: --at must be a non-negative epoch-ms", file=sys.stderr)
        return 2
    body = b""
    if args.body is not None:
        if args.body.startswith("@"):
            try:
                body = Path(args.body[1:]).read_bytes()
            except OSError as exc:
                print(f"{PROG}: error: --body {args.body}: cannot read ({exc})", file=sys.stderr)
                return 2
        else:
            body = args.body.encode("utf-8")
    try:
        args.path.encode("ascii")
    except UnicodeEncodeError:
        print(f"{PROG}: error: --path must be percent-encoded ASCII, as on the request line", file=sys.stderr)
        return 2
    epoch_ms = time.time_ns() // 1_000_000 if args.at is None else args.at
    payload = payload_for(args.path, body)
    if args.verbose:
        shown = payload.decode("utf-8", "replace") if not body else f"<body, {len(body)} bytes>"
        print(f"payload: {shown}", file=sys.stderr)
        print(f"sha256:  {hashlib.sha256(payload).hexdigest().upper()}", file=sys.stderr)
        print(f"stamp:   {stamp_for(epoch_ms).decode()}", file=sys.stderr)
    print(idempotency_key(payload, epoch_ms))
    return 0
