"""At 1280 px nothing the dashboard writes is clipped, and the Alarms table shows 15 rows or more on a 1080 px
screen (issue 37), checked in a real headless Chromium over a seeded cache.

Clipped means a box narrower than its own text (scrollWidth over clientWidth): a table cell, one of the
Overview's tiles, a widget's shown value cut with an ellipsis. The data grids (`st.dataframe`) draw their
cells on a canvas, so no page this test opens leads with one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from core import lifecycle
from core.cache.db import open_cache
from core.clock import MINUTE_MS, now_ms
from tests.dashboard.test_dashboard_browser import dashboard
from tests.support.browser import WAIT_MS, launch, screenshot, shows
from tests.support.seed_cache import seed_cache

WIDTH, HEIGHT = 1280, 1080
# Every element whose text would be cut: our tables' cells and tiles, and the widgets' shown values.
CLIPPED = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const boxes = [...main.querySelectorAll('td, th, li')].concat(
    [...main.querySelectorAll('*')].filter(e => getComputedStyle(e).textOverflow === 'ellipsis'));
  const cut = boxes.filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
    .map(e => e.innerText.trim().slice(0, 60));
  // A widget's value scrolls inside its input; its placeholder is cut without a trace: measure it.
  const pen = document.createElement('canvas').getContext('2d');
  for (const input of main.querySelectorAll('input:not([type=checkbox])')) {
    const style = getComputedStyle(input);
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    pen.font = style.font;
    const text = input.value || input.placeholder;
    if (input.scrollWidth > input.clientWidth + 1 || pen.measureText(text).width > room + 1) cut.push(text);
  }
  return cut;
}"""
# The Alarms table's rows whose whole height is inside its scrolling box.
ROWS_IN_VIEW = """() => {
  const box = document.querySelector('.samops-alarms').getBoundingClientRect();
  return [...document.querySelectorAll('.samops-alarms tbody tr')]
    .filter(r => r.getBoundingClientRect().bottom <= box.bottom).length;
}"""


# The other pages, each with a text that shows it has drawn (their grids are canvases: not checked).
OTHER_PAGES = {
    "cameras": "Cameras",
    "panels": "Panels & sensors",
    "handling": "Open alarms by age",
    "at-risk": "Authorizations",
    "false-alarms": "False alarms",
    "audit": "Audit",
}


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    now = now_ms()
    seeded = seed_cache(tmp_path_factory.mktemp("clip") / "cache.db", now)
    db = open_cache(seeded.path)
    found = db.execute("SELECT event_id FROM activities WHERE violation_type IS NOT NULL LIMIT 40")
    lifecycle.open_alarms(db, [(r[0], now - 30 * MINUTE_MS) for r in found], now)
    db.conn.commit()
    db.close()
    return seeded.path


def clipped(page: Page) -> list[str]:
    return page.evaluate(CLIPPED)


@pytest.mark.slow
@pytest.mark.browser
def test_nothing_is_clipped_at_1280_px_and_the_alarm_list_shows_15_rows(cache: Path) -> None:
    with dashboard(cache) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.goto(f"{base}/")
            shows(page, "Needs a person now")
            shows(page, "Noisiest panels")
            page.wait_for_timeout(500)
            screenshot(page, "overview-1280")
            assert clipped(page) == []
            page.goto(f"{base}/alarms")
            shows(page, "When alarms happen")
            page.wait_for_timeout(500)
            screenshot(page, "alarms-1280")
            assert clipped(page) == []
            assert page.evaluate(ROWS_IN_VIEW) >= 15
            for name, shown in OTHER_PAGES.items():
                page.goto(f"{base}/{name}")
                page.locator('[data-testid="stMain"]').get_by_text(shown).first.wait_for(timeout=WAIT_MS)
                page.wait_for_timeout(1500)  # the page's later fragments
                screenshot(page, f"{name}-1280")
                assert clipped(page) == [], name
        finally:
            browser.close()
