"""The quiet-windows migration: silences in force in the old `panel_silences` move over, ended ones do not."""

from __future__ import annotations

import time
from pathlib import Path

from core.cache import outbox, schema
from core.cache.db import open_cache
from tests.support.seed_cache import old_cache


def test_silences_in_force_move_to_quiet_windows(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = old_cache(path, schema.MIGRATIONS.index(schema._v9_quiet_windows))
    now = int(time.time() * 1000)
    old.conn.executemany(
        "INSERT INTO panel_silences (resource_id, until, slack_user) VALUES (?, ?, ?)",
        [(777, now + 3_600_000, "U_TECH"), (778, now - 60_000, "U_TECH")],
    )
    old.conn.commit()
    old.close()
    db = open_cache(path)
    assert outbox.silence_until(db, 777) == now + 3_600_000
    assert outbox.silence_until(db, 778) is None
    assert db.execute("SELECT count(*) FROM quiet_windows").fetchone()[0] == 1
