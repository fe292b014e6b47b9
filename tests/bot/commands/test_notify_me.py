"""`/sam notify-me` over signed HTTP to a running bot: shows and sets a person's paging preferences, with the
time zone Slack gives for them (users.info `tz`), usage errors naming the field, and each change audited.
No service is needed: the preferences are samops' own records."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core import cache
from core.cache.db import open_cache
from core.priorities import Priority
from tests.support.bot import BotProcess, run_bot, usage
from tests.support.slack_standin import SlackStandIn

USAGE = "/sam notify-me [on | off | priorities P1 P2 … | priorities none | quiet 22:00-07:00 | quiet off]"


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotProcess]:
    tmp = tmp_path_factory.mktemp("notify_me")
    users = {"U_ANNA": None, "U_BEN": None}
    with (
        SlackStandIn(users=users, zones={"U_ANNA": "Asia/Tokyo"}) as slack,
        # The organization's zone, where Slack gives none of the person's own.
        run_bot(tmp, slack, config='[notify]\ntimezone = "America/Los_Angeles"\n') as bot,
    ):
        yield bot


def test_set_and_show_preferences_in_the_persons_zone(bot: BotProcess) -> None:
    shown = bot.send_command("notify-me", user="U_ANNA")
    assert shown.ephemeral and "*on*" in shown.text
    assert "not for new alarms by their priority, as you chose none" in shown.text

    saved = bot.send_command("notify-me priorities p2,P1", user="U_ANNA").text
    assert saved.startswith("Saved.") and "every new alarm of P1, P2" in saved
    saved = bot.send_command("notify-me quiet 22:00-07:00", user="U_ANNA").text
    assert "Quiet hours 22:00–07:00 in Asia/Tokyo: only P1 pages you then" in saved
    assert "every new alarm of P1, P2" in saved  # one field set, the others kept

    db = open_cache(bot.db_path)
    try:
        prefs = cache.prefs_of(db, "U_ANNA")
        assert (
            prefs is not None
            and prefs.zone == "Asia/Tokyo"
            and prefs.priorities == (Priority.P1, Priority.P2)
        )
        assert f"{prefs.quiet_from:%H:%M}-{prefs.quiet_to:%H:%M}" == "22:00-07:00"
        audited = [e for e in cache.recent_audit(db, 20, slack_user="U_ANNA") if e.outcome == "ok"]
        assert [e.command for e in audited][:2] == [
            "notify-me quiet 22:00-07:00",
            "notify-me priorities p2,P1",
        ]
    finally:
        db.close()

    off = bot.send_command("notify-me off", user="U_ANNA").text
    assert "*off*" in off
    assert "*off*" in bot.send_command("notify-me", user="U_ANNA").text
    on = bot.send_command("notify-me on", user="U_ANNA").text
    assert "*on*" in on and "Asia/Tokyo" in on  # turning it on again keeps the rest

    # Another person's zone is their own (the stand-in's default for users.info).
    assert "America/Los_Angeles" in bot.send_command("notify-me quiet 23:00 06:30", user="U_BEN").text
    assert "No quiet hours" in bot.send_command("notify-me quiet off", user="U_BEN").text


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("notify-me priorities P9", "priorities: 'p9' is not a priority (P1, P2, P3 or P4)"),
        ("notify-me priorities", "priorities: give P1 to P4"),
        ("notify-me quiet 25:00-07:00", "quiet: '25:00' is not a time of day"),
        ("notify-me quiet 22:00", "quiet: give the hours as"),
        ("notify-me quiet 07:00-07:00", "quiet: from and to are the same time"),
        ("notify-me quiet 22:00-07:00 extra", "quiet: give the hours as"),
        ("notify-me loud", "`notify-me` sets on, off, priorities or quiet, not 'loud'"),
        ("notify-me off now", "`off` takes no words after it"),
    ],
)
def test_bad_input_names_the_field_and_changes_nothing(bot: BotProcess, text: str, says: str) -> None:
    before = _prefs(bot, "U_BEN")
    answer = bot.send_command(text, user="U_BEN")
    usage(answer, USAGE)
    assert says in answer.text.replace("&#39;", "'")
    assert _prefs(bot, "U_BEN") == before


def _prefs(bot: BotProcess, user: str) -> object:
    db = open_cache(bot.db_path)
    try:
        return cache.prefs_of(db, user)
    finally:
        db.close()


def test_an_unknown_person_is_still_answered(bot: BotProcess) -> None:
    """users.info answers user_not_found: the preferences are kept, read in the organization's zone (it was
    UTC), and the answer says so."""
    text = bot.send_command("notify-me quiet 22:00-06:00", user="U_GHOST").text
    assert "America/Los_Angeles, the organization's (Slack gave no time zone of yours)" in text
    assert "UTC" not in text
