"""The dashboard's false-alarm accountability against counting by hand: alarms over 100 days resolved with
random dispositions through the Resolve form's write, then the False alarms page (Streamlit's AppTest over a
real cache file, with a `[false_alarms]` threshold from the config), the Alarms page's Disposition column and
the Alarms CSV export's code and label, each compared with the seeded list."""

from __future__ import annotations

import csv
import functools
import io
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from core import read
from core.cache.db import open_cache
from core.cache.writes import write_transaction
from core.clock import DAY_MS, now_ms
from dashboard import data, export
from tests.support.apptest import open_page
from tests.support.html_table import alarms_table
from tests.support.seed_cache import ORGS, seed_cache
from tests.support.seed_dispositions import Closed, seed_dispositions

pytestmark = pytest.mark.usefixtures("fresh_streamlit_cache")
THRESHOLD = 7


@pytest.fixture
def seeded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[Closed]]:
    now = now_ms()
    cache = seed_cache(tmp_path / "cache.db", now)
    panels = {rid: ORGS[(rid - 5001) % 2][0] for rid in cache.panels}
    closed = seed_dispositions(cache.path, now, panels)
    config = tmp_path / "samops.toml"
    config.write_text(f"[false_alarms]\nthreshold = {THRESHOLD}\ndays = 30\n", encoding="utf-8")
    monkeypatch.setenv("SAMOPS_DB", str(cache.path))
    monkeypatch.setenv("SAMOPS_CONFIG", str(config))
    return cache.path, closed


def _frame(at: AppTest, first_column: str) -> pd.DataFrame:
    """The rates table whose first column is `first_column` (the flagged panels' table has no rates)."""
    tables = [d.value for d in at.dataframe]
    [found] = [t for t in tables if t.columns[0] == first_column and "False (90 d)" in t.columns]
    return found


def test_the_false_alarms_page_matches_counting_by_hand(seeded: tuple[Path, list[Closed]]) -> None:
    _, closed = seeded
    now = now_ms()
    at = open_page("views/false_alarms.py")
    assert not at.error and not at.warning
    per_panel = _frame(at, "Panel")
    rows = per_panel[per_panel.columns[0]].tolist()
    assert len(rows) == len({c.resource_id for c in closed if c.klass is not None})
    for record in per_panel.to_dict("records"):
        mine = [c for c in closed if str(c.resource_id) == record["Id"] and c.klass is not None]
        for days in (7, 30, 90):
            recent = [c for c in mine if c.at >= now - days * DAY_MS]
            false = sum(1 for c in recent if c.klass == "false")
            assert (record[f"False ({days} d)"], record[f"Resolved ({days} d)"]) == (false, len(recent))
            rate = record[f"Rate ({days} d), %"]
            assert (None if pd.isna(rate) else rate) == (
                round(100 * false / len(recent), 1) if recent else None
            )
    by_hand = Counter(c.resource_id for c in closed if c.klass == "false" and c.at >= now - 30 * DAY_MS)
    over = {str(rid) for rid, n in by_hand.items() if n >= THRESHOLD}
    assert over and over != {str(r) for r in by_hand}, "the seed should flag some panels and not others"
    assert {r["Id"] for r in per_panel.to_dict("records") if r["Over the threshold"] == "yes"} == over
    [flagged] = [d.value for d in at.dataframe if "False alarms (30 d)" in d.value.columns]
    assert dict(zip(flagged["Id"], flagged["False alarms (30 d)"], strict=True)) == {
        rid: by_hand[int(rid)] for rid in over
    }
    last_90 = [c for c in closed if c.klass is not None and c.at >= now - 90 * DAY_MS]
    per_org = _frame(at, "Organization")
    for record in per_org.to_dict("records"):
        ninety = [c for c in last_90 if str(c.org_id) == record["Id"]]
        assert record["Resolved (90 d)"] == len(ninety)
        assert record["False (90 d)"] == sum(1 for c in ninety if c.klass == "false")
    per_kind = _frame(at, "Alarm kind")
    assert dict(zip(per_kind["Alarm kind"], per_kind["False (90 d)"], strict=True)) == dict(
        Counter(c.kind for c in last_90 if c.klass == "false")
    )
    assert f"{THRESHOLD} false alarms or more within 30 days" in " ".join(c.value for c in at.caption)


