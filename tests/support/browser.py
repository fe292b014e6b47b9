"""Headless Debian chromium driven by playwright: launch, wait for text, keep a screenshot."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from tests.support.processes import ROOT

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
WAIT_MS = 90_000  # a cold Streamlit start under load: its own imports, then the first page's run


def launch(playwright: Playwright) -> Browser:
    # CI installs Debian's chromium; a machine without it must fail the test, not silently skip it.
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: install Debian's chromium package"
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


def shows(page: Page, text: str) -> None:
    """Wait until `text` is on the page. Table cells are drawn on a canvas; their accessible copy is in the
    DOM but hidden, so for them being attached is what "rendered" means."""
    found = page.get_by_text(text, exact=False).first
    found.wait_for(state="attached", timeout=WAIT_MS)
    if found.evaluate("e => e.closest('[role=grid]') === null"):
        found.wait_for(state="visible", timeout=WAIT_MS)


def alarms_page_shows(dashboard: str, panel: int, text: str, shot: str) -> None:
    """The dashboard's Alarms page of `panel` (the page an alarm card links to) shows `text`; the page is
    kept as the screenshot `shot`."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{dashboard}/alarms?panel={panel}")
            shows(page, text)
            screenshot(page, shot)
        finally:
            browser.close()


def screenshot(page: Page, name: str) -> Path:
    """Keep a full-page picture as a test artifact."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
