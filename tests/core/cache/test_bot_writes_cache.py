"""The bot's own cache tables on a real SQLite file: audit log, once-only claims, last known task state."""

from __future__ import annotations

from pathlib import Path

from core.cache import audit, claims
from core.cache.db import open_cache
from core.cache.tasks import load_task, save_task
from tests.support.threads import at_once

# -- audit, dedupe, task state -------------------------------------------------------------------------------


def test_claim_once_is_true_exactly_once_across_threads(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    open_cache(path)
    results = at_once(lambda: claims.claim_once(open_cache(path), "view:V1:hash"), 8)
    assert sorted(results) == [False] * 7 + [True]
    db = open_cache(path)
    assert claims.claim_once(db, "other") is True
    assert claims.claim_once(db, "other") is False


def test_old_claims_expire(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    assert claims.claim_once(db, "k", at=1_000)
    assert not claims.claim_once(db, "k", at=2_000)
    assert claims.claim_once(db, "k", at=1_000 + claims.DEDUPE_TTL_MS + 1)


def test_audit_rows_mask_secret_words(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    audit.record(
        db,
        slack_user="U1",
        command="camera add",
        outcome="ok",
        summary="securityCode=ABC123 name=x",
        reference="r1",
    )
    audit.record(
        db, slack_user="U2", command="sensor rename 5", outcome="failed", summary="s", reference="r2", at=1
    )
    [latest, older] = audit.recent(db)
    assert latest.summary == "securityCode=*** name=x" and latest.slack_user == "U1"
    assert older.reference == "r2" and older.outcome == "failed"
    assert [e.slack_user for e in audit.recent(db, slack_user="U2")] == ["U2"]


def test_task_state_round_trips(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    assert load_task(db, 42) is None
    save_task(db, 42, {"taskName": "A"}, org_id=1, at=5, by="U1")
    save_task(db, 42, {"taskName": "B"}, org_id=1, at=6, by="U2")
    known = load_task(db, 42)
    assert known is not None and known.body == {"taskName": "B"} and known.updated_by == "U2"
