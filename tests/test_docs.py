"""The README a new user reads first, and the reference in docs/ it links to: the README opens with the two
commands, and every relative link of the README and of docs/ reaches a file (and a heading, when it names
one), so moving a section between files cannot leave a reader at a dead end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.processes import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")


def headings(page: Path) -> set[str]:
    """GitHub's anchors of the page's headings: lower case, punctuation dropped, spaces made hyphens."""
    anchors: set[str] = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def test_the_readme_opens_with_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first_block = text.split("```", 2)[1]
    commands = [line.split("#", 1)[0].strip() for line in first_block.splitlines()[1:] if line.strip()]
    assert commands == ["make run", "make test"]
    assert text.index("```") < text.index("\n## ")  # before any section


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_its_file_and_heading(page: Path) -> None:
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        missing_heading = anchor and file.suffix == ".md" and file.exists() and anchor not in headings(file)
        if not file.exists() or missing_heading:
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: links to nothing: {broken}"


# A file named in prose, `core/read/rows.py`: its first folder is one of the project's own.
NAMED_PATH = re.compile(r"`((?:\.\./shared|[a-z_]+)/[\w./-]+\.(?:py|md|toml|json|yml|sh))`")
OWN_FOLDERS = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")}
# ../shared/ is laid beside a checkout for the developers and CI; a clone elsewhere has none to check.
SHARED_BESIDE = (ROOT.parent / "shared").is_dir()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_named_in_prose_exists(page: Path) -> None:
    """docs/ and the README name files as `path/to/file.py`; a file moved or removed leaves such a name
    pointing at nothing (docs/dashboard-pages.md named core/read/states.py long after it was gone)."""
    checked = [
        name
        for name in NAMED_PATH.findall(page.read_text(encoding="utf-8"))
        if name.split("/", 1)[0] in OWN_FOLDERS - {"test-artifacts"}
        or (SHARED_BESIDE and name.startswith("../shared/"))
    ]
    stale = [name for name in checked if not (ROOT / name).resolve().exists()]
    assert not stale, f"{page.relative_to(ROOT)} names files that are not there: {stale}"
