from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support.processes import OUR_PREFIXES, Simulator, run_simulator

# No test may depend on the machine's speed: hypothesis' per-example deadline (200 ms) is a speed test.
settings.register_profile("samops", deadline=None)
settings.load_profile("samops")


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
