"""The Handling page lists the alarms not resolved by priority, then oldest first, with overdue ones marked
(the config's [[priorities]] and [sla]); a bad entry there is named on the page, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import lifecycle
from core.cache.db import open_cache
from core.clock import MINUTE_MS, now_ms
from core.lifecycle import Change
from tests.support.apptest import open_page
from tests.support.seed_cache import seed_cache

pytestmark = pytest.mark.usefixtures("fresh_streamlit_cache")


@pytest.fixture
def events(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Alarms of three kinds left open (one acknowledged), opened 20 and 1 minutes ago."""
    now = now_ms()
    seeded = seed_cache(tmp_path / "cache.db", now)
    db = open_cache(seeded.path)
    pick = "SELECT event_id FROM activities WHERE violation_type = ? ORDER BY event_id LIMIT 2"
    warning_old, warning_new = [r[0] for r in db.execute(pick, ["warning"])]
    [gray] = [r[0] for r in db.execute(pick.replace("2", "1"), ["gray"])]
    alarm_old, alarm_acked = [r[0] for r in db.execute(pick, ["alarm"])]
    old, new = now - 20 * MINUTE_MS, now - MINUTE_MS
    lifecycle.open_alarms(db, [(warning_old, old), (gray, old), (alarm_old, old), (alarm_acked, old)], now)
    lifecycle.open_alarms(db, [(warning_new, new)], now)
    lifecycle.apply(db, alarm_acked, Change.ACKNOWLEDGED, "U_TECH", old + MINUTE_MS, opened_at=old)
    db.close()
    monkeypatch.setenv("SAMOPS_DB", str(seeded.path))
    return {"warning_old": warning_old, "warning_new": warning_new, "gray": gray, "alarm_old": alarm_old,
            "alarm_acked": alarm_acked}  # fmt: skip


def rows(events: dict[str, str]) -> list[tuple[str, str, str]]:
    at = open_page("views/handling.py")
    assert not at.exception and not at.error
    names = {v: k for k, v in events.items()}
    table = at.dataframe[2].value
    return [
        (names[e], p, o) for e, p, o in zip(table["Event"], table["Priority"], table["Overdue"], strict=True)
    ]


def test_open_alarms_by_priority_then_age(
    events: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "samops.toml"
    config.write_text('[[priorities]]\npriority = "P2"\nviolation_types = ["gray"]\n\n[sla]\nP3 = "10m"\n')
    monkeypatch.setenv("SAMOPS_CONFIG", str(config))
    [alarm_a, alarm_b, *rest] = rows(events)
    assert {alarm_a[0], alarm_b[0]} == {"alarm_old", "alarm_acked"}  # P1, both opened at once
    assert {alarm_a, alarm_b} == {("alarm_old", "P1", "overdue"), ("alarm_acked", "P1", "")}
    assert rest == [("gray", "P2", "overdue"), ("warning_old", "P3", "overdue"), ("warning_new", "P3", "")]


def test_a_bad_priority_entry_is_named_and_the_defaults_used(
    events: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "samops.toml"
    config.write_text('[[priorities]]\npriority = "P7"\n')
    monkeypatch.setenv("SAMOPS_CONFIG", str(config))
    at = open_page("views/handling.py")
    assert not at.exception
    assert any("priorities.0.priority" in w.value for w in at.warning)
    table = at.dataframe[2].value
    assert list(table["Priority"])[-1] == "P4"  # gray, by default
