"""Health notices: one message to the ops channel when the service or the sync has been failing for longer
than `[notify.health] after`, and one more when it recovers. The "down" flag is kept in the cache so a
restart neither repeats the first notice nor forgets to send the second."""

from __future__ import annotations

from dataclasses import dataclass

from core import read
from core.cache import get_state, set_state, write_transaction
from core.config import HealthConfig
from core.sqlite_lib import sqlite_utils


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


class HealthMonitor:
    def __init__(self, db: sqlite_utils.Database, config: HealthConfig) -> None:
        self.db = db
        self.after_ms = int(config.after * 1000)

    def check(self, name: str, failing_since: int | None, detail: str, now: int) -> Notice | None:
        """The notice due now for `name`, if any; call `sent` once it has been delivered."""
        down_since = get_state(self.db, f"health:{name}")
        if failing_since is not None and down_since is None and now - failing_since >= self.after_ms:
            seconds = (now - failing_since) // 1000
            how_long = f"{seconds} s" if seconds < 120 else f"{seconds // 60} min"
            text = f":warning: The {name} has been failing for {how_long}"
            return Notice(name, True, f"{text}: {detail}" if detail else f"{text}.")
        if failing_since is None and down_since is not None:
            return Notice(name, False, f":white_check_mark: The {name} has recovered.")
        return None

    def sent(self, notice: Notice, now: int) -> None:
        with write_transaction(self.db):
            set_state(self.db, f"health:{notice.name}", str(now) if notice.down else None)
