"""The team's records apart from the re-syncable cache (issue 22, item 1), on real files: the old single-file
layout moves its records into records.db and loses nothing, a crash half-way repeats safely, a cache
deleted under a connection is noticed and replaced, a deleted records file stops the writer, and a cache of
another service is moved aside, never mixed nor deleted."""

from __future__ import annotations

import contextlib
import logging
import stat
from pathlib import Path

import pytest

from core.cache import records as records_module
from core.cache import schema
from core.cache.db import CacheUnavailableError, RecordsLostError, open_cache, open_reader, reopen_if_replaced
from core.cache.records import FROM_CACHE_TABLES, RECORDS_TABLES, copy_out_of_main, records_path
from core.cache.service import Service
from core.settings import Settings
from core.sqlite_lib import sqlite_utils
from tests.support.cache_files import connect
from tests.support.seed_cache import old_cache

# Not "demo": that is the default password, which the secret filter masks in any log line once installed.
A = Service("http://127.0.0.1:9001/api", "night-shift")
B = Service("http://127.0.0.1:9002/api", "field-ops")


def old_layout(path: Path) -> None:
    """A cache at version 11, as samops before records.db left it: the team's records in the one file."""
    old = old_cache(path, 11)
    old.conn.executescript(
        """
        INSERT INTO activities (event_id, resource_id, org_id, activity_time, description, event_type,
            violation_type) VALUES ('EV-1', 7, 1001, 1700000000000, 'Burglary alarm', 'violation', 'alarm');
        INSERT INTO notify_outbox (rowid, event_id, channel, state, ts, posted_at, attempts)
            VALUES (41, 'EV-1', 'C1', 'posted', '1700000000.000100', 1700000000100, 1);
        INSERT INTO notify_state VALUES ('baseline', '1600000000000');
        INSERT INTO notify_cards VALUES ('1700000000.000200', 'C1', 7, 1, 2, 41);
        INSERT INTO alarm_state (event_id, state, opened_at, acknowledged_at, acknowledged_by, updated_at)
            VALUES ('EV-1', 'acknowledged', 1700000000000, 1700000001000, 'U1', 1700000001000);
        INSERT INTO alarm_changes (id, event_id, at, by_user, change) VALUES (5, 'EV-1', 1700000001000, 'U1',
            'acknowledged');
        INSERT INTO quiet_windows (id, kind, resource_id, starts_at, ends_at, created_by, created_at)
            VALUES (3, 'maintenance', 7, 1, 4102444800000, 'U1', 1);
        INSERT INTO quiet_held VALUES ('EV-0', 3);
        INSERT INTO audit_log (id, at, slack_user, command, outcome, summary, reference)
            VALUES (9, 1700000001000, 'U1', 'ack EV-1', 'done', 'acknowledged', 'R-ABC123');
        INSERT INTO bot_dedupe VALUES ('view:V1', 4102444000000);
        INSERT INTO task_state VALUES (5, 1, 10, 'U1', '{"taskName": "t"}');
        INSERT INTO incidents (id, resource_id, first_time, last_time, evidence) VALUES (2, 7, 1, 2, 1);
        INSERT INTO incident_evidence (ref, incident_id, kind, time) VALUES ('EV-1', 2, 'alarm', 1);
        INSERT INTO camera_changes (id, camera_id, problem, first_seen) VALUES (4, 70, 'offline', 1);
        """
    )
    old.conn.commit()
    old.close()


# Columns later records migrations added (with their defaults): not in the old layout, so not compared.
ADDED_LATER = {"quiet_windows": {"hold_life_safety", "reference"}}


