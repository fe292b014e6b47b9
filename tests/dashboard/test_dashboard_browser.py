"""The dashboard in a real headless Chromium: every page opened, its content waited for and screenshotted."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import Page, sync_playwright

from core.client import SamClient
from core.models import ResourceSummary
from core.settings import Settings
from dashboard import auth
from tests.support.browser import ARTIFACTS, launch, screenshot, shows
from tests.support.processes import ROOT, Simulator, free_port, run_simulator, samops_cmd, streamlit_serving


@contextlib.contextmanager
def dashboard(db: Path) -> Iterator[str]:
    """`samops dashboard` on a free loopback port over `db`; yields its base URL."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != auth.PASSWORD_ENV}
    command = samops_cmd("dashboard", "--port", str(port), "--db", str(db))
    with streamlit_serving(command, port, ROOT, env) as base:
        yield base


def visit(page: Page, url: str, name: str, expected: list[str]) -> None:
    page.goto(url)
    for text in expected:
        shows(page, text)
    page.wait_for_timeout(500)  # let charts finish their transition before the picture
    screenshot(page, f"dashboard-{name}")
    assert "Traceback" not in page.content() and "No data yet" not in page.content()


class Expected(TypedDict):
    panel: ResourceSummary
    sensors: list[str]
    controllers: list[str]
    cameras: list[str]
    alarm: dict[str, Any]


def simulator_expectations(sim: Simulator) -> Expected:
    """What the simulator serves the demo user: a panel with its sensors, cameras, and a fresh alarm."""
    with SamClient(Settings(base_url=sim.base_url, max_retries=0)) as client:
        login = client.login()
        panel = next(p for p in login.panels if any(g.sensors for g in p.resource_sensors or []))
        cameras = [
            c.resource_name
            for org in login.organization_ids or []
            for c in client.list_cameras(org=org)
            if c.resource_name
        ]
    sensors = [s.sensor_name for g in panel.resource_sensors or [] for s in g.sensors or [] if s.sensor_name]
    injected = httpx.post(
        f"{sim.root_url}/_sim/activities",
        json={"resourceId": panel.resource_id, "count": 1, "violationType": "alarm"},
        timeout=10,
    ).json()[0]
    controllers = [c.controller_name for c in panel.resource_controllers or [] if c.controller_name]
    return {
        "panel": panel,
        "sensors": sensors,
        "controllers": controllers,
        "cameras": cameras,
        "alarm": injected,
    }


@pytest.mark.slow
@pytest.mark.browser
def test_every_page_in_headless_chromium_over_a_synced_cache(tmp_path: Path) -> None:
    db = tmp_path / "cache.db"
    with run_simulator("--alarm-rate", "0") as sim:
        expected = simulator_expectations(sim)
        synced = subprocess.run(
            samops_cmd("sync", "--once", "--db", str(db)),
            cwd=ROOT,
            env={**os.environ, "SAM_BASE_URL": sim.base_url},
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert synced.returncode == 0, synced.stderr
    panel = expected["panel"]
    alarm = expected["alarm"]
    cameras = expected["cameras"]
    assert cameras and expected["sensors"]
    with dashboard(db) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1440, "height": 1400})
        visit(page, f"{base}/", "overview", ["Needs a person now", "Cameras down", "Noisiest panels"])
        visit(
            page,
            f"{base}/alarms?panel={panel.resource_id}",
            "alarms",
            [alarm["description"], f"{panel.resource_name} ({panel.resource_id})", "When alarms happen"],
        )
        visit(
            page, f"{base}/cameras", "cameras", ["Disabled", "Camera status is not reported by the service"]
        )
        # The grid draws only the rows in view: search for a camera, as a link from elsewhere would.
        visit(page, f"{base}/cameras?q={quote(cameras[-1])}", "cameras-search", [cameras[-1]])
        visit(
            page,
            f"{base}/panels?panel={panel.resource_id}",
            "panels",
            [*expected["sensors"][:3], *expected["controllers"][:2]],
        )
        browser.close()
    for name in ("overview", "alarms", "cameras", "panels"):
        assert (ARTIFACTS / f"dashboard-{name}.png").stat().st_size > 10_000
