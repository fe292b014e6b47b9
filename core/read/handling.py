"""How alarms are handled (core/lifecycle.py's tables): time to acknowledge and to resolve, per day and per
panel; the alarms still open, by age; the states of a storm card's alarms.

Time to acknowledge is acknowledged_at - opened_at (opened_at is the alarm's own time, or for an alarm that
reached samops late, when it arrived: docs/history.md), time to resolve is
resolved_at - opened_at. The median is the middle value (the mean of the two middle ones for an even count);
p90 is the nearest-rank 90th percentile: the smallest value with at least 90 % of the values at or below it.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from core.alarms import Alarm, alarm_from
from core.cache.alarm_sql import ALARM_COLUMNS
from core.clock import HOUR_MS, MINUTE_MS
from core.lifecycle import HOLDER_COLUMN, State, states
from core.priorities import Priorities, Priority
from core.read.history import is_late
from core.read.priority_order import priority_sql
from core.read.rows import query, tuples
from core.sqlite_lib import sqlite_utils


@dataclass(frozen=True)
class Figures:
    """Handling times of one group (a day, a panel) in milliseconds; None where nothing was handled."""

    key: str  # the day ("2026-11-23") or the panel id
    label: str  # the day, or the panel's name and id
    alarms: int  # alarms opened in the group
    acknowledged: int
    tta_median: float | None
    tta_p90: float | None
    resolved: int
    ttr_median: float | None
    ttr_p90: float | None
    late: int = 0  # alarms that reached samops late (core.read.history): opened, and timed, from then


@dataclass(frozen=True)
class OpenAlarm:
    event_id: str
    resource_id: int | None
    panel_name: str | None
    opened_at: int
    state: State
    holder: str | None
    age_ms: int
    priority: Priority | None = None  # when the read was given the priorities
    overdue: bool = False  # still open (not acknowledged) past its priority's SLA


@dataclass(frozen=True)
class Standing:
    """Where an alarm stands in its lifecycle, and who holds it (core.lifecycle's one rule: the assignee)."""

    state: State
    holder: str | None


def standings(db: sqlite_utils.Database, event_ids: Iterable[str]) -> dict[str, Standing]:
    """Where each of these alarms stands (the Alarms page's state column, as the card shows it). An alarm
    samops has no lifecycle record of is absent: it was never posted to Slack with buttons (it came before
    the notifier's first start, a silence held it back, or it is not delivered yet)."""
    return {event_id: Standing(s.state, s.holder) for event_id, s in states(db, event_ids).items()}


# Age buckets of open alarms: (upper bound in ms, label); the last catches the rest.
AGE_BUCKETS: tuple[tuple[float, str], ...] = (
    (15 * MINUTE_MS, "< 15 min"),
    (HOUR_MS, "15–60 min"),
    (4 * HOUR_MS, "1–4 h"),
    (24 * HOUR_MS, "4–24 h"),
    (math.inf, "> 24 h"),
)


def median(values: Sequence[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def p90(values: Sequence[float]) -> float | None:
    """Nearest rank: the ceil(0.9 n)-th smallest value."""
    if not values:
        return None
    ordered = sorted(values)
    return float(ordered[max(1, math.ceil(0.9 * len(ordered))) - 1])


_ROWS = (
    "SELECT s.event_id AS event_id, s.state AS state, s.opened_at AS opened_at,"
    " s.acknowledged_at AS acknowledged_at, s.resolved_at AS resolved_at, a.resource_id AS resource_id,"
    " p.name AS panel_name, a.activity_time AS activity_time, a.seen_at AS seen_at"
    " FROM alarm_state s LEFT JOIN activities a ON a.event_id = s.event_id"
    " LEFT JOIN panels p ON p.resource_id = a.resource_id WHERE s.opened_at >= ? AND s.opened_at < ?"
)


def handling_times(
    db: sqlite_utils.Database, since: int, until: int, *, by: str = "day", zone: ZoneInfo | None = None
) -> list[Figures]:
    """Figures per day (in `zone`, UTC by default) or per panel (`by="panel"`) of the alarms opened in
    [since, until); days oldest first, panels slowest (median time to acknowledge) first."""
    if by not in {"day", "panel"}:
        raise ValueError("by must be 'day' or 'panel'")
    tz = zone or UTC
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    labels: dict[str, str] = {}
    for row in query(db, _ROWS, [since, until]):
        if by == "day":
            key = datetime.fromtimestamp(row["opened_at"] / 1000, tz).date().isoformat()
            labels[key] = key
        else:
            rid = row["resource_id"]
            key = str(rid) if rid is not None else "?"
            labels[key] = f"{row['panel_name'] or 'panel'} ({key})"
        groups[key].append(row)
    figures = [_figures(key, labels[key], rows) for key, rows in groups.items()]
    if by == "day":
        return sorted(figures, key=lambda f: f.key)
    return sorted(figures, key=lambda f: (-(f.tta_median or -1), f.key))


def _figures(key: str, label: str, rows: Iterable[dict[str, Any]]) -> Figures:
    rows = list(rows)
    tta = [r["acknowledged_at"] - r["opened_at"] for r in rows if r["acknowledged_at"] is not None]
    ttr = [r["resolved_at"] - r["opened_at"] for r in rows if r["resolved_at"] is not None]
    late = sum(is_late(r["activity_time"] or 0, r["seen_at"]) for r in rows)
    return Figures(
        key, label, len(rows), len(tta), median(tta), p90(tta), len(ttr), median(ttr), p90(ttr), late
    )


def open_alarms(
    db: sqlite_utils.Database, now: int, limit: int = 1000, priorities: Priorities | None = None
) -> list[OpenAlarm]:
    """Alarms not resolved yet (open or acknowledged), oldest first; with `priorities`, by priority then
    oldest first, each with its priority and whether it is overdue."""
    order = "" if priorities is None else f"{priority_sql(db, priorities)}, "
    rows = query(
        db,
        "SELECT s.event_id AS event_id, s.state AS state, s.opened_at AS opened_at,"
        f" s.{HOLDER_COLUMN} AS holder, a.resource_id AS resource_id, p.name AS panel_name,"
        " a.org_id AS org_id, a.event_type AS event_type, a.violation_name AS violation_name,"
        " a.violation_type AS violation_type"
        " FROM alarm_state s LEFT JOIN activities a ON a.event_id = s.event_id"
        " LEFT JOIN panels p ON p.resource_id = a.resource_id WHERE s.state != ?"
        f" ORDER BY {order}s.opened_at, s.event_id LIMIT ?",
        [State.RESOLVED.value, limit],
    )
    found: list[OpenAlarm] = []
    for r in rows:
        state = State(r["state"])
        priority, overdue = None, False
        if priorities is not None:
            alarm = Alarm(
                r["event_id"], r["resource_id"], r["org_id"], r["opened_at"], None,
                r["event_type"], r["violation_name"], r["violation_type"], r["panel_name"],
            )  # fmt: skip
            priority = priorities.of(alarm)
            overdue = state is State.OPEN and priorities.overdue(alarm, now)
        found.append(
            OpenAlarm(
                r["event_id"],
                r["resource_id"],
                r["panel_name"],
                r["opened_at"],
                state,
                r["holder"],
                max(0, now - r["opened_at"]),
                priority,
                overdue,
            )
        )
    return found


def open_by_age(alarms: Iterable[OpenAlarm]) -> list[tuple[str, int, int]]:
    """(bucket label, open, acknowledged) for each age bucket, youngest first; every bucket is listed."""
    counts: Counter[tuple[str, State]] = Counter()
    for alarm in alarms:
        label = next(label for bound, label in AGE_BUCKETS if alarm.age_ms < bound)
        counts[(label, alarm.state)] += 1
    return [
        (label, counts[(label, State.OPEN)], counts[(label, State.ACKNOWLEDGED)]) for _, label in AGE_BUCKETS
    ]


def state_counts(db: sqlite_utils.Database, event_ids: Sequence[str]) -> dict[State, int]:
    """How many of `event_ids` are in each state (an alarm with no state yet counts as open)."""
    counts = dict.fromkeys(State, 0)
    for start in range(0, len(event_ids), 500):
        chunk = list(event_ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        found = dict(
            tuples(db, f"SELECT event_id, state FROM alarm_state WHERE event_id IN ({marks})", chunk)
        )
        for event_id in chunk:
            counts[State(found.get(event_id, State.OPEN.value))] += 1
    return counts


def card_alarms(db: sqlite_utils.Database, channel: str, ts: str) -> list[tuple[str, int]]:
    """(event_id, activity_time) of the alarms grouped into the storm card at (channel, ts), oldest first."""
    rows = tuples(
        db,
        "SELECT o.event_id, a.activity_time FROM notify_outbox o JOIN activities a ON a.event_id = o.event_id"
        " WHERE o.channel = ? AND o.ts = ? AND o.state = 'grouped' ORDER BY a.activity_time, o.rowid",
        [channel, ts],
    )
    return [(str(r[0]), int(r[1] or 0)) for r in rows]


def card_states(db: sqlite_utils.Database, channel: str, ts: str) -> dict[State, int]:
    """How many alarms of the storm card at (channel, ts) are in each state."""
    return state_counts(db, [event_id for event_id, _ in card_alarms(db, channel, ts)])


def open_on_cards(
    db: sqlite_utils.Database, channels: Sequence[str], opened_after: int, opened_before: int, limit: int
) -> list[tuple[Alarm, str, str, int]]:
    """(alarm, channel, card ts, opened_at) of the alarms still open on posted cards in `channels` that
    happened in [opened_after, opened_before], oldest first, at most `limit` (the escalation's look)."""
    marks = ",".join("?" * len(channels))
    rows = query(
        db,
        f"SELECT {ALARM_COLUMNS}, o.channel AS card_channel, o.ts AS card_ts, s.opened_at AS opened_at"
        " FROM alarm_state s"
        " JOIN notify_outbox o ON o.event_id = s.event_id JOIN activities a ON a.event_id = s.event_id"
        " LEFT JOIN panels p ON p.resource_id = a.resource_id"
        " WHERE s.state = ? AND o.ts IS NOT NULL AND o.state IN ('posted', 'grouped')"
        f" AND o.channel IN ({marks}) AND s.opened_at >= ? AND s.opened_at <= ?"
        " ORDER BY s.opened_at, s.event_id LIMIT ?",
        [State.OPEN.value, *channels, opened_after, opened_before, limit],
    )
    return [(alarm_from(r), str(r["card_channel"]), str(r["card_ts"]), int(r["opened_at"])) for r in rows]
