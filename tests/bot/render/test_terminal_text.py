"""The console's copy of a message (`Rendered.console`, `samops slash`'s answer) reads as text, not as
Slack's markup (issue 37: `*bold*` and `:red_circle:` were printed as typed)."""

from __future__ import annotations

from bot.render.common import Rendered, blocks_to_text, context, escape, section, terminal_text
from core.text import LINK_BREAK, unformatted, unlinked


def test_marks_emoji_links_and_mentions_read_as_text() -> None:
    shown = terminal_text(
        ":red_circle: *Fire alarm* on _Dock_ · <https://dash.example/alarms?panel=7|open> for <@U0TECH>"
    )
    assert shown == "🔴 Fire alarm on Dock · open (https://dash.example/alarms?panel=7) for @U0TECH"


def test_what_a_person_typed_stays_as_typed() -> None:
    """A maintenance reason's `*` (made inert with a zero-width space), a host name broken for Slack's linker,
    an escaped `<`: each is shown as the person typed it, with no zero-width space left to copy."""
    typed = "swap *battery* at shop.example.com <now>"
    shown = terminal_text(f"*Reason:* {escape(unlinked(unformatted(typed)))}")
    assert shown == f"Reason: {typed}" and LINK_BREAK not in shown


def test_identifiers_and_times_are_left_alone() -> None:
    assert terminal_text("U_TECH at 22:00:00, file_name_here") == "U_TECH at 22:00:00, file_name_here"


def test_a_card_on_the_console_and_an_answer_of_samops_slash() -> None:
    message = Rendered.of("fallback", [section("*Fire alarm* :rotating_light:"), context(":warning: _late_")])
    assert message.console() == "Fire alarm 🚨\n⚠️ late"
    assert "*" not in blocks_to_text(message.blocks) and ":warning:" not in blocks_to_text(message.blocks)


def test_a_mark_inside_code_or_a_word_is_a_character() -> None:
    shown = terminal_text("fields (`*` = required): name*, brand*; *bold*")
    assert shown == "fields (`*` = required): name*, brand*; bold"


def test_a_usage_line_in_angle_brackets_is_words_not_a_link() -> None:
    """`/sam panel <resourceId | name>` read "/sam panel  name (resourceId )" on the console (the trial)."""
    assert terminal_text("`/sam panel <resourceId | name>`") == "`/sam panel <resourceId | name>`"
    assert terminal_text("<https://x.example/a|the page>") == "the page (https://x.example/a)"
