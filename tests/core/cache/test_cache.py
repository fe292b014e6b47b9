"""The cache file: permissions, WAL, schema version and migrations, batched upserts, full-sync deletes."""

from __future__ import annotations

import json
import sqlite3
import stat
import threading
from pathlib import Path

import pytest

from core import read
from core.cache import schema
from core.cache.db import CacheUnavailableError, open_cache, open_reader
from core.cache.writes import (
    activity_row,
    camera_row,
    delete_missing,
    panel_row,
    upsert_activities,
    upsert_dicts,
    user_row,
    write_transaction,
)
from core.sqlite_lib import sqlite_utils
from tests.support.cache_files import table_names
from tests.support.seed_cache import version_1_cache, version_999_cache


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_cache_is_private_and_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "data" / "nested" / "cache.db"
    db = open_cache(path)
    upsert_dicts(db, "organizations", [{"id": 1, "name": "One"}], "id")
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        assert side.exists() and mode(side) == 0o600, suffix
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert schema.schema_version(db) == schema.SCHEMA_VERSION


def test_default_path_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SAMOPS_DB", raising=False)
    monkeypatch.setenv("SAMOPS_DATA_DIR", str(tmp_path / "d"))
    open_cache().close()
    assert (tmp_path / "d" / "cache.db").exists()
    monkeypatch.setenv("SAMOPS_DB", str(tmp_path / "other.db"))
    open_cache().close()
    assert (tmp_path / "other.db").exists()


def test_every_contract_table_exists(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "c.db")
    names = table_names(db.conn)  # the cache's and the records' (core/cache/records.py)
    assert set(schema.TABLES_V1) | {"audit_log", "meta", "panel_cursors"} <= names
    assert db.table("activities").pks == ["event_id"]
    assert db.table("sync_state").pks == ["table_name"]


