"""The Overview page's section of silences and maintenance windows in force or planned (AppTest over a real
cache file)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.cache import quiet
from core.cache.db import open_cache
from core.cache.writes import upsert_dicts, write_transaction
from core.clock import HOUR_MS
from tests.support.seed_cache import seed_cache

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


pytestmark = pytest.mark.usefixtures("fresh_streamlit_cache")


def overview(path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("SAMOPS_DB", str(path))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_the_overview_lists_silences_and_windows_in_force_and_planned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = int(time.time() * 1000)
    db = open_cache(tmp_path / "cache.db")
    with write_transaction(db):
        upsert_dicts(db, "panels", [{"resource_id": 777, "org_id": 1001, "name": "Depot"}], "resource_id")
        quiet.silence_panel(db, 777, now + HOUR_MS, "U_TECH", now)
        quiet.add_window(db, kind="maintenance", org_id=1001, starts_at=now + 2 * HOUR_MS,
                         ends_at=now + 3 * HOUR_MS, created_at=now, reason="network works")  # fmt: skip
        lifted = quiet.add_window(db, kind="maintenance", resource_id=777, starts_at=now - HOUR_MS,
                                  ends_at=now + HOUR_MS, created_at=now, created_by="U_TECH")  # fmt: skip
        quiet.lift(db, lifted, "U_TECH", now)
    db.close()
    at = overview(tmp_path / "cache.db", monkeypatch)
    [table] = [t.value for t in at.dataframe if "Covers" in t.value.columns]
    assert list(table["Covers"]) == ["Depot (777)", "organization 1001"]
    assert list(table["Kind"]) == ["silence", "maintenance"] and list(table["In force"]) == [True, False]
    assert list(table["Reason"]) == ["", "network works"] and list(table["By"]) == ["U_TECH", "config"]


def test_without_any_the_overview_says_every_alarm_is_posted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = seed_cache(tmp_path / "cache.db", int(time.time() * 1000))  # synced, nothing quiet
    at = overview(seed.path, monkeypatch)
    assert any("every alarm is posted" in c.value for c in at.caption)
