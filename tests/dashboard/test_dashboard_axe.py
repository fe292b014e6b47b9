"""axe-core (axe-playwright-python, a pinned dev dependency) over every dashboard page in a real headless
Chromium: no serious or critical violation in samops' own content (docs/accessibility.md).

One dashboard process over one seeded cache serves every page; the pages are the sidebar's links, read from
the page itself (a page added to dashboard/app.py is checked without touching this test), plus the states a
link opens that the sidebar does not: the Alarms page's incident view and one panel's detail.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, sync_playwright

from core import lifecycle
from core.cache import audit, incidents
from core.cache.db import open_cache
from core.cache.writes import write_transaction
from core.clock import MINUTE_MS, now_ms
from core.incidents import ALARM, CAMERA_OFFLINE, TAMPER, Evidence
from core.lifecycle import Change
from tests.dashboard.test_dashboard_browser import dashboard
from tests.support.browser import ARTIFACTS, WAIT_MS, launch
from tests.support.seed_cache import ORGS, seed_cache
from tests.support.seed_dispositions import seed_dispositions

# What this test fails on: axe's serious and critical impacts (its levels are minor, moderate, serious,
# critical), and the rules issue 22 named whatever their impact (axe calls a skipped heading level moderate
# and an empty header cell minor): fixed once, they stay fixed.
FAILING_IMPACTS = frozenset({"serious", "critical"})
FAILING_RULES = frozenset({"heading-order", "empty-table-header"})

# Streamlit's own chrome: markup samops neither writes nor styles, reported upstream if anywhere. A node
# counts as Streamlit's when it lies inside one of these: the app's header bar and toolbar, the sidebar
# with its page links, the status and decoration widgets, the data grid (a canvas and its hidden
# accessible copy) and the metric tiles' sparklines (Vega SVG marks Streamlit draws without a title).
# samops' content is everything else: headings and their order, text, captions, banners, and every
# `st.html` table and badge samops writes.
STREAMLIT_CHROME = (
    '[data-testid="stHeader"]',
    '[data-testid="stToolbar"]',
    '[data-testid="stSidebar"]',
    '[data-testid="stStatusWidget"]',
    '[data-testid="stDecoration"]',
    '[data-testid="stDataFrame"]',
    '[data-testid="stMetric"] svg',
)

EXTRA_PAGES = {
    "overview-by-name": "overview",  # every page opens by its name, the default one too (issue 22)
    "alarms-incidents": "alarms?incidents=1",
    "panel-detail": "panels?panel={panel}",
}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A cache with every kind of content a page draws: alarms of every severity (the badges), handled and
    open alarms, an open incident with its timeline, audit rows, alarms resolved with dispositions. Returns
    its path and one panel's id."""
    now = now_ms()
    seeded = seed_cache(tmp_path_factory.mktemp("axe") / "cache.db", now)
    panel = next(iter(seeded.panels))
    db = open_cache(seeded.path)
    newest = "SELECT event_id FROM activities WHERE event_type = 'violation' ORDER BY activity_time DESC"
    events = [r[0] for r in db.execute(newest)][:4]
    opened = now - 30 * MINUTE_MS
    lifecycle.apply(db, events[0], Change.ACKNOWLEDGED, "U_TECH", opened + 2 * MINUTE_MS, opened_at=opened)
    lifecycle.apply(db, events[1], Change.ACKNOWLEDGED, "U_TECH", opened + 4 * MINUTE_MS, opened_at=opened)
    lifecycle.apply(db, events[1], Change.RESOLVED, "U_TECH", opened + 9 * MINUTE_MS, opened_at=0, note="ok")
    lifecycle.open_alarms(db, [(events[2], opened), (events[3], opened)], now)
    parts = [
        Evidence(CAMERA_OFFLINE, now - 1 * MINUTE_MS, panel, None, "camera:1", "Yard cam (9) disabled"),
        Evidence(TAMPER, now - 3 * MINUTE_MS, panel, None, "EV-T", "Tamper alarm on site"),
        Evidence(ALARM, now - 5 * MINUTE_MS, panel, None, "EV-A", "Burglary alarm on site"),
    ]
    with write_transaction(db):
        incidents.record(db, parts, 10 * MINUTE_MS, now, alarms=["EV-T", "EV-A"])
    audit.record(db, slack_user="U_TECH", command=f"alarm acknowledge {events[0]}", outcome="ok",
                 summary=f"acknowledge alarm {events[0]}", reference="R-AAAAA1", at=now - 3000)  # fmt: skip
    audit.record(db, slack_user="U_VIEW", command="alarm resolve X", outcome="denied",
                 summary="refused: role too low", reference="R-AAAAA2", at=now - 2000)  # fmt: skip
    db.close()
    # Alarms resolved with dispositions, some panels over the threshold: the False alarms page's tables.
    seed_dispositions(seeded.path, now, {rid: ORGS[(rid - 5001) % 2][0] for rid in seeded.panels}, count=60)
    return seeded.path, panel


