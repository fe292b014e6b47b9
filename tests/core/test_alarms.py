"""One definition of an alarm (core.alarms): the SQL and the Python test agree, and every surface uses it."""

from __future__ import annotations

import sqlite3
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from bot.render.alarms import severity
from bot.render.panels import PanelStatus, activity_line, panel_blocks
from core.alarms import KINDS, SEVERITY, is_alarm, kind_of, level_of, severity_rank
from core.cache.alarm_sql import alarm_sql
from core.contrast import DARK_INK, LIGHT_INK, READABLE, contrast, ink_on
from core.models import Activity

# Values the service sends, the spec's and some it might: case variants, empty text, nothing.
VALUES = st.one_of(
    st.none(),
    st.sampled_from(["violation", "Violation", "VIOLATION", "", " ", "alarm", "error", "info", *SEVERITY]),
    st.text(max_size=12),
)


@given(event_type=VALUES, violation_type=VALUES)
def test_the_sql_and_the_python_test_of_an_alarm_agree(
    event_type: str | None, violation_type: str | None
) -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE activities (event_type TEXT, violation_type TEXT)")
    db.execute("INSERT INTO activities VALUES (?, ?)", [event_type, violation_type])
    in_sql = db.execute(f"SELECT count(*) FROM activities a WHERE {alarm_sql('a')}").fetchone()[0] == 1
    assert in_sql == is_alarm(event_type, violation_type)


def test_severity_is_ordered_and_every_kind_has_a_level_icon_and_colour() -> None:
    assert SEVERITY == ("alarm", "red", "error", "warning", "yellow", "gray")
    assert [severity_rank(k) for k in SEVERITY] == list(range(len(SEVERITY)))
    assert severity_rank("Something else") == len(SEVERITY)
    assert kind_of("WARNING") is KINDS[3]
    assert all(k.icon.startswith(":") and k.colour.startswith("#") for k in KINDS)
    # The card levels the notifier drew before there was one definition.
    assert [level_of(k).name for k in SEVERITY] == ["red", "red", "red", "yellow", "yellow", "gray"]
    assert severity(None, "alarm") == "red" and severity("fire") == "gray"


def _activity(event_type: str | None, violation_type: str | None, n: int) -> Activity:
    return Activity(
        event_id=f"E{n}",
        activity_time=1_763_900_000_000 + n,
        event_type=event_type,
        violation_type=violation_type,
        violation_name=f"zone {n}",
    )


def test_panel_counts_alarms_as_the_cache_does() -> None:
    # Drift fixed: /sam panel counted only violationType alarm/red, while the cache (and /sam alarms) count
    # every violation and every violationType.
    activities = [
        _activity("violation", "alarm", 1),
        _activity("violation", "warning", 2),
        _activity("violation", None, 3),
        _activity("arm", None, 4),
    ]
    status = PanelStatus(7, "Shop", None, None, True, 1, {}, [], [], activities, 4, 1_763_900_001_000)
    blocks = panel_blocks(status, ZoneInfo("UTC")).blocks
    text = "\n".join(str(b) for b in blocks)
    assert "Last 4 activities* — 3 alarms" in text
    assert activity_line(activities[1], ZoneInfo("UTC")).startswith(":rotating_light: *")
    assert activity_line(activities[3], ZoneInfo("UTC")).startswith("• ")


def test_every_severity_badge_reads_at_wcag_contrast() -> None:
    """Each kind keeps its colour (told apart at a glance) and gets the ink that reads on it at 4.5:1."""
    for kind in KINDS:
        assert contrast(kind.ink, kind.colour) >= READABLE, kind
    error = kind_of("error")
    assert error is not None and round(contrast(LIGHT_INK, error.colour), 2) == 2.05  # white on it: issue 22


def test_contrast_is_measured_as_wcag_does() -> None:
    assert round(contrast("#000000", "#ffffff"), 1) == 21.0
    assert contrast("#777777", "#777777") == 1.0
    assert ink_on("#ffffff") == DARK_INK and ink_on("#000000") == LIGHT_INK
