"""The records migration `_r3_dispositions`: a records.db from before dispositions gains `alarm_dispositions`
on its next open, every row it held kept; resolving with a disposition writes both or neither."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import dispositions, lifecycle
from core.cache.db import open_cache
from core.cache.records import (
    RECORDS_MIGRATIONS,
    RECORDS_VERSION,
    _r3_dispositions,  # the migration under test
    records_path,
    records_version,
)
from core.cache.writes import write_transaction
from core.lifecycle import Change, State


def test_a_records_file_from_before_gains_the_table_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    db = open_cache(path)
    lifecycle.apply(db, "EV-OLD", Change.RESOLVED, "U_ANA", 2_000, opened_at=1_000, note="before")
    # As a samops before dispositions left it: no table, the version before it (later migrations run too).
    with write_transaction(db):
        db.conn.execute("DROP TABLE records.alarm_dispositions")
        db.conn.execute("UPDATE records.records_meta SET value = ? WHERE key = 'schema_version'",
                        [str(RECORDS_MIGRATIONS.index(_r3_dispositions))])  # fmt: skip
    db.close()

    db = open_cache(path)
    assert records_version(db) == RECORDS_VERSION
    assert dispositions.resolved_as(db, "EV-OLD") is None  # resolved before: none, and no error
    old = lifecycle.get(db, "EV-OLD")
    assert old is not None and old.state is State.RESOLVED and old.note == "before"
    chosen = dispositions.Dispositions().get("test")
    assert chosen is not None
    dispositions.resolve(db, "EV-NEW", chosen, "U_ANA", 3_000, opened_at=2_500)
    kept = dispositions.resolved_as(db, "EV-NEW")
    assert kept is not None and (kept.code, kept.klass, kept.at) == ("test", "test", 3_000)
    tables = {r[0] for r in db.conn.execute("SELECT name FROM records.sqlite_master WHERE type = 'table'")}
    assert "alarm_dispositions" in tables and records_path(path).exists()


def test_resolving_again_keeps_the_first_disposition_and_a_failure_writes_neither(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    listed = dispositions.Dispositions()
    first, second = listed.get("false_unknown"), listed.get("confirmed_fire")
    assert first is not None and second is not None
    assert dispositions.resolve(db, "EV-1", first, "U_ANA", 2_000, opened_at=1_000).changed
    again = dispositions.resolve(db, "EV-1", second, "U_BEN", 3_000, opened_at=1_000)
    assert not again.changed and again.reason == "already resolved"
    kept = dispositions.resolved_as(db, "EV-1")
    assert kept is not None and (kept.code, kept.by_user) == ("false_unknown", "U_ANA")

    # A write failing inside the caller's transaction after the resolution: both roll back together.
    with pytest.raises(RuntimeError), write_transaction(db):
        dispositions.resolve(db, "EV-2", first, "U_ANA", 2_000, opened_at=1_000)
        raise RuntimeError("the rest of the write failed")
    assert lifecycle.get(db, "EV-2") is None and dispositions.resolved_as(db, "EV-2") is None