def settled(page: Page, url: str) -> None:
    """Open `url` and wait until Streamlit has drawn the page: the title is there and no run is going on."""
    page.goto(url)
    page.locator("h1").first.wait_for(state="visible", timeout=WAIT_MS)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidget]')"
        " && document.querySelectorAll('[data-stale=true]').length === 0",
        timeout=WAIT_MS,
    )
    page.wait_for_timeout(1000)  # charts and fragments finish drawing


def in_chrome(page: Page, target: list[Any]) -> bool:
    """Whether axe's node `target` (a selector path; a list for nodes inside frames or shadow roots) is inside
    Streamlit's chrome."""
    selector = target[-1] if isinstance(target[-1], str) else target[-1][-1]
    return page.evaluate(
        "([sel, chrome]) => { const e = document.querySelector(sel);"
        " return !!e && chrome.some(c => e.closest(c) !== null); }",
        [selector, list(STREAMLIT_CHROME)],
    )


def own_violations(page: Page, results: dict[str, Any]) -> list[str]:
    """The failing violations of samops' own content, one line per node."""
    found = []
    for violation in results["violations"]:
        if violation["impact"] not in FAILING_IMPACTS and violation["id"] not in FAILING_RULES:
            continue
        for node in violation["nodes"]:
            if in_chrome(page, node["target"]):
                continue
            found.append(f"{violation['id']} ({violation['impact']}): {node['target']} {node['html'][:160]}")
    return found


def sidebar_pages(page: Page, base: str) -> dict[str, str]:
    """Each page the sidebar links to, by its URL path."""
    links = page.locator('[data-testid="stSidebarNav"] a').evaluate_all("as => as.map(a => a.href)")
    pages = {href.removeprefix(base).strip("/") or "overview": href for href in links}
    assert len(pages) >= 6, pages  # the six pages of dashboard/app.py at least
    return pages


@pytest.mark.slow
@pytest.mark.browser
def test_no_serious_violation_of_samops_own_on_any_page(seeded: tuple[Path, int]) -> None:
    db, panel = seeded
    problems: dict[str, list[str]] = {}
    with dashboard(db) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1440, "height": 1400})
        settled(page, f"{base}/")
        pages = sidebar_pages(page, base)
        pages |= {name: f"{base}/{path.format(panel=panel)}" for name, path in EXTRA_PAGES.items()}
        axe = Axe()
        report: dict[str, Any] = {}
        for name, url in pages.items():
            settled(page, url)
            if name == "alarms-incidents":  # the incident's timeline is inside its expander: open it
                page.locator('[data-testid="stExpander"] summary').first.click()
                page.wait_for_timeout(1000)
            assert "Page not found" not in page.content(), url
            if name == "overview-by-name":
                assert "Overview" in page.locator("h1").first.inner_text()
            results = axe.run(page).response
            report[name] = results["violations"]
            if own := own_violations(page, results):
                problems[name] = own
        browser.close()
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "axe-dashboard.json").write_text(json.dumps(report, indent=1))  # every impact, for a look
    assert not problems, json.dumps(problems, indent=1)
