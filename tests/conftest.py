from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from core.settings import DOTENV
from tests.support.processes import OUR_PREFIXES, Simulator, run_simulator

# A developer's own `.env` (SAM_BASE_URL at their service, a dashboard password) reaches no test, in this
# process or any it starts (tests.support.processes keeps the variable): tests that read a `.env` write their
# own in a temporary folder and take the variable out (`no_samops_env`).
os.environ[DOTENV] = ""

# No test may depend on the machine's speed: hypothesis' per-example deadline (200 ms) is a speed test.
settings.register_profile("samops", deadline=None)
settings.load_profile("samops")

# `make test` spreads the suite over pytest-xdist workers (`-n`; pyproject.toml sets `--dist loadgroup`): a
# test goes where its group goes. A module is one group, so its module-scoped processes start once; so is a
# package whose conftest.py starts processes for the whole package. The browser tests are one group, as two
# Chromium-and-Streamlit runs at once on two cores starve each other past their waits. The longest groups (the
# browser one, and any with a `slow` test) are handed out first, so the run does not end on one worker alone.
SHARED_PACKAGES = ("tests/bot/commands/",)  # their conftest.py has package-scoped processes
BROWSER_GROUP = "browser"


def xdist_group(item: pytest.Item) -> str:
    """The group `item` runs in under --dist loadgroup (its own `xdist_group` mark wins)."""
    if mark := item.get_closest_marker("xdist_group"):
        return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
    if item.get_closest_marker("browser"):
        return BROWSER_GROUP
    path = item.nodeid.split("::", 1)[0]
    return next((package for package in SHARED_PACKAGES if path.startswith(package)), path)


def in_groups(config: pytest.Config) -> bool:
    """Whether this process is an xdist worker of a `--dist loadgroup` run. On a worker xdist sets `dist` to
    "no" and keeps the choice as `loadgroup` (xdist/remote.py, setup_config)."""
    return bool(os.environ.get("PYTEST_XDIST_WORKER")) and bool(getattr(config.option, "loadgroup", False))


def name_group(item: pytest.Item, group: str) -> None:
    """Make the controller see `item` in `group`. xdist (3.8) tells it by appending `@group` to
    `item._nodeid`, which pytest 9.2 no longer reads (its ids are structured, `item._id`): pytest-xdist
    issue #1386. Without this every test was its own group: a module's tests went to all workers, each
    starting the module's processes again, and a test reading what its module's earlier tests did (the
    payload fuzz's audit check) could run where they had not. Once xdist names the group itself, this
    does nothing."""
    if item.nodeid.endswith(f"@{group}"):
        return
    structured = getattr(item, "_id", None)
    if structured is not None and hasattr(structured, "parse"):
        item._id = type(structured).parse(f"{item.nodeid}@{group}")
    if not item.nodeid.endswith(f"@{group}"):
        raise pytest.UsageError(
            f"--dist loadgroup: cannot name {item.nodeid}'s group with this pytest and pytest-xdist; "
            "run without -n (make test TEST_WORKERS=0)"
        )


# A wrapper: it marks and orders the tests before xdist's own hook reads the marks, and checks after it.
@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Iterator[None]:
    if not in_groups(config):
        return (yield)  # one process (no -n): the collection's order as it is
    groups = {item: xdist_group(item) for item in items}
    first = {BROWSER_GROUP} | {groups[item] for item in items if item.get_closest_marker("slow")}
    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        first_seen.setdefault(groups[item], index)
        if not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(groups[item]))
    # Each group's tests together (a module's fixtures are not torn down and started again in between), in
    # the collection's order but for the longest groups, which come first.
    items.sort(key=lambda item: (groups[item] not in first, first_seen[groups[item]]))
    result = yield
    for item in items:
        name_group(item, groups[item])
    return result


@pytest.fixture(scope="session")
def simulator() -> Iterator[Simulator]:
    """One simulator for the whole session, default scale, no faults, no live alarms.

    Tests that mutate data must only touch records they created or that no other test reads; tests that
    need faults, live alarms or a pristine data set start their own with `run_simulator`.
    """
    with run_simulator("--alarm-rate", "0") as sim:
        yield sim


@pytest.fixture
def no_samops_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty folder as the current one, and no samops or Slack variable in the environment."""
    for name in list(os.environ):
        if name.startswith(OUR_PREFIXES):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def fresh_streamlit_cache(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """For AppTest of the dashboard: no password asked, and no cached answer of another test's cache."""
    import streamlit as st  # only the dashboard's tests pay for importing it

    monkeypatch.delenv("SAMOPS_DASHBOARD_PASSWORD", raising=False)
    st.cache_data.clear()
    yield
    st.cache_data.clear()
