"""Health notices: one message to the ops channel (`[notify] ops_channel`, or `[notify.health] channel`) when
the service (its login refused, or unreachable) or the sync has been failing for longer than
`[notify.health] after`, or when alarm cards wait past the acknowledgement SLA of their priority
(core/priorities.py), and one more when it recovers. The "down" flag is kept in the records so a restart
neither repeats the first notice nor forgets to send the second; each notice sent is audited."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core import cache, read
from core.cache import get_state, set_state, write_transaction
from core.config import HealthConfig
from core.lifecycle import SAMOPS
from core.priorities import Priorities, Priority
from core.reference import new_reference
from core.sqlite_lib import sqlite_utils
from core.text import counted, duration

SLA = "sla"  # the notice of cards past their SLA; "service" and "sync" the others
MAX_CHECKED = 5000  # open alarms looked at per cycle, oldest first (as the overdue edit)


@dataclass(frozen=True)
class Notice:
    name: str  # "service" or "sync"
    down: bool  # True: the failure notice; False: the recovery notice
    text: str


def sync_failing_since(
    db: sqlite_utils.Database, started_at: int, now: int, after_ms: int
) -> tuple[int | None, str]:
    """(since when the sync of activities has been failing or stale, its last error) from the read API."""
    try:
        rows = read.freshness(db)
    except NotImplementedError:
        return None, ""
    row = next((r for r in rows if r.table == "activities"), None)
    last_success = row.last_success if row else None
    error = (row.last_error or "") if row else "no sync has run yet"
    failed_after_success = bool(row and row.last_error_at and row.last_error_at > (last_success or 0))
    stale = last_success is None or now - last_success > after_ms
    if failed_after_success or stale:
        return last_success or started_at, error or "no successful sync recently"
    return None, ""


def sla_failing_since(
    db: sqlite_utils.Database, priorities: Priorities, channels: Sequence[str], now: int
) -> tuple[int | None, str]:
    """(since when the oldest open alarm card is past its priority's SLA, what is late), or (None, "")."""
    slas = [ms for p in Priority if (ms := priorities.sla_ms(p)) is not None]
    if not slas or not channels:
        return None, ""
    late: list[tuple[int, str]] = []
    for alarm, _, _, _ in read.open_on_cards(db, channels, 0, now - min(slas), MAX_CHECKED):
        due = priorities.due_at(alarm)
        if due is not None and due <= now:
            late.append((due, priorities.of(alarm).label))
    if not late:
        return None, ""
    since, label = min(late)
    how_long = duration((now - since) / 1000)
    return since, f"{counted(len(late), 'open alarm card')}, the oldest {label} past it for {how_long}"


class HealthMonitor:
    def __init__(self, db: sqlite_utils.Database, config: HealthConfig) -> None:
        self.db = db
        self.after_ms = int(config.after * 1000)

    def check(self, name: str, failing_since: int | None, detail: str, now: int) -> Notice | None:
        """The notice due now for `name`, if any; call `sent` once it has been delivered."""
        down_since = get_state(self.db, f"health:{name}")
        if name == SLA and failing_since is not None and down_since is None:  # the SLA is its own grace
            return Notice(name, True, f":warning: Alarm cards wait past their acknowledgement SLA: {detail}")
        if name == SLA and failing_since is None and down_since is not None:
            return Notice(name, False, ":white_check_mark: No alarm card waits past its SLA any more.")
        if failing_since is not None and down_since is None and now - failing_since >= self.after_ms:
            seconds = (now - failing_since) // 1000
            how_long = f"{seconds} s" if seconds < 120 else f"{seconds // 60} min"
            text = f":warning: The {name} has been failing for {how_long}"
            return Notice(name, True, f"{text}: {detail}" if detail else f"{text}.")
        if failing_since is None and down_since is not None:
            return Notice(name, False, f":white_check_mark: The {name} has recovered.")
        return None

    def sent(self, notice: Notice, now: int, where: str) -> None:
        """Record the notice (its episode's flag) and audit it, in one transaction."""
        with write_transaction(self.db):
            set_state(self.db, f"health:{notice.name}", str(now) if notice.down else None)
            cache.record_audit(
                self.db,
                slack_user=SAMOPS,
                command=f"ops notice {notice.name} {'down' if notice.down else 'recovered'}",
                outcome="ok",
                summary=f"{notice.text} (to {where})",
                reference=new_reference(),
                at=now,
            )
