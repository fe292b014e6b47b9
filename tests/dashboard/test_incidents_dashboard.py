"""The Alarms page's "Group by incident" (kept in the URL as `?incidents=1`): open site incidents, each with
its timeline in time order, through Streamlit's AppTest over a real cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.cache import incidents
from core.cache.db import open_cache
from core.cache.writes import write_transaction
from core.clock import now_ms
from core.incidents import ALARM, CAMERA_OFFLINE, TAMPER, Evidence
from tests.support.apptest import open_page
from tests.support.seed_cache import seed_cache

MIN = 60_000

pytestmark = pytest.mark.usefixtures("fresh_streamlit_cache")


def test_group_by_incident_lists_open_incidents_with_their_timelines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = now_ms()
    seeded = seed_cache(tmp_path / "cache.db", now)
    monkeypatch.setenv("SAMOPS_DB", str(seeded.path))
    panel, name = next(iter(seeded.panels.items()))
    db = open_cache(seeded.path)
    parts = [  # arriving out of order
        Evidence(CAMERA_OFFLINE, now - 1 * MIN, panel, None, "camera:1", "Yard cam (9) disabled"),
        Evidence(TAMPER, now - 3 * MIN, panel, None, "EV-T", "Tamper alarm on site"),
        Evidence(ALARM, now - 5 * MIN, panel, None, "EV-A", "Burglary alarm on site"),
    ]
    with write_transaction(db):
        incidents.record(db, parts, 10 * MIN, now, alarms=["EV-T", "EV-A"])
    db.conn.close()

    at = open_page("views/alarms.py")
    assert not at.expander  # off by default: the page as it was

    at = open_page("views/alarms.py", incidents="1")
    assert at.query_params["incidents"] == "1"
    [expander] = at.expander
    assert expander.label.endswith(f"on panel {panel}: alarm, tamper, camera offline — open")
    assert any(name in t.value and "3 pieces of evidence" in t.value for t in at.text)
    timeline = at.dataframe[-1].value
    assert list(timeline["What"]) == [ALARM, TAMPER, CAMERA_OFFLINE]  # time order, not arrival
    assert timeline["Detail"].iloc[0] == "Burglary alarm on site"

    at = open_page("views/alarms.py", incidents="maybe")  # a bad value: a notice, the default (off)
    assert not at.expander and "incidents" in " ".join(c.value for c in at.caption)