def test_version_1_cache_is_migrated_in_place_without_losing_data(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    # An older samops' cache: the version 1 tables, no indexes, some data, written without open_cache.
    old = sqlite_utils.Database(path)
    schema.MIGRATIONS[0](old)
    old.table("meta").insert({"key": "schema_version", "value": "1"}, pk="key")
    old.conn.executescript(
        """
        INSERT INTO activities (event_id, resource_id, activity_time, event_type, description)
            VALUES ('e1', 7, 1000, 'violation', 'Back door');
        INSERT INTO sync_state (table_name, last_success, cursor) VALUES ('activities', 5, 1000);
        """
    )
    old.conn.commit()
    old.close()
    assert "panel_cursors" not in sqlite_utils.Database(path).table_names()

    db = open_cache(path)

    assert schema.schema_version(db) == schema.SCHEMA_VERSION
    assert db.execute("SELECT event_id, resource_id FROM activities").fetchall() == [("e1", 7)]
    assert db.execute("SELECT cursor, last_attempt FROM sync_state").fetchall() == [(1000, None)]
    indexed = {tuple(i.columns) for i in db.table("activities").indexes}
    assert ("org_id", "activity_time") in indexed
    assert any(columns[0] == "activity_time" for columns in indexed)
    assert "panel_cursors" in db.table_names() and "panels" in db.table_names()
    # The hourly rollup added later is built from the activities already there.
    assert db.execute("SELECT hour, n FROM activity_hours").fetchall() == [(0, 1)]
    # So is the text index: the old row is found by its text.
    assert [a.event_id for a in read.recent_alarms(db, read.AlarmFilter(text="ck do"))] == ["e1"]
    # Opening again is a no-op.
    db.close()
    assert schema.migrate(open_cache(path)) == schema.SCHEMA_VERSION


def test_a_failing_migration_leaves_the_previous_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.db"
    open_cache(path).close()

    def broken(db: object) -> None:
        db["panels"].add_column("half_done", str)  # type: ignore[index]
        raise RuntimeError("boom")

    monkeypatch.setattr(schema, "MIGRATIONS", [*schema.MIGRATIONS, broken])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", len(schema.MIGRATIONS) + 1)
    with pytest.raises(RuntimeError, match="boom"):
        open_cache(path)
    monkeypatch.undo()
    db = open_cache(path)
    assert schema.schema_version(db) == schema.SCHEMA_VERSION
    assert "half_done" not in db["panels"].columns_dict


def test_newer_cache_is_refused(tmp_path: Path) -> None:
    path = version_999_cache(tmp_path / "c.db")
    with pytest.raises(schema.SchemaTooNewError, match="999"):
        open_cache(path)


def test_upsert_updates_in_place_and_a_rerun_adds_nothing(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "c.db")
    first = [{"eventId": f"e{i}", "activityTime": i, "eventType": "event", "group": 2} for i in range(100)]
    with write_transaction(db):
        upsert_activities(db, "activities", (activity_row(a, 5, 1) for a in first))
    with write_transaction(db):
        upsert_activities(db, "activities", (activity_row(a, 5, 1) for a in first))
    assert db["activities"].count == 100
    changed = {"eventId": "e3", "activityTime": 3, "eventType": "violation", "resourceId": 9}
    with write_transaction(db):
        upsert_activities(db, "activities", [activity_row(changed, 5, 1)])
    assert db["activities"].count == 100
    assert db.execute(
        "SELECT event_type, resource_id, grp FROM activities WHERE event_id = 'e3'"
    ).fetchone() == (
        "violation",
        9,
        None,
    )
    assert db.execute("SELECT resource_id, grp FROM activities WHERE event_id = 'e4'").fetchone() == (5, 2)


def test_a_failed_refresh_leaves_the_previous_rows(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "c.db")
    upsert_dicts(db, "organizations", [{"id": 1, "name": "Before"}], "id")
    with pytest.raises(RuntimeError), write_transaction(db):
        upsert_dicts(db, "organizations", [{"id": 1, "name": "After"}, {"id": 2, "name": "New"}], "id")
        raise RuntimeError("interrupted")
    assert db.execute("SELECT id, name FROM organizations").fetchall() == [(1, "Before")]


def test_delete_missing_spares_panels_whose_fetch_failed(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "c.db")
    rows = [{"id": i, "resource_id": 1 if i < 5 else 2, "name": f"s{i}"} for i in range(10)]
    upsert_dicts(db, "sensors", rows, "id")
    with write_transaction(db):
        deleted = delete_missing(db, "sensors", "id", keep=[0, 1], spare_resource_ids=[2])
    assert deleted == 3
    assert [r[0] for r in db.execute("SELECT id FROM sensors ORDER BY id")] == [0, 1, 5, 6, 7, 8, 9]


def test_secrets_never_reach_the_cache() -> None:
    camera = {"resourceId": 3, "name": "Gate", "securityCode": "S3CRET", "ncCode": "NC1", "status": "online"}
    row = camera_row(camera, org_id=1)
    assert "S3CRET" not in json.dumps(row) and "NC1" not in json.dumps(row)
    user = {"userId": 4, "screenName": "ann", "token": "tok", "nested": [{"pinCode": "1234", "x": 1}]}
    raw = user_row(user, org_id=1)["raw"]
    assert "tok" not in raw and "1234" not in raw and '"x":1' in raw
    panel = panel_row({"resourceId": 5, "orgId": 2, "resourceName": "P", "enabled": True, "mqPassword": "m"})
    assert panel["org_id"] == 2 and panel["enabled"] == 1 and "mqPassword" not in panel["raw"]


def test_readers_are_not_blocked_by_an_open_write(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    writer = open_cache(path)
    upsert_dicts(writer, "organizations", [{"id": 1, "name": "Committed"}], "id")
    reader = open_reader(path)
    result: list[object] = []
    with write_transaction(writer):
        upsert_dicts(writer, "organizations", [{"id": 1, "name": "Uncommitted"}], "id")
        thread = threading.Thread(
            target=lambda: result.append(reader.execute("SELECT name FROM organizations").fetchall())
        )
        thread.start()
        thread.join(5)
    assert result == [[("Committed",)]]


def test_reader_never_writes(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    writer = open_cache(path)
    upsert_dicts(writer, "organizations", [{"id": 1, "name": "Alpha"}], "id")
    writer.close()
    reader = open_reader(path)
    assert read.organizations(reader) == [(1, "Alpha")]
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        reader.execute("DELETE FROM organizations")
    reader.close()


def test_reader_refuses_a_missing_cache_and_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "c.db"
    with pytest.raises(CacheUnavailableError, match="samops sync"):
        open_reader(missing)
    assert not missing.parent.exists()


def test_reader_refuses_an_older_cache_and_leaves_it_as_it_was(tmp_path: Path) -> None:
    path = version_1_cache(tmp_path / "old.db")
    before = path.read_bytes()
    with pytest.raises(CacheUnavailableError, match=r"version 1, older .* run `samops sync`"):
        open_reader(path)
    assert path.read_bytes() == before
    assert schema.schema_version(sqlite_utils.Database(path)) == 1


def test_reader_refuses_a_newer_cache(tmp_path: Path) -> None:
    path = version_999_cache(tmp_path / "c.db")
    with pytest.raises(CacheUnavailableError, match="version 999, newer"):
        open_reader(path)
