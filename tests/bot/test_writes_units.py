"""`bot/writes.run_write` and `record_act` in-process: the audit row of a write that failed or blew up after
sending; an act and its row together, a write refused before anything is done when the records are locked."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

# Importing a command module registers its subcommands with the router.
from slack_sdk import WebClient

from bot.context import AppContext
from bot.roles import RoleResolver
from bot.writes import AnnouncePace, WriteRequest, record_act, run_write
from core import cache
from core.cache import audit
from core.cache.db import open_cache
from core.config import parse_config
from core.settings import Settings
from core.sqlite_lib import sqlite_utils
from tests.support.bot import local_context
from tests.support.slack_standin import SlackStandIn


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


# Issue 33, item 4: no act without its record.


def hold_records(ctx: AppContext) -> sqlite_utils.Database:
    """Another connection to the same files holding the write lock, as another process would; and the
    bot's own wait shortened to 200 ms, so the test does not wait out the 10 s busy timeout."""
    ctx.db().conn.execute("PRAGMA busy_timeout = 200")
    other = open_cache(ctx.settings.db_path)
    other.conn.execute("BEGIN IMMEDIATE")
    return other


def test_a_service_write_has_its_row_before_it_is_sent_and_its_outcome_after(tmp_path: Path) -> None:
    ctx = local_context(tmp_path, {"technicians": ["U1"]})
    request = WriteRequest(slack_user="U1", command="sensor rename 7", summary="renamed 7", dedupe_key="k3")
    seen: list[str] = []

    def send() -> None:  # what another reader of the records sees while the request is out
        other = open_cache(ctx.settings.db_path)
        seen.extend(r.outcome for r in audit.recent(other, command="sensor rename"))
        other.close()

    assert run_write(ctx, request, send).ok
    assert seen == ["unknown"]
    (row,) = audit.recent(ctx.db(), command="sensor rename")
    assert (row.outcome, row.summary) == ("ok", "renamed 7")


def test_records_locked_at_the_claim_refuse_the_write_before_it_is_sent(tmp_path: Path) -> None:
    ctx = local_context(tmp_path, {"technicians": ["U1"]})
    request = WriteRequest(slack_user="U1", command="sensor rename 8", summary="renamed 8", dedupe_key="k4")
    sent: list[bool] = []
    other = hold_records(ctx)
    with pytest.raises(cache.BusyError):
        run_write(ctx, request, lambda: sent.append(True))
    other.conn.execute("ROLLBACK")
    assert not sent and not audit.recent(ctx.db()) and not cache.is_claimed(ctx.db(), "k4")


def test_records_locked_after_the_call_keep_the_row_unknown_and_say_the_outcome(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ctx = local_context(tmp_path, {"technicians": ["U1"]})
    request = WriteRequest(slack_user="U1", command="sensor rename 9", summary="renamed 9", dedupe_key="k5")
    held: list[sqlite_utils.Database] = []
    outcome = run_write(ctx, request, lambda: held.append(hold_records(ctx)))
    held[0].conn.execute("ROLLBACK")
    assert outcome.ok  # the person is told what the service said
    (row,) = audit.recent(ctx.db(), command="sensor rename")
    assert row.outcome == "unknown"  # true of the record: it could not be told
    assert any("keeps outcome unknown; the outcome was ok" in r.getMessage() for r in caplog.records)
    assert not any(r.levelname == "ERROR" for r in caplog.records)


def test_a_local_act_that_fails_is_undone_and_its_row_says_failed(tmp_path: Path) -> None:
    ctx = local_context(tmp_path, {"technicians": ["U1"]})
    request = WriteRequest(slack_user="U1", command="alarm ack EV-1", summary="acknowledged", dedupe_key="k6")

    def half_then_bug() -> None:
        cache.set_state(ctx.db(), "half", "done")
        raise ValueError("a bug of ours, half-way")

    outcome = run_write(ctx, request, half_then_bug, local=True)
    assert outcome.ran and not outcome.ok
    assert cache.get_state(ctx.db(), "half") is None  # the half-done act never committed
    (row,) = audit.recent(ctx.db(), command="alarm ack")
    assert row.outcome == "failed" and cache.is_claimed(ctx.db(), "k6")


def test_a_local_act_and_its_row_commit_together(tmp_path: Path) -> None:
    ctx = local_context(tmp_path, {"technicians": ["U1"]})
    request = WriteRequest(slack_user="U1", command="plan tick EV-2", summary="ticked", dedupe_key="")

    def act() -> str:
        cache.set_state(ctx.db(), "ticked", "yes")
        other = open_cache(ctx.settings.db_path)  # another reader, mid-transaction: sees neither yet
        assert cache.get_state(other, "ticked") is None and not audit.recent(other)
        other.close()
        return "yes"

    assert record_act(ctx, act, lambda _: request) == (True, "yes")
    assert cache.get_state(ctx.db(), "ticked") == "yes"
    assert [r.outcome for r in audit.recent(ctx.db())] == ["ok"]


def test_audit_lines_beyond_the_pace_are_summed_up_in_one_line_a_minute_later(tmp_path: Path) -> None:
    """`AnnouncePace`, the audit channel's pace for a kind of write (maintenance windows), its minute made
    short: `per_minute` lines go out, the rest are counted, and one line says how many once the minute that
    began with the first one held back is over; then lines go out one by one again. Posted for real to the
    Slack stand-in. (tests/bot/commands/test_maintenance.py checks the pace through a running bot.)"""
    with SlackStandIn() as slack:
        config = parse_config({"audit": {"channel": "C_AUDIT"}})
        web = WebClient(token="xoxb-x", base_url=slack.api_url)
        ctx = AppContext(
            config=config,
            settings=Settings(data_dir=tmp_path),
            signing_secret="s",
            web_client=web,
            roles=RoleResolver(config.roles, web),
        )
        pace = AnnouncePace(per_minute=3, minute_s=0.5)
        held_at = time.monotonic()
        slots = [pace.admit(ctx, "maintenance") for _ in range(8)]
        assert [slot is not None for slot in slots] == [True] * 3 + [False] * 5

        def summed() -> list[Any]:
            posted = slack.calls_to("chat.postMessage")
            return [c for c in posted if "more `maintenance` writes" in c.params["text"]]

        [line] = slack.wait_for(summed, timeout=10)
        assert time.monotonic() - held_at >= 0.5  # not before the minute is over
        assert line.params["channel"] == "C_AUDIT"
        assert "5 more `maintenance` writes" in line.params["text"] and "/sam audit" in line.params["text"]
        assert pace.admit(ctx, "other kind") is not None  # each kind has its own pace
        time.sleep(0.6)  # the minute of the first lines is over: one by one again
        assert pace.admit(ctx, "maintenance") is not None
        assert len(summed()) == 1
