"""Keeping secrets out of logs and printed data: a logging filter and a masking helper.

The client never logs bodies or headers; this is the second line of defence for everything else that
logs (the bot, the sync, httpx itself): known secret values and `Bearer` tokens are replaced by `***`.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping
from typing import Any, cast
from urllib.parse import urlsplit

MASK = "***"
# The one list of secret names: the spec's secret fields (in its spelling), the request-side tokens and the
# HTTP header that carries the bearer token. Matched without regard to case, wherever they appear.
SECRET_KEYS = frozenset(
    {
        "password",
        "token",
        "accessToken",
        "requestToken",
        "mqPassword",
        "pinCode",
        "securityCode",
        "ncCode",
        "Authorization",
    }
)
_FOLDED_KEYS = frozenset(key.lower() for key in SECRET_KEYS)
# `name=value` or `name: value` of a secret name in free text; a quoted value is masked whole.
_SECRET_WORDS = re.compile(r"(?i)\b(" + "|".join(sorted(SECRET_KEYS)) + r")\b(\s*[=:]\s*)(\"[^\"]*\"|\S+)")
_BEARER = re.compile(r"(Bearer\s+)[^\s'\",]+", re.IGNORECASE)
_MIN_SECRET_LEN = 4  # shorter values would mask ordinary words
# A path segment holding an e-mail address, as sent (`%40`) or not: operation 13 puts the address in its path.
_ADDRESS_SEGMENT = re.compile(r"[^/?#]*(?:@|%40)[^/?#]*")


def without_addresses(path: str) -> str:
    """`path` with every segment that holds an e-mail address replaced by MASK: for log lines, where an
    address is personal data (`GET /user/email/*** -> 404`)."""
    return _ADDRESS_SEGMENT.sub(MASK, path)


def is_secret_key(key: object) -> bool:
    """Whether a mapping key names a secret (SECRET_KEYS, any case)."""
    return str(key).lower() in _FOLDED_KEYS


def mask_secrets(data: Any) -> Any:
    """A copy of JSON-like `data` with the value of every secret key replaced by `***`."""
    if isinstance(data, Mapping):
        mapping = cast("Mapping[object, Any]", data)
        return {
            k: MASK if is_secret_key(k) and v is not None else mask_secrets(v) for k, v in mapping.items()
        }
    if isinstance(data, list | tuple):
        return [mask_secrets(item) for item in cast("list[Any] | tuple[Any, ...]", data)]
    return data


def mask_secret_words(text: str) -> str:
    """`securityCode=1234` → `securityCode=***` in free text (a guard: such text should hold no secret)."""
    return _SECRET_WORDS.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)


def mask_url(url: str) -> str:
    """A URL as logs may show it: its scheme, host and port only. Push and webhook URLs carry their token in
    the path, the query or the user part (`https://hc-ping.com/<uuid>`, `…/api/push/<token>?status=up`)."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    where = f"{host}:{parts.port}" if parts.port else host
    hidden = parts.path not in {"", "/"} or parts.query or parts.username or parts.fragment
    return f"{parts.scheme or '?'}://{where}/{MASK if hidden else ''}"


class SecretFilter(logging.Filter):
    """Rewrites log records so that registered secret values and bearer tokens read `***`."""

    def __init__(self) -> None:
        super().__init__()
        self._secrets: set[str] = set()
        self._lock = threading.Lock()

    def add(self, *secrets: str | None) -> None:
        with self._lock:
            self._secrets.update(s for s in secrets if s and len(s) >= _MIN_SECRET_LEN)

    def redact(self, text: str) -> str:
        text = _BEARER.sub(rf"\g<1>{MASK}", text)
        with self._lock:
            secrets = sorted(self._secrets, key=len, reverse=True)
        for secret in secrets:
            text = text.replace(secret, MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = self.redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


# One filter for the process: the client registers its password and tokens here.
secret_filter = SecretFilter()


def install(target: logging.Logger | logging.Handler) -> None:
    """Attach the process-wide secret filter to a logger or handler (idempotent)."""
    if secret_filter not in target.filters:
        target.addFilter(secret_filter)
