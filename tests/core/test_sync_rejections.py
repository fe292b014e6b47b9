"""A sync that meets invalid records: they are dropped, counted per operation and field in the cache's
rejected_records (the last sync's only), reported, and the rest of the sync goes on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cache.db import open_cache
from core.cache.schema import REJECTED_RECORDS, SCHEMA_VERSION, schema_version
from core.client import SamClient
from core.settings import Settings
from core.sync import run_sync
from tests.support.hostile_service import PANELS, HostileService, Hostility


@pytest.fixture(scope="module")
def service() -> Iterator[HostileService]:
    with HostileService() as fake:
        yield fake


def rejected_rows(db_path: Path) -> list[tuple]:
    db = open_cache(db_path)
    try:
        return db.execute(
            f"SELECT operation, record, field, reason, count FROM {REJECTED_RECORDS} ORDER BY operation"
        ).fetchall()
    finally:
        db.close()


def test_rejections_are_counted_kept_for_status_and_replaced_by_the_next_sync(
    service: HostileService, tmp_path: Path
) -> None:
    path = tmp_path / "cache.db"
    settings = Settings(_env_file=None, base_url=service.base_url, max_retries=0, timeout=5)
    service.set(
        {
            "activities": Hostility("huge_time", 99999999999999999999),
            "camera/list": Hostility("huge_int", 18446744073709551616, field="resourceId"),
        }
    )
    db = open_cache(path)
    try:
        with SamClient(settings) as client:
            client.list_cameras()  # dropped before the sync: not this sync's
            report = run_sync(db, client)
            assert report.ok, report.errors  # dropping invalid records is not a failure
            assert {k.describe(n) for k, n in report.rejected.items()} == {
                f"rejected {len(PANELS)} Activity records from list_activities: activityTime out of range",
                "rejected 1 CameraSummary record from list_cameras: resourceId out of range",
            }
            cached = db.execute("SELECT resource_id FROM cameras").fetchall()
            assert cached == [(200102,)]
            times = db.execute("SELECT count(*), max(activity_time) FROM activities").fetchone()
            assert times[0] == 2 * len(PANELS) and times[1] < 4_102_444_800_000
            assert rejected_rows(path) == [
                ("list_activities", "Activity", "activityTime", "out of range", len(PANELS)),
                ("list_cameras", "CameraSummary", "resourceId", "out of range", 1),
            ]
            service.set({})
            assert run_sync(db, client).rejected == {}
            assert rejected_rows(path) == []
    finally:
        service.set({})
        db.close()


def test_the_table_comes_with_a_migration(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    try:
        assert schema_version(db) == SCHEMA_VERSION
        assert db[REJECTED_RECORDS].exists()
        assert db.table(REJECTED_RECORDS).pks == ["operation", "record", "field", "reason"]
    finally:
        db.close()
