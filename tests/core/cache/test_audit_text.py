"""The audit log keeps what was sent, but never a character that beeps, reorders or breaks what shows it."""

from __future__ import annotations

from pathlib import Path

from core.cache import audit
from core.cache.db import open_cache


def test_control_and_bidi_characters_are_written_out(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    audit.record(db, slack_user="U1", command="maintenance 777 now +1h \x07bell", outcome="usage",
                 summary="reason: \u202eevil\u202c at most 200 characters", reference="R-1")  # fmt: skip
    [row] = audit.recent(db)
    assert row.command == "maintenance 777 now +1h \\u0007bell"
    assert row.summary == "reason: \\u202eevil\\u202c at most 200 characters"


def test_secret_words_are_masked_before_anything_else(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    audit.record(db, slack_user="U1", command="camera add securityCode=12345", outcome="usage",
                 summary="ok", reference="R-2")  # fmt: skip
    assert "12345" not in audit.recent(db)[0].command
