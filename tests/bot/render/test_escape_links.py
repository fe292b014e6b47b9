"""Issue 26: text from the service reaches Slack as text. Slack's servers turn a bare URL, a `www.` host, a
domain name in any mrkdwn field into a link (docs: "Formatting text", automatic parsing), and `<...>` into a
link or a mention; `escape` must leave none of them, whatever the text."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.render.alarms import alarm_card
from bot.render.common import escape, plain
from core.alarms import Alarm
from core.text import LINK_BREAK, shown
from core.views import AlarmView

# What Slack links to a page in mrkdwn, as far as its documentation and its clients show: a scheme and `://`,
# a host starting `www.`, a domain name (labels joined by dots, ending in a top-level domain of letters) that
# is not an e-mail address's (a mailto link opens a new mail: addresses are kept whole, to be read and
# copied). The fullwidth and ideographic dots count too: some linkers fold them into ".".
DOT = "[.．。｡]"
LINKABLE = re.compile(
    rf"[A-Za-z][A-Za-z0-9+.-]*://"
    rf"|(?<![@\w.-])www{DOT}[\w-]"
    rf"|(?<![@\w.-])[\w-]+(?:{DOT}[\w-]+)*{DOT}[^\W\d_]{{2,}}",
    re.IGNORECASE,
)

PIECES = [
    "http://", "https://", "ftp://", "HTTP://", "mailto:", "www.", "WWW.", "example", ".", "．", "。", "com",
    "co", "uk", "io", "@", "<", ">", "!", "&", "|", "#", ":", "/", "?", "=", "channel", "here", "everyone",
    "U123", "пример", "рф", "xn--p1ai", "127.0.0.1", "evil", "-", "_", "1", " ", "\n", "*", "`",
]  # fmt: skip
hostile = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=25).map("".join),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60),
)


@pytest.mark.parametrize(
    "text",
    [
        "see http://evil.example/x.png",
        "www.evil.example",
        "evil.example/login",
        "mail admin@evil.example, not evil.example",
        "<!channel> <http://evil.example|click> <@U123>",
        "@here look",
        "пример.рф",
    ],
)
def test_no_link_survives_the_escape(text: str) -> None:
    escaped = escape(text)
    assert "<" not in escaped and not LINKABLE.search(escaped), escaped
    assert escaped.replace(LINK_BREAK, "") == shown(text).replace("&", "&amp;").replace("<", "&lt;").replace(
        ">", "&gt;"
    )  # reads the same


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(hostile)
def test_fuzz_no_mention_or_autolinkable_url_survives(text: str) -> None:
    escaped = escape(text)
    assert "<" not in escaped and ">" not in escaped  # so no `<http`, `<!`, `<@`, `<#`
    assert not LINKABLE.search(escaped), escaped
    if LINK_BREAK not in text:  # what the audit log keeps is the text as it came, control characters shown
        assert plain(escaped) == shown(text)


def mrkdwn_texts(node: object) -> list[str]:
    """Every mrkdwn text of a rendered message: text objects and section fields, at any depth."""
    if isinstance(node, dict):
        own = [node["text"]] if node.get("type") == "mrkdwn" and isinstance(node.get("text"), str) else []
        return own + [t for value in node.values() for t in mrkdwn_texts(value)]
    if isinstance(node, list):
        return [t for value in node for t in mrkdwn_texts(value)]
    return []


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(hostile)
def test_fuzz_an_alarm_card_links_nothing_of_the_services_text(text: str) -> None:
    # Every text field of the activity and the panel's name, as the service could send them.
    alarm = Alarm("EV-1", 5001, 1001, 1_700_000_000_000, text, "violation", text, "alarm", text)
    rendered = alarm_card(AlarmView(alarm, ZoneInfo("UTC"), None, ""))
    texts = [rendered.text, *mrkdwn_texts(rendered.attachments)]
    assert len(texts) > 1
    for shown_text in texts:
        assert "<" not in shown_text and not LINKABLE.search(shown_text), shown_text
