"""Everything that speaks the service: settings, client, Idempotency-Key, errors, cache, sync, read API."""

import sys


def _import_sqlite_utils_without_pandas() -> None:
    """sqlite-utils imports pandas and numpy whenever they are installed (Streamlit brings them), only to map
    their scalar types; that costs about 3 s of CPU at the start of every samops process. samops never hands
    it pandas or numpy values, so import it with both hidden, then unhide them for whoever needs them."""
    if "sqlite_utils" in sys.modules:
        return
    hidden = [name for name in ("pandas", "numpy") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # None makes `import` raise ImportError
    try:
        import sqlite_utils  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]


_import_sqlite_utils_without_pandas()
