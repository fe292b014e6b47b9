"""The time samops runs on: epoch milliseconds, as the service counts them, and the spans it reasons in."""

from __future__ import annotations

import time

SECOND_MS = 1_000
MINUTE_MS = 60 * SECOND_MS
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS
WEEK_MS = 7 * DAY_MS


def now_ms() -> int:
    """Now, in epoch milliseconds (UTC)."""
    return int(time.time() * 1000)
