"""Files stay private: the data folder 0700, the cache with its -wal/-shm and the local secret 0600, fixed on
every start even when they already existed with looser modes, and a log line names what was tightened."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import stat
import subprocess
from pathlib import Path

import pytest

from bot.secrets import local_signing_secret, secret_path
from core.cache.db import open_cache
from core.private import owner_only
from tests.support.processes import Simulator, folder_env, samops_cmd


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def loose_data_folder(tmp_path: Path) -> Path:
    """A data folder as an older samops or a hand-made mkdir left it: 0755, its cache and secret 0644."""
    data = tmp_path / "data"
    open_cache(data / "cache.db").close()
    (data / "signing-secret").write_text("s3cret\n")
    for file in data.iterdir():
        file.chmod(0o644)
    data.chmod(0o755)
    return data


def test_owner_only_takes_group_and_others_away_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    caplog.set_level(logging.INFO, logger="samops.files")
    assert owner_only(script)
    assert mode(script) == 0o700  # the owner's own bits stay
    assert str(script) in caplog.text and "0755" in caplog.text
    caplog.clear()
    assert not owner_only(script) and not owner_only(tmp_path / "missing")
    assert caplog.text == ""  # nothing to say when nothing changed


def test_open_cache_tightens_an_existing_cache_and_its_wal_and_shm(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cache.db"
    open_cache(path).close()
    # Another process holds the cache open, so its -wal and -shm exist; all three were left 0644.
    with contextlib.closing(sqlite3.connect(path)) as other:
        other.execute("SELECT count(*) FROM meta").fetchall()
        other.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('x', 'y')")
        other.commit()
        files = [path, path.with_name("cache.db-wal"), path.with_name("cache.db-shm")]
        for file in files:
            assert file.exists(), file
            file.chmod(0o644)
        caplog.set_level(logging.WARNING, logger="samops.files")
        open_cache(path).close()
        assert [mode(file) for file in files] == [0o600, 0o600, 0o600]
        for file in files:
            assert str(file) in caplog.text


def test_open_cache_makes_the_records_private_and_tightens_them_too(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "data" / "cache.db"
    records = path.with_name("records.db")
    open_cache(path).close()
    assert mode(path.parent) == 0o700 and mode(records) == 0o600
    # Another process holds the records open, so their -wal and -shm exist; all three were left 0644.
    with contextlib.closing(sqlite3.connect(records)) as other:
        other.execute("INSERT OR REPLACE INTO records_meta (key, value) VALUES ('x', 'y')")
        other.commit()
        files = [records, records.with_name("records.db-wal"), records.with_name("records.db-shm")]
        for file in files:
            assert file.exists(), file
            file.chmod(0o644)
        caplog.set_level(logging.WARNING, logger="samops.files")
        open_cache(path).close()
        assert [mode(file) for file in files] == [0o600, 0o600, 0o600]
        for file in files:
            assert str(file) in caplog.text


def test_the_local_secret_and_its_folder_are_tightened_when_the_bot_starts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = loose_data_folder(tmp_path)
    caplog.set_level(logging.WARNING, logger="samops.files")
    assert local_signing_secret(data) == "s3cret"
    assert mode(data) == 0o700 and mode(secret_path(data)) == 0o600
    assert str(data) in caplog.text and str(secret_path(data)) in caplog.text


def test_notify_fixes_a_loose_data_folder_on_start(tmp_path: Path) -> None:
    data = loose_data_folder(tmp_path)
    done = subprocess.run(
        samops_cmd("notify", "--once"),
        cwd=tmp_path,
        env=folder_env(SAMOPS_DATA_DIR="data"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert mode(data) == 0o700 and mode(data / "cache.db") == 0o600
    assert (
        "data was readable by others" in done.stderr and "data/cache.db was readable by others" in done.stderr
    )


def test_sync_fixes_a_loose_data_folder_on_start(tmp_path: Path, simulator: Simulator) -> None:
    data = loose_data_folder(tmp_path)
    done = subprocess.run(
        samops_cmd("sync", "--once"),
        cwd=tmp_path,
        env=folder_env(SAMOPS_DATA_DIR="data", SAM_BASE_URL=simulator.base_url),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert mode(data) == 0o700
    # The sync wrote through WAL: whatever SQLite left beside the cache is owner-only too.
    assert {f.name: mode(f) for f in data.glob("cache.db*")} == {
        f.name: 0o600 for f in data.glob("cache.db*")
    }
    assert "WARNING samops.files: data was readable by others" in done.stderr


def test_a_loose_cache_is_tightened_before_sqlite_makes_its_wal_and_shm(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cache.db"
    open_cache(path).close()  # the last connection's close removes -wal and -shm
    path.chmod(0o644)
    caplog.set_level(logging.WARNING, logger="samops.files")
    db = open_cache(path)
    try:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('x', 'y')")
        db.conn.commit()
        wal, shm = path.with_name("cache.db-wal"), path.with_name("cache.db-shm")
        assert (mode(path), mode(wal), mode(shm)) == (0o600, 0o600, 0o600)
        # Only the cache itself needed tightening: SQLite made the new files with its (fixed) mode.
        assert str(path) in caplog.text and str(wal) not in caplog.text and str(shm) not in caplog.text
    finally:
        db.close()
