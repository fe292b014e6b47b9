"""`bot/writes.run_write` in-process: the audit row of a write that failed or blew up after sending."""

from __future__ import annotations

from pathlib import Path

import pytest

# Importing a command module registers its subcommands with the router.
from bot.writes import WriteRequest, run_write
from core.cache import audit
from tests.support.bot import local_context


def test_a_write_that_blows_up_after_sending_is_audited_as_unknown(tmp_path: Path) -> None:
    ctx = local_context(tmp_path, {})
    request = WriteRequest(
        slack_user="U1", command="user delete 5", summary="deleted user 5", dedupe_key="k1"
    )

    def sent_then_interrupted() -> None:
        raise KeyboardInterrupt  # escapes every handler of ours, as a crash after the request left would

    with pytest.raises(KeyboardInterrupt):
        run_write(ctx, request, sent_then_interrupted)
    (row,) = audit.recent(ctx.db(), command="user delete")
    assert row.outcome == "unknown" and row.slack_user == "U1"


def test_a_write_that_fails_is_audited_as_failed(tmp_path: Path) -> None:
    ctx = local_context(tmp_path, {})
    request = WriteRequest(slack_user="U1", command="sensor rename 5", summary="renamed", dedupe_key="k2")

    def bug() -> None:
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    outcome = run_write(ctx, request, bug)
    assert outcome.ran and not outcome.ok and "Traceback" not in outcome.message
    (row,) = audit.recent(ctx.db(), command="sensor rename")
    assert row.outcome == "failed"
