"""Where the cache is, without importing Streamlit (the CLI needs it before starting the server)."""

from __future__ import annotations

import os
from pathlib import Path


def db_path() -> Path:
    """`SAMOPS_DB`, else `$SAMOPS_DATA_DIR/cache.db` (docs/architecture.md)."""
    if explicit := os.environ.get("SAMOPS_DB"):
        return Path(explicit)
    return Path(os.environ.get("SAMOPS_DATA_DIR") or ".samops") / "cache.db"
