"""`samops call`: call one operation of the service and print its answer as JSON.

    samops call OPERATION [--data JSON | --data @file.json] [--param name=value ...] [--org ID] [--compact]
    samops call --list

Exit codes: 0 success, 2 usage error, 1 the service or the network failed (the error body on stderr),
the service answered `success: false`, or a write's outcome is unknown (its answer was not an Operation
result).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any, cast

from core.client.operations import OPERATIONS, Operation
from core.errors import APIError, SamError
from core.models import OperationResult, SamModel
from core.redact import install

PROG = "samops call"


class UsageError(Exception):
    """Bad command-line input; the message names what is wrong."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Call one operation of the service and print the answer as JSON.",
        epilog="Run `samops call --list` for the operations and their arguments.",
    )
    p.add_argument("operation", nargs="?", help="operation name, e.g. list_cameras")
    p.add_argument("--list", action="store_true", help="list the operations and their arguments")
    p.add_argument("--data", help="request body as JSON, or @file.json")
    p.add_argument(
        "--param", action="append", default=[], metavar="NAME=VALUE", help="path or query parameter"
    )
    p.add_argument("--org", type=int, help="OrganizationId (default: SAM_ORGANIZATION_ID, else the first)")
    p.add_argument("--compact", action="store_true", help="one-line JSON")
    p.add_argument("--show-secrets", action="store_true", help="print tokens, PIN codes... instead of ***")
    p.add_argument("-v", "--verbose", action="store_true", help="DEBUG logs of the client on stderr")
    return p


def operation_usage(op: Operation[Any]) -> str:
    lines = [
        f"usage: {PROG} {op.name} {' '.join(op.arguments())} [--org ID] [--compact]".rstrip(),
        f"  ({op.number}) {op.method} {op.path}: {op.summary}",
    ]
    if op.path_params:
        lines.append(
            "  path parameters: " + ", ".join(f"{p.name} ({p.type.__name__})" for p in op.path_params)
        )
    if op.query:
        lines.append("  query parameters: " + ", ".join(f"{p.name} ({p.type.__name__})" for p in op.query))
    if op.body:
        lines.append(
            "  body fields (* required): " + ", ".join(f"{f}{'*' * (f in op.required)}" for f in op.body)
        )
    else:
        lines.append("  no body")
    if op.name == "login":
        lines.append("  without --data, logs in with SAM_SCREEN_NAME and SAM_PASSWORD")
    return "\n".join(lines)


def listing() -> str:
    width = max(map(len, OPERATIONS))
    lines = ["operations (samops call NAME ...):"]
    for op in OPERATIONS.values():
        lines.append(f"  {op.number:>2} {op.name:<{width}}  {op.method:<6} {op.path}")
        if op.arguments():
            lines.append(f"     {'':<{width}}  {' '.join(op.arguments())}")
    return "\n".join(lines)


def parse_params(op: Operation[Any], items: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """--param name=value pairs split into path and query parameters, converted to their types."""
    known = {p.name: ("path", p) for p in op.path_params} | {p.name: ("query", p) for p in op.query}
    found: dict[str, dict[str, Any]] = {"path": {}, "query": {}}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"--param {item!r}: expected NAME=VALUE")
        if name not in known:
            accepted = ", ".join(known) or "none"
            raise UsageError(f"--param {name}: not a parameter of {op.name} (accepted: {accepted})")
        where, param = known[name]
        try:
            found[where][name] = param.convert(value)
        except ValueError as exc:
            raise UsageError(f"--param {exc}") from None
    missing = [p.name for p in op.path_params if p.name not in found["path"]]
    if missing:
        raise UsageError(f"missing --param {', '.join(f'{m}=...' for m in missing)}")
    return found["path"], found["query"]


def parse_data(op: Operation[Any], data: str | None) -> dict[str, Any] | None:
    """The --data body (JSON text or @file), checked against the operation's fields."""
    if data is None:
        if op.required and op.name != "login":
            raise UsageError(f"--data required, with at least {', '.join(op.required)}")
        return None
    if not op.has_body:
        raise UsageError(f"{op.name} takes no body; drop --data")
    if data.startswith("@"):
        try:
            data = Path(data[1:]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"--data {data}: cannot read ({exc.__class__.__name__}: {exc})") from None
    try:
        body = json.loads(data)
    except ValueError as exc:
        raise UsageError(f"--data: not valid JSON ({exc})") from None
    if not isinstance(body, dict):
        raise UsageError("--data: must be a JSON object")
    body = cast("dict[str, Any]", body)  # JSON: its keys are strings
    unknown = [k for k in body if k not in op.body]
    if unknown:
        raise UsageError(f"--data: unknown field {', '.join(unknown)} for {op.name}")
    missing = [f for f in op.required if f not in body]
    if missing:
        raise UsageError(f"--data: missing field {', '.join(missing)}")
    return body


def to_json(result: Any, *, show_secrets: bool) -> Any:
    if isinstance(result, SamModel):  # every record of the spec
        return result.to_json_dict(show_secrets=show_secrets)
    if isinstance(result, list):
        return [to_json(item, show_secrets=show_secrets) for item in cast("list[Any]", result)]
    return result


def _fail_usage(message: str, op: Operation[Any] | None = None) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    print(operation_usage(op) if op else f"Run `{PROG} --list` for the operations.", file=sys.stderr)
    return 2


def main(argv: list[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed its message
        return int(exc.code or 0)
    if args.list:
        print(listing())
        return 0
    if not args.operation:
        parser.print_usage(sys.stderr)
        return _fail_usage("name an operation")
    op = OPERATIONS.get(args.operation)
    if op is None:
        return _fail_usage(f"unknown operation {args.operation!r}")
    try:
        path_params, query = parse_params(op, args.param)
        body = parse_data(op, args.data)
    except UsageError as exc:
        return _fail_usage(str(exc), op)
    # Warnings (records skipped as invalid) always; every request with -v.
    logger = logging.getLogger("samops.client")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    install(handler)
    previous = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if args.verbose else logging.WARNING)
    try:
        return _run(op, body, path_params, query, args)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)


def _run(
    op: Operation[Any],
    body: Any,
    path_params: dict[str, Any],
    query: dict[str, Any],
    args: argparse.Namespace,
) -> int:
    from core.client import SamClient
    from core.settings import settings_or_report

    settings = settings_or_report(PROG)
    if settings is None:
        return 2
    try:
        with SamClient(settings) as sam:
            result = sam.call(op.name, body=body, path_params=path_params, query=query, org=args.org)
    except APIError as exc:
        said = exc.body
        fallback = {"statusCode": exc.status_code, "message": exc.message}
        error = cast("dict[str, Any]", said) if isinstance(said, dict) else fallback
        print(json.dumps(error, ensure_ascii=False), file=sys.stderr)
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    except SamError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    indent = None if args.compact else 2
    print(json.dumps(to_json(result, show_secrets=args.show_secrets), ensure_ascii=False, indent=indent))
    refused = _refusals(result)
    if refused:
        print(f"{PROG}: the service did not apply it (success: false): {refused}", file=sys.stderr)
        return 1
    return 0


def _refusals(result: Any) -> str:
    """The messages of Operation results that say `success: false` (operation 4 answers a list)."""
    items = cast("list[Any]", result) if isinstance(result, list) else [result]
    return "; ".join(
        item.message or "no message"
        for item in items
        if isinstance(item, OperationResult) and item.success is False
    )
