"""The figures of `core.health` (is samops delivering alarms?) from the notifier's records, the outbox and
the cache: what `/readyz`, `samops status` and the notifier's heartbeat judge."""

from __future__ import annotations

from core import health
from core.cache.sync_state import LOGIN_REFUSED
from core.client.login_backoff import Refusal
from core.read.rows import query, scalar
from core.sqlite_lib import sqlite_utils

NOTIFIER = "notify"  # the part whose refused login counts (core/cache/sync_state.record_login_refusal)


def figures(db: sqlite_utils.Database, now: int) -> health.Figures:
    marks = ", ".join("?" for _ in health.RECORDED)
    rows = query(db, f"SELECT key, value FROM notify_state WHERE key IN ({marks})", list(health.RECORDED))
    state = {str(r["key"]): str(r["value"]) for r in rows}
    # Since when each alarm still to be posted waits: its lifecycle's opening (its own time, or when it
    # reached samops when it arrived late), recorded with it at discovery.
    oldest = scalar(
        db,
        "SELECT min(s.opened_at) FROM notify_outbox o JOIN alarm_state s ON s.event_id = o.event_id"
        " WHERE o.state = 'pending'",
    )
    refused = query(db, "SELECT value FROM meta WHERE key = ?", [LOGIN_REFUSED + NOTIFIER])
    refusal = Refusal.from_json(str(refused[0]["value"])) if refused else None
    return health.Figures(
        now=now,
        interval_s=_float(state.get(health.INTERVAL)),
        last_poll_ok=_int(state.get(health.POLL_OK)),
        oldest_waiting=int(oldest) if oldest is not None else None,
        slack=state.get(health.DELIVERY) == "slack",
        last_slack_ok=_int(state.get(health.SLACK_OK)),
        login_refused=refusal.status(now) if refusal is not None else None,
    )


def readiness(db: sqlite_utils.Database, now: int) -> health.Verdict:
    return health.judge(figures(db, now))


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None
