"""Every cache table comes from the migrations (schema v7 took over the tables once created on side paths)."""

from __future__ import annotations

import threading
import traceback
from pathlib import Path

from core.cache import audit, claims, schema
from core.cache.db import open_cache
from core.cache.tasks import load_task, save_task
from tests.support.cache_files import table_names
from tests.support.seed_cache import old_cache

SIDE_TABLES = {"notify_state", "notify_cards", "bot_dedupe", "task_state"}


def test_a_new_cache_has_every_table_before_any_module_uses_it(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    assert SIDE_TABLES | {"audit_log", "notify_outbox", "alarm_acks", "panel_silences"} <= table_names(
        db.conn
    )
    indexed = {tuple(i.columns) for i in db.table("notify_outbox").indexes}
    assert {("ts",), ("channel", "posted_at")} <= indexed


def test_a_version_6_cache_with_side_tables_migrates_and_keeps_their_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = old_cache(path, 6)
    # As samops before v7 created them, on first use.
    old.conn.executescript(
        """
        CREATE TABLE bot_dedupe (key TEXT PRIMARY KEY, at INTEGER);
        INSERT INTO bot_dedupe VALUES ('view:V1', 4102444000000);
        CREATE TABLE task_state (task_id INTEGER PRIMARY KEY, org_id INTEGER, updated_at INTEGER,
            updated_by TEXT, body TEXT);
        INSERT INTO task_state VALUES (5, 1, 10, 'U1', '{"taskName": "t"}');
        """
    )
    old.conn.commit()
    old.close()

    db = open_cache(path)

    assert schema.schema_version(db) == schema.SCHEMA_VERSION >= 7
    assert table_names(db.conn) >= SIDE_TABLES
    assert claims.claim_once(db, "view:V1", at=4102444000001) is False  # the old claim still holds
    known = load_task(db, 5)
    assert known is not None and known.body == {"taskName": "t"}


def test_a_fresh_file_serves_claims_audit_and_tasks_from_many_threads(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    errors: list[str] = []

    def work(n: int) -> None:
        try:
            db = open_cache(path)
            claims.claim_once(db, f"k{n}")
            audit.record(db, slack_user="U", command="x", outcome="ok", summary="s", reference=f"R{n}")
            save_task(db, n, {"taskName": str(n)}, org_id=1, at=n, by="U")
        except BaseException:  # noqa: BLE001  # a thread's failure, whatever it is, fails the test
            errors.append(traceback.format_exc())  # where it failed, not only what

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    db = open_cache(path)
    assert len(audit.recent(db)) == 8 and all(load_task(db, n) for n in range(8))
