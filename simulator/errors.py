"""The service's one error shape, `{statusCode, error, message, path}`, with stable upper-case names."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

# Stable names for the `error` field, by status code, for failures that carry no name of their own.
NAMES: dict[int, str] = {
    400: "VALIDATION_FAILED",
    401: "UNAUTHORIZED",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "PAYLOAD_TOO_LARGE",
    429: "RATE_LIMITED",
    500: "INTERNAL",
    502: "BAD_GATEWAY",
    503: "SERVICE_UNAVAILABLE",
}


class ApiError(Exception):
    """A failure answered with the error body; `error` defaults to the stable name of the status."""

    def __init__(self, status: int, message: str, error: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.error = error or NAMES.get(status, "ERROR")
        self.message = message


def not_found(what: str) -> ApiError:
    return ApiError(404, f"{what} not found")


def error_body(status: int, error: str, message: str, path: str) -> dict[str, Any]:
    return {"statusCode": status, "error": error, "message": message, "path": path}


def error_bytes(status: int, error: str, message: str, path: str) -> bytes:
    return json.dumps(error_body(status, error, message, path)).encode()


def field_path(loc: Sequence[int | str]) -> str:
    """('privilegeGroups', 0, 'privilegeGroupId') -> 'privilegeGroups[0].privilegeGroupId'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "body"


def describe(errors: Sequence[Any]) -> str:
    """One readable line naming every offending field, from pydantic/FastAPI error dicts."""
    parts = []
    for err in errors:
        loc = list(err.get("loc", ()))
        if loc and loc[0] in {"body", "path", "query", "header"}:
            loc = loc[1:]
        msg = str(err.get("msg", "invalid"))
        if err.get("type") == "missing":
            msg = "field required"
        elif err.get("type") == "json_invalid":
            msg = "malformed JSON"
        elif err.get("type") == "value_error":
            msg = msg.removeprefix("Value error, ")
        parts.append(f"{field_path(loc)}: {msg[:1].lower()}{msg[1:]}")
    return "; ".join(parts) or "invalid request"


def validation_error(exc: ValidationError) -> ApiError:
    return ApiError(400, describe(exc.errors(include_url=False, include_input=False)))
