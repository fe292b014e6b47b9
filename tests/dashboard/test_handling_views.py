"""Supervisors see the handling: the dashboard's Handling and Audit pages (Streamlit's AppTest over a real
cache file), `samops audit` on the console (a real process) and `/sam audit` through the running bot, all
showing the same audit rows, with secrets masked and viewers refused."""

from __future__ import annotations

import subprocess
from pathlib import Path
from zoneinfo import ZoneInfo

import pandas as pd
import pytest

from core import lifecycle
from core.cache import audit, quiet
from core.cache.db import open_cache
from core.cache.writes import write_transaction
from core.clock import DAY_MS, MINUTE_MS, now_ms
from core.lifecycle import Change
from dashboard import export
from tests.support.apptest import open_page
from tests.support.bot import run_bot
from tests.support.processes import ROOT, samops_cmd
from tests.support.seed_cache import seed_cache
from tests.support.slack_standin import SlackStandIn

ROLES = '[roles]\nadmins = ["U_ADMIN"]\ntechnicians = ["U_TECH"]\n'


pytestmark = pytest.mark.usefixtures("fresh_streamlit_cache")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A seeded cache with handled alarms and audit rows (one holding a secret word to mask)."""
    now = now_ms()
    seeded = seed_cache(tmp_path / "cache.db", now)
    db = open_cache(seeded.path)
    newest = (
        "SELECT event_id FROM activities WHERE event_type = 'violation' ORDER BY activity_time DESC LIMIT 4"
    )
    events = [r[0] for r in db.execute(newest)][:4]
    # By hand: four alarms opened 30 min ago (one instant, so one UTC day), acknowledged after 2, 4 and
    # 6 minutes (median 4, p90 6), one resolved after 10; the fourth left open.
    opened = now - 30 * MINUTE_MS
    for event, minutes in zip(events[:3], (2, 4, 6), strict=True):
        lifecycle.apply(
            db, event, Change.ACKNOWLEDGED, "U_TECH", opened + minutes * MINUTE_MS, opened_at=opened
        )
    lifecycle.apply(db, events[0], Change.RESOLVED, "U_TECH", opened + 10 * MINUTE_MS, opened_at=0, note="ok")
    lifecycle.open_alarms(db, [(events[3], opened)], now)
    audit.record(db, slack_user="U_TECH", command=f"alarm acknowledge {events[1]}", outcome="ok",
                 summary=f"acknowledge alarm {events[1]}", reference="R-AAAAA1", at=now - 3000)  # fmt: skip
    audit.record(db, slack_user="U_VIEW", command="alarm resolve X", outcome="denied",
                 summary="refused: role too low", reference="R-AAAAA2", at=now - 2000)  # fmt: skip
    leaky = "camera 'Gate' securityCode=S3CRET1 — refused"
    audit.record(db, slack_user="U_ADMIN", command="camera add", outcome="failed", summary=leaky,
                 reference="R-AAAAA3", at=now - 1000)  # fmt: skip
    db.close()
    monkeypatch.setenv("SAMOPS_DB", str(seeded.path))
    return seeded.path


def test_handling_page_shows_the_figures_counted_by_hand(cache: Path) -> None:
    at = open_page("views/handling.py")
    [day] = at.dataframe[0].value.to_dict("records")
    assert (day["Alarms"], day["Acknowledged"], day["Resolved"]) == (4, 3, 1)
    assert (day["TTA median (min)"], day["TTA p90 (min)"], day["TTR median (min)"]) == (4.0, 6.0, 10.0)
    panels: pd.DataFrame = at.dataframe[1].value
    alarms, acknowledged = panels["Alarms"], panels["Acknowledged"]
    assert isinstance(alarms, pd.Series) and isinstance(acknowledged, pd.Series)
    assert alarms.sum() == 4 and acknowledged.sum() == 3
    oldest = at.dataframe[2].value
    assert list(oldest["State"]).count("open") == 1 and list(oldest["State"]).count("acknowledged") == 2
    assert sum(int(m.value) for m in at.metric) == 3  # open by age: two acknowledged, one open
    assert not at.error


def test_handling_tables_show_a_dash_not_none_in_empty_cells(cache: Path) -> None:
    """Issue 22: Streamlit's grid writes "None" in a missing value's cell unless given a placeholder."""
    at = open_page("views/handling.py")
    panels: pd.DataFrame = at.dataframe[1].value
    assert bool(panels["TTR median (min)"].isna().to_numpy().any())  # nothing resolved: empty cells
    assert [table.proto.placeholder for table in at.dataframe] == ["—"] * len(at.dataframe)


def test_audit_page_filters_and_masks(cache: Path) -> None:
    at = open_page("views/audit.py")
    shown = at.dataframe[0].value
    assert list(shown["Reference"]) == ["R-AAAAA3", "R-AAAAA2", "R-AAAAA1"]  # newest first
    assert "S3CRET1" not in shown.to_csv()
    at = open_page("views/audit.py", outcome="denied")
    assert list(at.dataframe[0].value["Who"]) == ["U_VIEW"]
    at = open_page("views/audit.py", command="alarm")
    assert list(at.dataframe[0].value["Reference"]) == ["R-AAAAA2", "R-AAAAA1"]
    at = open_page("views/audit.py", outcome="nonsense")
    assert len(at.dataframe[0].value) == 3  # a bad link value is ignored, with a notice
    assert any("outcome" in c.value for c in at.caption)


def test_audit_csv_carries_the_filters_and_the_viewers_zone() -> None:
    import pandas as pd

    berlin = ZoneInfo("Europe/Berlin")
    frame = pd.DataFrame({"When": pd.to_datetime([0], unit="ms", utc=True), "Who": ["U1"]})
    head = export.heading("samops audit log", "outcome: denied", 0, 0, berlin)
    csv = export.table_csv(frame, head, berlin).decode()
    assert csv.startswith("# samops audit log; filters: outcome: denied\r\n")
    assert "1970-01-01T01:00:00+01:00,U1" in csv


def test_samops_audit_on_the_console(cache: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = samops_cmd("audit", "--db", str(cache), *args)
        env = {"PATH": "/usr/bin:/bin", "COLUMNS": "250"}
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)

    shown = run()
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert out.index("R-AAAAA3") < out.index("R-AAAAA2") < out.index("R-AAAAA1")
    assert "S3CRET1" not in out and "Traceback" not in out + shown.stderr
    limited = run("--limit", "1", "--outcome", "failed")
    assert "R-AAAAA3" in limited.stdout and "R-AAAAA1" not in limited.stdout
    bad = run("--limit", "zero")
    assert bad.returncode == 2 and "not a whole number" in bad.stderr
    missing = subprocess.run(samops_cmd("audit", "--db", str(cache.parent / "none.db")), cwd=ROOT,
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    assert missing.returncode == 1 and "no cache" in missing.stderr


def test_sam_audit_is_for_admins(cache: Path, tmp_path: Path) -> None:
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=cache, config=ROLES) as bot:
        shown = bot.send_command("audit 2", user="U_ADMIN")
        assert shown.ephemeral and "the latest 2 rows" in shown.text
        assert "R-AAAAA3" in shown.text and "R-AAAAA2" in shown.text and "R-AAAAA1" not in shown.text
        assert "S3CRET1" not in shown.text
        refused = bot.send_command("audit", user="U_TECH")
        assert "admin" in refused.text and "R-AAAAA" not in refused.text
        usage = bot.send_command("audit many", user="U_ADMIN")
        assert "Usage: `/sam audit [n]`" in usage.text


def test_handling_lists_the_alarms_held_back_with_why(cache: Path) -> None:
    """Issue 33: an alarm a maintenance window held was in no list of the page; now it is, with why."""
    db = open_cache(cache)
    now = now_ms()
    row = db.execute(
        "SELECT event_id, resource_id FROM activities WHERE event_type = 'violation'"
        " AND event_id NOT IN (SELECT event_id FROM alarm_state) ORDER BY activity_time DESC LIMIT 1"
    ).fetchone()
    with write_transaction(db):
        window = quiet.add_window(db, kind=quiet.MAINTENANCE, resource_id=row[1], starts_at=now - DAY_MS,
                                  ends_at=now + DAY_MS, created_at=now, created_by="U0TECH",
                                  reference="R-BBBBB1")  # fmt: skip
        quiet.record_held(db, [(row[0], window)])
    db.close()
    at = open_page("views/handling.py")
    [held] = [d.value for d in at.dataframe if "Event" in d.value and row[0] in list(d.value["Event"])]
    [state] = list(held.loc[held["Event"] == row[0], "State"])
    assert state.startswith("held: maintenance R-BBBBB1 by @U0TECH until ")
    assert "Held back by a silence or maintenance" in [h.value for h in at.header]
    assert not at.error
