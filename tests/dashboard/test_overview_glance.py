"""The Overview's first screen (core/read/glance.py, dashboard/glance.py): its figures against a cache whose
alarms, acknowledgements, silent panels, cameras and incidents are set here and counted by hand, each figure
a link the page behind it reads (AppTest over a real cache file)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from core import lifecycle
from core.cache import incidents
from core.cache.db import open_cache
from core.cache.outbox import set_state
from core.cache.supervision import OPEN, Episode
from core.clock import MINUTE_MS, now_ms
from core.incidents import Evidence
from core.lifecycle import Change
from dashboard import glance
from tests.support.apptest import open_page
from tests.support.html_table import alarms_table, linked_figures, links
from tests.support.seed_cache import seed_cache

pytestmark = pytest.mark.usefixtures("fresh_streamlit_cache")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """By hand: P1 (kind alarm, 2 min SLA): one open for 20 min (overdue), one acknowledged 1 min after it
    opened (within), one acknowledged 10 min after (late); P3 (warning, 30 min): one open 1 min (not
    overdue), one acknowledged after 1 min (within), one resolved; P4 (gray, no SLA): one open 20 min. One
    panel silent; cameras as the spec lists them, one disabled; one open incident, one whose alarm is
    resolved."""
    now = now_ms()
    seeded = seed_cache(tmp_path / "cache.db", now)
    db = open_cache(seeded.path)
    pick = "SELECT event_id, resource_id, org_id FROM activities WHERE violation_type = ? ORDER BY event_id"
    alarms = [r[0] for r in db.execute(pick, ["alarm"])][:3]
    warnings = [r[0] for r in db.execute(pick, ["warning"])][:3]
    gray = next(r[0] for r in db.execute(pick, ["gray"]))
    old, new = now - 20 * MINUTE_MS, now - 3 * MINUTE_MS
    lifecycle.open_alarms(db, [(alarms[0], old), (alarms[1], new), (alarms[2], old), (gray, old)], now)
    lifecycle.open_alarms(db, [(w, new) for w in warnings], now)
    lifecycle.apply(db, alarms[1], Change.ACKNOWLEDGED, "U_A", new + MINUTE_MS, opened_at=new)
    lifecycle.apply(db, alarms[2], Change.ACKNOWLEDGED, "U_A", now - 2 * MINUTE_MS, opened_at=old)
    lifecycle.apply(db, warnings[1], Change.ACKNOWLEDGED, "U_B", new + MINUTE_MS, opened_at=new)
    lifecycle.apply(db, warnings[2], Change.RESOLVED, "U_B", new + MINUTE_MS, opened_at=new)
    silent = Episode("silent:5001:1", 5001, None, old, None, old, 60 * MINUTE_MS, ())
    set_state(db, OPEN + "5001", silent.to_json())
    rids = sorted(seeded.cameras)
    db.conn.execute("UPDATE cameras SET status = NULL, bind_status = NULL, sd_card_status = NULL")
    db.conn.execute("UPDATE cameras SET raw = json_set(raw, '$.enabled', json('true'))")
    db.conn.execute(
        "UPDATE cameras SET raw = json_set(raw, '$.enabled', json('false')) WHERE resource_id = ?", [rids[0]]
    )
    for alarm, panel in ((alarms[0], 5002), (warnings[2], 5003)):
        pieces = [
            Evidence("alarm", old, panel, None, alarm),
            Evidence("tamper", old + 1, panel, None, f"tamper-{panel}"),
        ]
        incidents.record(db, pieces, 10 * MINUTE_MS, now, alarms=[alarm])
    db.conn.commit()
    db.close()
    monkeypatch.setenv("SAMOPS_DB", str(seeded.path))
    monkeypatch.setenv("SAMOPS_CONFIG", str(tmp_path / "absent.toml"))  # the default priorities and SLA
    return {"oldest": alarms[0]}


def links_of(page: str) -> dict[str, str]:
    at = open_page(page)
    assert not at.error
    found = links(at)
    return {label: href for label, href, _ in found} | {f"text:{text}": href for _, href, text in found}


def figures(page: str) -> tuple[dict[str, int], str]:
    """The page's linked figures by their aria-label, and the page's HTML (for the tiles' notes)."""
    at = open_page(page)
    return linked_figures(at), "".join(element.proto.body for element in at.get("html"))


def test_the_overview_counts_what_needs_a_person_as_counted_by_hand(cache: dict[str, str]) -> None:
    shown, notes = figures("views/overview.py")
    assert shown["P1: open, not acknowledged"] == 1
    assert shown["P1: overdue"] == 1
    assert shown["P1: acknowledged, not resolved"] == 2
    assert shown["P2: open, not acknowledged"] == 0
    assert shown["P3: open, not acknowledged"] == 1
    assert shown["P3: overdue"] == 0
    assert shown["P3: acknowledged, not resolved"] == 1
    assert shown["P4: open, not acknowledged"] == 1
    assert shown["P4: overdue"] == 0  # no SLA: never overdue
    assert (shown["All: open, not acknowledged"], shown["All: overdue"]) == (3, 1)
    assert shown["All: acknowledged, not resolved"] == 3
    # Acknowledged today: the two P1, the P3 and the P3 resolved without (resolving acknowledges); the P1
    # acknowledged 10 min after it opened was late.
    assert shown["Acknowledged within SLA today: 3"] == 3
    assert "of 4 acknowledged since midnight" in notes
    assert shown["Silent panels: 1"] == 1
    assert shown["Cameras down: 1"] == 1  # the disabled one: the spec gives no status
    assert shown["Incidents open: 1"] == 1  # the other's only alarm is resolved


def test_every_figure_links_to_the_page_that_lists_it(cache: dict[str, str]) -> None:
    links = links_of("views/overview.py")
    assert links["P1: overdue"] == "/handling?priority=P1&overdue=1"
    assert links["All: open, not acknowledged"] == "/handling?state=open"
    oldest = next(href for label, href in links.items() if label.startswith("text:P1 alarm on"))
    assert dict(parse_qsl(urlsplit(oldest).query)) == {"event": cache["oldest"], "range": "all"}
    assert links["Cameras down: 1"] == "/cameras?problems=1"
    assert links["Incidents open: 1"] == "/alarms?incidents=1&range=all"
    errors = next(v for k, v in links.items() if k.startswith("Sensor errors, 24 h"))
    assert errors == "/alarms?type=error&range=24h"
    # The pages read these filters: the Handling page lists the one overdue P1 alarm, the Alarms page the one.
    at = open_page("views/handling.py", priority="P1", overdue="1")
    [table] = [d.value for d in at.dataframe if "Overdue" in d.value]
    assert list(table["Event"]) == [cache["oldest"]]
    at = open_page("views/alarms.py", event=cache["oldest"], range="all")
    shown = alarms_table(at)
    assert shown is not None
    assert list(shown["Priority"]) == ["P1"]


def test_link_leaves_out_what_is_not_set() -> None:
    assert glance.link("handling", priority=None, state="open") == "/handling?state=open"
    assert glance.link("at-risk") == "/at-risk"
