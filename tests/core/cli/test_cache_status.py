"""`samops status` over a real cache file."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from core.cache.db import open_cache
from core.cache.writes import upsert_dicts
from core.cli import status


def test_status_shows_freshness_backlog_and_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cache.db"
    db = open_cache(path)
    now = int(time.time() * 1000)
    upsert_dicts(db, "panels", [{"resource_id": i, "name": f"P{i}"} for i in range(3)], "resource_id")
    upsert_dicts(
        db,
        "sync_state",
        [
            {"table_name": "panels", "last_success": now - 120_000},
            {
                "table_name": "cameras",
                "last_success": now - 7_200_000,
                "last_error": "boom",
                "last_error_at": now,
            },
        ],
        "table_name",
    )
    outbox = [
        {"event_id": "e1", "channel": "C1", "state": "pending", "attempts": 3, "last_error": "ratelimited"},
        {"event_id": "e2", "channel": "C1", "state": "pending", "attempts": 0},
        {"event_id": "e3", "channel": "C1", "state": "posted", "attempts": 1},
    ]
    upsert_dicts(db, "notify_outbox", outbox, "event_id")
    db.close()

    assert status.main(["--db", str(path)]) == 0

    out = capsys.readouterr().out
    panels_line = next(line for line in out.splitlines() if " panels " in line)
    assert "3" in panels_line and "2 min ago" in panels_line
    cameras_line = next(line for line in out.splitlines() if " cameras " in line)
    assert "2 h ago" in cameras_line and "boom" in cameras_line
    assert "activities" in out and "never" in out
    assert "Notifier backlog: 2 pending" in out
    assert "e1" in out and "ratelimited" in out and "e2" not in out


def test_status_without_a_cache_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert status.main(["--db", str(tmp_path / "missing.db")]) == 1
    assert "run `samops sync`" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()


@pytest.mark.parametrize(("at", "text"), [(None, "never"), (5_000, "5 s ago"), (90_000, "1 min ago")])
def test_ago(at: int | None, text: str) -> None:
    assert status.ago(None if at is None else 100_000 - at, 100_000) == text


def test_status_says_whether_alarms_flow_as_readyz_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from core import health
    from core.cache import set_state, write_transaction

    path = tmp_path / "cache.db"
    db = open_cache(path)
    db.close()
    assert status.main(["--db", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Alarms do not flow (/readyz answers 503)" in out
    assert "no successful poll of the service recorded yet" in out

    db = open_cache(path)
    now = int(time.time() * 1000)
    with write_transaction(db):  # what a notifier records after a good cycle (bot/notify/watch.py)
        for key, value in {
            health.POLL_OK: now,
            health.INTERVAL: 5,
            health.SLACK_OK: now,
            health.DELIVERY: "slack",
        }.items():
            set_state(db, key, str(value))
    db.close()
    assert status.main(["--db", str(path)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"Alarms flow \(as /readyz says\): last good poll \d s ago", out), out
    assert "alarms waiting for their card: none" in out and "login ok" in out
