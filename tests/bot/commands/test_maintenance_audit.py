"""What the audit log keeps of `/sam maintenance`, through the running bot with signed requests, and how
`/sam audit` and `samops audit` show it: the command as typed (its `org:` word too), a summary that says
what was done, and the user's text stored once, plain, escaped once where it is shown."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from core.cache import audit
from core.cache.db import open_cache
from core.cache.writes import upsert_dicts, write_transaction
from tests.support.bot import BotProcess, run_bot
from tests.support.processes import ROOT, samops_cmd
from tests.support.slack_standin import SlackStandIn

CONFIG = """[roles]
technicians = ["U_TECH"]
admins = ["U_ADMIN"]
[notify.timezones]
"1001" = "America/New_York"
"""
TYPED = "fix <siren> & O'Brien's door"  # Slack sends it as `fix &lt;siren&gt; &amp; O'Brien's door`


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory, slack: SlackStandIn) -> Iterator[BotProcess]:
    tmp = tmp_path_factory.mktemp("maintenance-audit")
    db = open_cache(tmp / "cache.db")
    with write_transaction(db):
        upsert_dicts(db, "organizations", [{"id": 1001, "name": "Acme"}], "id")
        upsert_dicts(db, "panels", [{"resource_id": 777, "org_id": 1001, "name": "Depot"}], "resource_id")
    db.close()
    with run_bot(tmp, slack, db_path=tmp / "cache.db", config=CONFIG) as bot:
        yield bot


def slack_escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def rows(bot: BotProcess) -> list[audit.AuditEntry]:
    db = open_cache(bot.db_path)
    try:
        return audit.recent(db, 100)
    finally:
        db.close()


def test_an_org_window_is_audited_with_its_org_word(bot: BotProcess) -> None:
    made = bot.send_command("maintenance org:1001 now +1h network works", user="U_TECH")
    assert "organization 1001" in made.text
    [row] = [r for r in rows(bot) if "network works" in r.command]
    assert row.command == "maintenance org:1001 now +1h network works"
    assert (row.outcome, row.org_id) == ("ok", 1001)
    assert row.summary.startswith("planned maintenance ") and " of organization 1001 from " in row.summary
    assert " America/New_York to " in row.summary and row.summary.endswith("America/New_York — network works")


def test_the_users_text_is_stored_once_and_escaped_once_where_shown(bot: BotProcess) -> None:
    made = bot.send_command(f"maintenance 777 now +1h {slack_escaped(TYPED)}", user="U_TECH")
    assert slack_escaped(TYPED) in made.text  # the card escapes it for Slack, once
    refused = bot.send_command(f"maintenance 777 now 25:99 {slack_escaped(TYPED)}", user="U_TECH")
    assert "is not a time" in refused.text

    usage, planned = [r for r in rows(bot) if "siren" in r.command]  # newest first
    assert planned.command == f"maintenance 777 now +1h {TYPED}" and planned.outcome == "ok"
    assert planned.summary.endswith(f"— {TYPED}")
    assert usage.command == f"maintenance 777 now 25:99 {TYPED}" and usage.outcome == "usage"
    assert "&lt;" not in usage.summary and "&amp;" not in usage.summary

    shown = bot.send_command("audit 5", user="U_ADMIN")
    assert slack_escaped(TYPED) in shown.text or slack_escaped(TYPED) in str(shown.blocks)
    assert "&amp;lt;" not in str(shown.blocks) and "&amp;amp;" not in str(shown.blocks)

    console = subprocess.run(samops_cmd("audit", "--db", str(bot.db_path), "--limit", "5"), cwd=ROOT,
                             capture_output=True, text=True, timeout=120,
                             env={"PATH": "/usr/bin:/bin", "COLUMNS": "400"})  # fmt: skip
    assert console.returncode == 0, console.stderr
    assert f"maintenance 777 now +1h {TYPED}" in console.stdout
    assert "&lt;" not in console.stdout and "&amp;" not in console.stdout
