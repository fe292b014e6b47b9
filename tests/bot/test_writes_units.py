"""`bot/writes.run_write` in-process: the audit row of a write that failed or blew up after sending."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

# Importing a command module registers its subcommands with the router.
from slack_sdk import WebClient

from bot.config import parse_config
from bot.context import AppContext
from bot.roles import RoleResolver
from bot.writes import AnnouncePace, WriteRequest, run_write
from core.cache import audit
from core.settings import Settings
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
