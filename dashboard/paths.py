"""Where the cache is, without importing Streamlit (the CLI needs it before starting the server)."""

from __future__ import annotations

from pathlib import Path

from core.settings import current_settings


def db_path() -> Path:
    """`SAMOPS_DB`, else `$SAMOPS_DATA_DIR/cache.db`, from the environment or `.env` (core.settings)."""
    return current_settings().db_path