def test_one_organization_and_a_bad_config_said_not_hidden(
    seeded: tuple[Path, list[Closed]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = open_page("views/false_alarms.py", org=str(ORGS[1][0]))
    assert set(_frame(at, "Organization")["Id"]) == {str(ORGS[1][0])}
    for hostile in ("99999999999999999999999", "<script>", "4242"):  # beyond int64, no id, not cached
        at = open_page("views/false_alarms.py", org=hostile)
        assert len(_frame(at, "Organization")) == len(ORGS)  # all of them, with a notice
        assert any("The link's" in c.value or "not in the cache" in c.value for c in at.caption)
    bad = tmp_path / "bad.toml"
    bad.write_text("[false_alarms]\nthreshold = 0\n", encoding="utf-8")
    monkeypatch.setenv("SAMOPS_CONFIG", str(bad))
    at = open_page("views/false_alarms.py")
    assert any("false_alarms.threshold" in w.value for w in at.warning)


def _expected(closed: list[Closed]) -> dict[tuple[int, int], tuple[str, str]]:
    """(second, panel id) -> (code, label) of every alarm resolved with a disposition (the CSV's times are
    to the second)."""
    return {(c.at // 1000, c.resource_id): (c.code, c.label) for c in closed if c.code and c.label}


def test_the_alarms_page_and_its_csv_show_the_disposition(seeded: tuple[Path, list[Closed]]) -> None:
    path, closed = seeded
    at = open_page("views/alarms.py", range="30d")
    table = alarms_table(at)
    assert table is not None and "Disposition" in table.columns
    labels = {(c.at // 1000, c.resource_id): c.label or "" for c in closed}
    columns = zip(table["Time"], table["Panel id"], table["Disposition"], strict=True)
    shown = [(int(t.timestamp()), int(p), d) for t, p, d in columns]
    ours = [(t, p, d) for t, p, d in shown if (t, p) in labels]
    assert ours and all(d == labels[(t, p)] for t, p, d in ours)
    assert {d for t, p, d in shown if (t, p) not in labels} == {""}  # seed_cache's alarms: none resolved

    payload = export.alarms_csv(
        data.alarm_chunks(str(path), read.AlarmFilter()),
        "",
        UTC,
        functools.partial(data.closed_now, str(path)),
    ).decode()
    header, *body = list(csv.reader(io.StringIO(payload)))
    assert header == [*export.ALARM_COLUMNS, "Disposition", "Disposition label"]
    found = {(int(datetime.fromisoformat(r[0]).timestamp()), int(r[4])): (r[8], r[9]) for r in body if r[8]}
    assert found == _expected(closed)


def test_a_panel_name_from_the_service_is_never_markup(seeded: tuple[Path, list[Closed]]) -> None:
    path, _ = seeded
    hostile = "⁂![p](http://127.0.0.1:9/p.png) [x](http://127.0.0.1:9/l) :red[**boom**] <b>b</b> $x^2$"
    db = open_cache(path)
    with write_transaction(db):
        db.execute("UPDATE panels SET name = ?", [hostile])  # every panel: the flagged ones too
    db.close()
    at = open_page("views/false_alarms.py")
    kinds = ("title", "header", "markdown", "caption", "info", "warning", "error")
    markup = [str(getattr(e, "value", "")) for kind in kinds for e in at.get(kind)]
    assert markup and not any("⁂" in text for text in markup)
    names = {n for d in at.dataframe if "Panel" in d.value.columns for n in d.value["Panel"]}
    assert names == {hostile}  # shown, as the text it is, in the tables
