"""The panel page's Who-can section (dashboard/who_can.py), through Streamlit's AppTest over a real cache."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from core.access_windows import DayWindow, Validity
from core.cache.db import open_cache
from core.cache.transactions import write_transaction
from core.clock import DAY_MS
from core.panel_access import validity_to_json
from tests.dashboard.test_dashboard import PAGES, open_page, texts
from tests.support.seed_cache import seed_cache

PANEL = 5004


pytestmark = pytest.mark.usefixtures("fresh_streamlit_cache")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    now = int(time.time() * 1000)
    seed = seed_cache(tmp_path / "cache.db", now)
    config = tmp_path / "samops.toml"
    config.write_text('[notify]\ntimezone = "Europe/Berlin"\n', encoding="utf-8")
    monkeypatch.setenv("SAMOPS_DB", str(seed.path))
    monkeypatch.setenv("SAMOPS_CONFIG", str(config))
    every_day = Validity(windows=tuple(DayWindow(d, 0, 0) for d in range(1, 8)))  # all day, every day
    people = [
        (7001, "Ayse Arslan", ["Arm and disarm"], Validity()),
        (7002, "Mehmet Kaya", ["View cameras"], Validity(expiration=now - DAY_MS)),
        (7003, "Zeynep Demir", ["Arm and disarm", "Bypass sensors"], every_day),
    ]
    db = open_cache(seed.path)
    try:
        with write_transaction(db):
            db.conn.executemany(
                "INSERT INTO panel_access VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (PANEL, uid, 1001, name, json.dumps(groups), json.dumps(validity_to_json(v)), now)
                    for uid, name, groups, v in people
                ],
            )
    finally:
        db.close()
    return seed.path


def test_the_panel_page_shows_who_can_operate_it_now(cache: Path) -> None:
    at = open_page(PAGES[3], panel=str(PANEL))
    shown = next(df.value for df in at.dataframe if "Until / why not" in df.value.columns)
    by_name = {row["Name"]: row for row in shown.to_dict("records")}
    assert (
        by_name["Ayse Arslan"]["Now"] == "yes" and by_name["Ayse Arslan"]["Until / why not"] == "no end set"
    )
    assert by_name["Zeynep Demir"]["Now"] == "yes"
    assert by_name["Zeynep Demir"]["Groups"] == "Arm and disarm, Bypass sensors"
    assert by_name["Mehmet Kaya"]["Now"] == "no" and by_name["Mehmet Kaya"]["Until / why not"] == "expired"
    words = texts(at)
    assert "Who can operate it now · 2" in words and "times in Europe/Berlin" in words


def test_a_panel_never_asked_about_says_how_to_fill_it(cache: Path) -> None:
    at = open_page(PAGES[3], panel="5001")
    assert "Not read from the service yet" in texts(at)
