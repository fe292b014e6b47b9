"""The README's pictures against the dashboard (docs/tools/screenshots.py, `make screenshots`): the pages
pictured are the dashboard's pages, each picture is there and small, and the README shows only pictures that
the script takes. No browser: the script's manifest, docs/images/screenshots.json, is read."""

from __future__ import annotations

import importlib.util
import json
import re
from types import ModuleType
from typing import Any

from tests.support.processes import ROOT

IMAGES = ROOT / "docs" / "images"
MAX_BYTES = 200 * 1024


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "docs" / "tools" / "screenshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def manifest() -> dict[str, Any]:
    return json.loads((IMAGES / "screenshots.json").read_text(encoding="utf-8"))


def pictures() -> list[str]:
    listed = manifest()
    return [page["image"] for page in listed["pages"]] + [listed["card"]]


def test_the_pages_pictured_are_the_dashboards_pages() -> None:
    # A page added, renamed or moved in dashboard/pages.py: run `make screenshots` and commit the pictures.
    assert manifest()["pages"] == script().dashboard_pages(), "run `make screenshots`"


def test_every_picture_is_there_and_small() -> None:
    for name in pictures():
        path = IMAGES / name
        assert path.is_file(), f"{name} is missing: run `make screenshots`"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert path.stat().st_size < MAX_BYTES, f"{name}: {path.stat().st_size} bytes"


def test_no_picture_is_left_that_the_script_does_not_take() -> None:
    assert sorted(p.name for p in IMAGES.glob("*.png")) == sorted(pictures())


def test_the_readme_shows_only_pictures_the_script_takes() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.findall(r"!\[[^\]]*\]\(docs/images/([^)\s]+)\)", readme)
    assert shown, "the README shows no picture"
    assert set(shown) <= set(pictures()), set(shown) - set(pictures())
    assert "dashboard-overview.png" in shown and manifest()["card"] in shown
