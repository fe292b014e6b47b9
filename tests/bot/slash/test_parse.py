"""The `/sam` argument parser: forgiving with what people and Slack type, and never raising."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.slash.parse import normalize, parse_text, split_words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("user a@b.com", ["user", "a@b.com"]),
        ('task update 42 name="Night patrol"', ["task", "update", "42", "name=Night patrol"]),
        ("task update 42 name=\u201cNight patrol\u201d", ["task", "update", "42", "name=Night patrol"]),
        ("sensor rename 7 \u2018Back door\u2019", ["sensor", "rename", "7", "Back door"]),
        ("panel O\u2019Brien", ["panel", "O'Brien"]),
        ('panel "unclosed name', ["panel", "unclosed name"]),
        ("  spaced \t  out  ", ["spaced", "out"]),
        ('empty ""', ["empty", ""]),
    ],
)
def test_words(text: str, words: list[str]) -> None:
    assert split_words(normalize(text)) == words


def test_slack_escapes_and_entities_are_undone() -> None:
    assert parse_text("user <mailto:ana@example.com|ana@example.com>").words == ("user", "ana@example.com")
    assert parse_text("privileges <@U123ABC|ana>").words == ("privileges", "U123ABC")
    assert parse_text("panel A &amp; B &lt;1&gt;").words == ("panel", "A", "&", "B", "<1>")


def test_org_anywhere_and_only_once() -> None:
    assert parse_text("org:7 panel 1001") == parse_text("panel 1001 ORG:7")
    assert parse_text("panel 1001 org:7").org_id == 7
    assert parse_text("panel 1001 org:7").words == ("panel", "1001")
    assert parse_text("panel org:7 org:7").error is None
    assert "only once" in (parse_text("panel org:7 org:8").error or "")
    assert "org:1001" in (parse_text("panel org:x").error or "")
    assert parse_text("panel org:").error


_PIECES = [*"ab1 :=\"'<>|@#!&;^\t\n\u201c\u201d\u2018\u2019\u00a0", "org:", "org:1", "&amp;", "<@U1|x>"]
_slackish = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=120), _slackish))
@example('"\x1f')  # a quoted control character that str.isspace() calls whitespace
def test_parser_never_raises_and_round_trips_words(text: str) -> None:
    parsed = parse_text(text)
    assert isinstance(parsed.words, tuple)
    assert all(isinstance(w, str) for w in parsed.words)
    assert parsed.org_id is None or parsed.org_id >= 0
    if parsed.error is None:
        # every word without whitespace (as str.isspace sees it: \x1f too) or quotes comes back as itself
        plain = [w for w in parsed.words if w and not any(c.isspace() or c in "\"'" for c in w)]
        for word in plain:
            assert word in split_words(" ".join(plain))
