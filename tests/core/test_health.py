"""core/health.py: the one rule of whether alarms flow, behind /readyz, `samops status` and the heartbeat."""

from __future__ import annotations

from core import health
from core.health import Figures, heartbeat_due, judge

NOW = 10_000_000


def figures(**changes: object) -> Figures:
    base: dict[str, object] = {
        "now": NOW,
        "interval_s": 5.0,
        "last_poll_ok": NOW - 2_000,
        "oldest_waiting": None,
        "slack": True,
        "last_slack_ok": NOW - 30_000,
        "login_refused": None,
    }
    return Figures(**(base | changes))  # type: ignore[arg-type]


def test_fresh_figures_are_ready_and_earn_a_heartbeat() -> None:
    verdict = judge(figures())
    assert verdict.ready and verdict.reasons == ()
    assert verdict.as_json()["status"] == "ok"
    assert heartbeat_due(figures(), True)
    assert not heartbeat_due(figures(), False)  # the cycle's own poll failed: no heartbeat


def test_each_stale_figure_is_a_reason() -> None:
    stale_poll = NOW - int((health.poll_stale_s(5.0) + 1) * 1000)
    cases = {
        "last successful poll": figures(last_poll_ok=stale_poll),
        "no successful poll": figures(last_poll_ok=None),
        "refuses the notifier's login": figures(login_refused="401 UNAUTHORIZED"),
        "waited": figures(oldest_waiting=NOW - int((health.CARD_STALE_S + 1) * 1000)),
        "Slack last answered": figures(last_slack_ok=NOW - int((health.SLACK_STALE_S + 1) * 1000)),
        "Slack has not answered": figures(last_slack_ok=None),
    }
    for words, case in cases.items():
        verdict = judge(case)
        assert not verdict.ready and len(verdict.reasons) == 1, (words, verdict)
        assert words in verdict.reasons[0], (words, verdict)
        assert verdict.as_json()["status"] == "unavailable"
        assert not heartbeat_due(case, True)


def test_within_the_thresholds_is_ready() -> None:
    assert judge(figures(oldest_waiting=NOW - int(health.CARD_STALE_S * 1000))).ready
    assert judge(figures(last_poll_ok=NOW - int(health.poll_stale_s(5.0) * 1000))).ready
    assert judge(figures(slack=False, last_slack_ok=None)).ready  # the console has no Slack to judge
