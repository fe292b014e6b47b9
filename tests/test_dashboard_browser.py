"""The dashboard in a real headless Chromium: every page opened, its content waited for and screenshotted."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from dashboard import auth
from tests.support.processes import ROOT, free_port, samops_cmd, stop, wait_http
from tests.support.seed_cache import seed_cache

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = ROOT / "test-artifacts"
WAIT_MS = 90_000  # a cold Streamlit start imports pandas and altair on the first page


def launch(playwright: Playwright) -> Browser:
    # CI installs Debian's chromium; a machine without it must fail this test, not silently skip it.
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: install Debian's chromium package"
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


@contextlib.contextmanager
def dashboard(db: Path) -> Iterator[str]:
    """`samops dashboard` on a free loopback port over `db`; yields its base URL."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != auth.PASSWORD_ENV}
    proc = subprocess.Popen(
        samops_cmd("dashboard", "--port", str(port), "--db", str(db)),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_http(f"{base}/_stcore/health", proc, timeout=90)
        yield base
    finally:
        stop(proc, timeout=15)


def shows(page: Page, text: str) -> None:
    """Wait until `text` is on the page. Table cells are drawn on a canvas; their accessible copy is in the
    DOM but hidden, so for them being attached is what "rendered" means."""
    found = page.get_by_text(text, exact=False).first
    found.wait_for(state="attached", timeout=WAIT_MS)
    if found.evaluate("e => e.closest('[role=grid]') === null"):
        found.wait_for(state="visible", timeout=WAIT_MS)


def visit(page: Page, url: str, name: str, expected: list[str]) -> None:
    page.goto(url)
    for text in expected:
        shows(page, text)
    page.wait_for_timeout(500)  # let charts finish their transition before the picture
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"dashboard-{name}.png"), full_page=True)
    assert "Traceback" not in page.content() and "No data yet" not in page.content()


@pytest.mark.browser
def test_every_page_in_headless_chromium(tmp_path: Path) -> None:
    seed = seed_cache(tmp_path / "cache.db", int(time.time() * 1000))
    panel = 5004
    newest = max((a for a in seed.activities if a[1] == panel), key=lambda a: a[3])
    with dashboard(seed.path) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1440, "height": 1400})
        visit(page, f"{base}/", "overview", ["Alarms, last 24 h", "Cameras offline", *seed.panels.values()])
        visit(
            page,
            f"{base}/alarms?panel={panel}",
            "alarms",
            [seed.panels[panel], newest[4], "When alarms happen"],
        )
        visit(page, f"{base}/cameras", "cameras", list(seed.cameras.values()))
        visit(page, f"{base}/panels?panel={panel}", "panels", [*seed.sensors[panel][:2], "Controllers (2)"])
        browser.close()
    for name in ("overview", "alarms", "cameras", "panels"):
        assert (ARTIFACTS / f"dashboard-{name}.png").stat().st_size > 10_000
