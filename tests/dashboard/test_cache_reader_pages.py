"""A cache the read-only reader refuses is a clear message on the dashboard's pages, and stays untouched."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.support.seed_cache import version_1_cache

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


def test_an_older_cache_says_run_samops_sync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = version_1_cache(tmp_path / "cache.db")
    before = path.read_bytes()
    monkeypatch.setenv("SAMOPS_DB", str(path))
    monkeypatch.delenv("SAMOPS_DASHBOARD_PASSWORD", raising=False)
    st.cache_data.clear()
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception
    assert "cannot be read" in at.error[0].value and "run `samops sync`" in at.error[0].value
    assert path.read_bytes() == before
