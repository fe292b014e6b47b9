"""Issue 26: a modal's `private_metadata` carried the response_url its answer is POSTed to, and a forged
submission naming another address made the bot POST there. The URL is sealed when the modal is made
(bot/response_urls.py); `answer_later` posts only to a sealed one, refuses and audits any other, and answers
by chat instead. Real WebhookClient posts to the Slack stand-in."""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from bot.modals import modal_meta
from bot.response_urls import MAC, seal_holds, sealed
from bot.roles import Role
from bot.slash.registry import Invocation
from bot.writes import answer_later
from core.cache import audit
from tests.support.bot import local_context
from tests.support.slack_standin import SlackStandIn


def invocation(url: str) -> Invocation:
    return Invocation(
        "U_ADMIN", "C1", "T1", "access grant 7", ("7",), None, Role.ADMIN, "1.2", url, "R-ABC123"
    )


def test_only_the_sealed_response_url_is_answered_a_forged_one_is_refused_and_audited(tmp_path: Path) -> None:
    ctx = local_context(tmp_path, {"admins": ["U_ADMIN"]})
    with SlackStandIn() as slack:
        ctx.web_client.base_url = slack.api_url
        meta = modal_meta(invocation(slack.response_url("real")))
        answer_later(ctx, meta, "U_ADMIN", "done")
        assert [c.params["text"] for c in slack.responses("real")] == ["done"]

        forged = {**meta, "response_url": slack.response_url("elsewhere")}  # the seal of another URL
        unsealed = {k: v for k, v in forged.items() if k != "response_url_mac"}
        for meta_of_attacker in (forged, unsealed):
            answer_later(ctx, meta_of_attacker, "U_ADMIN", "done")
        assert slack.responses("elsewhere") == []  # never posted to
        posted = slack.calls_to("chat.postEphemeral")  # answered in the command's channel instead
        assert [c.params["channel"] for c in posted] == ["C1", "C1"]
    rows = audit.recent(ctx.db(), outcome="denied")
    assert len(rows) == 2 and all("response_url is not the one samops gave" in r.summary for r in rows)


@given(st.text(max_size=200), st.one_of(st.none(), st.text(max_size=80), st.integers()), st.text())
@example("\ud800", "\udfff", "")  # lone surrogates, as JSON's "\ud800" reads
@example("", "\x80", "")  # non-ASCII: hmac.compare_digest raised TypeError on str
def test_no_forged_metadata_passes_the_seal(url: str, mac: object, other: str) -> None:
    assert not seal_holds({"response_url": url, MAC: mac})  # a seal made without the key
    if other != url:
        assert not seal_holds({**sealed(other), "response_url": url})  # another URL's seal
    assert seal_holds(sealed(url)) == bool(url)
