"""Times for people, the same in Slack, on pages and on the console."""

from __future__ import annotations

from datetime import UTC, datetime


def utc(epoch_ms: int | None, missing: str = "unknown") -> str:
    """An absolute UTC time: 2026-11-20 14:05 UTC."""
    if epoch_ms is None:
        return missing
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def age(epoch_ms: int | None, now_ms: int) -> str:
    """How long ago, in words: "just now", "5 min ago", "3 h ago", "2 days ago"."""
    if epoch_ms is None:
        return "never"
    seconds = max(0, (now_ms - epoch_ms) // 1000)
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86400 * 2:
        return f"{seconds // 3600} h ago"
    return f"{seconds // 86400} days ago"
