"""A `/sam` text over the router's limit, through the running bot with signed requests: Slack gets its 200
(a 4xx would show the user a bare "dispatch_failed") and the user an ephemeral answer naming the limit; a
refused write is audited as such."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.slash.parse import MAX_TEXT
from core.cache import audit
from core.cache.db import open_cache
from tests.support.bot import BotProcess, run_bot, usage
from tests.support.slack_standin import SlackStandIn

CONFIG = '[roles]\ntechnicians = ["U_TECH"]\n'


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory, slack: SlackStandIn) -> Iterator[BotProcess]:
    tmp = tmp_path_factory.mktemp("long-text")
    with run_bot(tmp, slack, db_path=tmp / "cache.db", config=CONFIG) as bot:
        yield bot


@pytest.mark.parametrize("length", [MAX_TEXT + 1, 20_000])
def test_a_text_over_the_limit_is_answered_with_the_limit(bot: BotProcess, length: int) -> None:
    text = "help " + "x" * (length - len("help "))
    result = bot.send_command(text)
    assert result.status == 200
    usage(result, "/sam help [command]")
    assert f"{length:,} characters long; `/sam` takes at most {MAX_TEXT:,}" in result.text


def test_a_text_at_the_limit_is_read(bot: BotProcess) -> None:
    result = bot.send_command("help " + " " * (MAX_TEXT - len("help ")))
    assert result.status == 200
    assert "takes at most" not in result.text
    assert "/sam who-can" in result.text  # the help itself


def test_a_long_write_is_refused_and_audited(bot: BotProcess) -> None:
    reason = "r" * MAX_TEXT
    result = bot.send_command(f"maintenance 777 now +1h {reason}", user="U_TECH")
    assert result.status == 200
    assert result.ephemeral
    assert f"`/sam` takes at most {MAX_TEXT:,}" in result.text
    db = open_cache(bot.db_path)
    try:
        [entry] = [e for e in audit.recent(db, 50) if e.command.startswith("maintenance 777")]
    finally:
        db.close()
    assert (entry.slack_user, entry.outcome) == ("U_TECH", "usage")
    assert "takes at most" in entry.summary