def snapshot(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with contextlib.closing(connect(path)) as conn:
        tables = FROM_CACHE_TABLES  # what the old layout held
        found: dict[str, list[tuple[object, ...]]] = {}
        for t in tables:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info([{t}])")]
            kept = ", ".join(f"[{c}]" for c in columns if c not in ADDED_LATER.get(t, set()))
            found[t] = conn.execute(f"SELECT rowid, {kept} FROM [{t}] ORDER BY rowid").fetchall()
        return found


def tables_of(path: Path) -> set[str]:
    db = sqlite_utils.Database(path)
    try:
        return set(db.table_names())
    finally:
        db.close()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_an_old_single_file_cache_moves_its_records_out_and_keeps_every_one(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    old_layout(path)
    before = snapshot(path)
    assert all(before[t] for t in FROM_CACHE_TABLES if t not in {"alarm_acks", "panel_silences"})

    db = open_cache(path)

    assert schema.schema_version(db) == schema.SCHEMA_VERSION
    db.close()
    assert snapshot(path) == before  # every row, with its rowid (a storm card names its outbox rowid)
    assert not set(RECORDS_TABLES) & tables_of(path)  # the cache file holds none of them any more
    assert set(RECORDS_TABLES) <= tables_of(records_path(path))
    assert mode(records_path(path)) == 0o600 and mode(path) == 0o600
    # The reader sees them through the one connection, as before.
    reader = open_reader(path)
    assert reader.execute("SELECT reference FROM audit_log").fetchall() == [("R-ABC123",)]
    assert reader.execute(
        "SELECT count(*) FROM activities a JOIN alarm_state s USING (event_id)"
    ).fetchone() == (1,)
    reader.close()


def test_a_crash_between_copying_the_records_and_dropping_them_repeats_safely(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    old_layout(path)
    before = snapshot(path)
    # The first of the two steps only, as a crash right after it leaves it: records copied, cache at 11.
    half = sqlite_utils.Database(path)
    records_module.attach(half.conn, str(records_path(path)))
    records_module.migrate_records(half)
    assert copy_out_of_main(half) > 0
    half.close()
    assert schema.schema_version(sqlite_utils.Database(path)) == 11

    open_cache(path).close()  # repeats the copy (nothing doubled), then drops

    assert snapshot(path) == before


def test_a_cache_deleted_under_a_connection_is_replaced_and_the_records_stay(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cache.db"
    db = open_cache(path, service=A)
    db.execute("INSERT INTO panels (resource_id, org_id, name) VALUES (7, 1001, 'Depot')")
    db.execute("INSERT INTO audit_log (at, slack_user, command, outcome) VALUES (1, 'U1', 'ack', 'done')")
    assert not reopen_if_replaced(db)  # nothing happened: nothing to do

    for file in tmp_path.glob("cache.db*"):
        file.unlink()
    with caplog.at_level(logging.WARNING, logger="samops.cache"):
        assert reopen_if_replaced(db)

    assert "deleted or replaced" in caplog.text and str(path) in caplog.text
    assert path.exists() and mode(path) == 0o600
    assert db.execute("SELECT count(*) FROM panels").fetchone() == (0,)  # the fresh, empty cache
    assert db.execute("SELECT count(*) FROM audit_log").fetchone() == (1,)  # the records, untouched
    db.execute("INSERT INTO panels (resource_id, org_id, name) VALUES (8, 1001, 'Yard')")
    assert snapshot(path)["audit_log"] and tables_of(path) >= {"panels", "meta"}
    with contextlib.closing(connect(path)) as conn:  # written into the file on disk, not into the deleted one
        assert conn.execute("SELECT name FROM panels").fetchall() == [("Yard",)]
        assert conn.execute("SELECT value FROM meta WHERE key = 'service_url'").fetchone() == (A.url,)
    db.close()


def test_two_connections_of_one_process_say_a_deleted_cache_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cache.db"
    loop, history = open_cache(path, service=A), open_cache(path, service=A)  # the notifier's two threads
    for file in tmp_path.glob("cache.db*"):
        file.unlink()
    with caplog.at_level(logging.WARNING, logger="samops.cache"):
        assert reopen_if_replaced(loop) and reopen_if_replaced(history)
    said = [r for r in caplog.records if "deleted or replaced" in r.getMessage()]
    assert len(said) == 1, caplog.text
    loop.execute("INSERT INTO panels (resource_id, org_id, name) VALUES (8, 1001, 'Yard')")
    assert history.execute("SELECT name FROM panels").fetchall() == [("Yard",)]  # both on the fresh file
    loop.close()
    history.close()


def test_a_records_file_deleted_under_a_connection_stops_the_writer(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    db = open_cache(path)
    for file in tmp_path.glob("records.db*"):
        file.unlink()
    with pytest.raises(
        RecordsLostError, match=r"records.db was deleted or replaced .* restore it from a backup"
    ):
        reopen_if_replaced(db)
    db.close()


def test_the_reader_refuses_a_cache_without_its_records(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    open_cache(path).close()
    records_path(path).unlink()
    with pytest.raises(CacheUnavailableError, match="no records file"):
        open_reader(path)


def test_another_service_moves_the_old_files_aside_and_starts_fresh(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cache.db"
    db = open_cache(path, service=A)
    db.execute("INSERT INTO panels (resource_id, org_id, name) VALUES (7, 1001, 'Depot of A')")
    db.execute("INSERT INTO audit_log (at, slack_user, command, outcome) VALUES (1, 'U1', 'ack', 'done')")
    db.close()
    open_cache(path, service=A).close()  # the same service again: nothing moves
    assert not (tmp_path / "previous").exists()

    with caplog.at_level(logging.WARNING, logger="samops.cache"):
        db = open_cache(path, service=B)

    [line] = [r.getMessage() for r in caplog.records if "now configured" in r.getMessage()]
    assert str(A) in line and str(B) in line and "nothing deleted" in line
    assert db.execute("SELECT count(*) FROM panels").fetchone() == (0,)
    assert db.execute("SELECT count(*) FROM audit_log").fetchone() == (0,)
    db.close()
    [aside] = (tmp_path / "previous").iterdir()
    assert aside.name.startswith("127.0.0.1-9001-night-shift-") and str(aside) in line
    assert mode(aside) == 0o700 and mode(aside.parent) == 0o700
    with contextlib.closing(connect(aside / "cache.db")) as conn:  # the old service's files, whole
        assert conn.execute("SELECT name FROM panels").fetchall() == [("Depot of A",)]
        assert conn.execute("SELECT count(*) FROM audit_log").fetchone() == (1,)


def test_the_service_said_never_carries_a_password_in_its_url() -> None:
    service = Service.of(Settings(base_url="https://ops:hunter2@sam.example.com/api/"))
    assert service == Service("https://sam.example.com/api", "demo")
    assert "hunter2" not in str(service)


def test_the_embedded_simulator_is_one_service_whatever_its_port() -> None:
    """`samops up` moves the simulator off 8080 when that port is taken: its demo account stays one service,
    so a start on another port keeps the team's records; another account, or a host not on loopback, does
    not."""

    def of(url: str, **account: str) -> Service:
        return Service.of(Settings(base_url=url, **account))

    assert of("http://127.0.0.1:8080/api") == of("http://127.0.0.1:38417/api") == of("http://localhost:9/api")
    assert of("http://127.0.0.1:8080/api") != of("http://127.0.0.1:8080/api", screen_name="field-ops")
    assert of("http://127.0.0.1:8080/api") != of("https://sam.example.com/api")
