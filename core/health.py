"""Whether alarms are flowing: the one rule behind `/readyz`, `samops status` and the heartbeat.

The notifier records, in its records (`notify_state`), when it last polled the service successfully, its poll
interval, whether it posts to Slack and when Slack last answered it (`RECORDED`); the outbox says which
alarms still wait for their card, and the cache the notifier's refused login. `judge` turns those figures
into a verdict: ready, or not with the reasons. Stale means (docs/high-availability.md):

- the last successful poll is older than `POLL_STALE_INTERVALS` intervals plus `POLL_STALE_SLACK_S` (a slow
  cycle at fleet size is not an outage; a stopped service is seen within half a minute at 5 s);
- the service refuses the notifier's login (at once: nothing is polled until it accepts it);
- an alarm has waited longer than `CARD_STALE_S` for its card (since it happened, or reached samops when it
  arrived late);
- Slack has not answered the notifier for `SLACK_STALE_S` (it asks Slack at least every `SLACK_PROBE_S`);
  a notifier that prints on the console has no Slack to judge;
- no notifier has recorded a poll yet.

The heartbeat is sent after a cycle whose own poll succeeded, and only when the verdict is ready.
"""

from __future__ import annotations

from dataclasses import dataclass

POLL_STALE_INTERVALS = 3
POLL_STALE_SLACK_S = 10.0
CARD_STALE_S = 120.0
SLACK_STALE_S = 300.0
SLACK_PROBE_S = 60.0  # the notifier asks Slack (auth.test) when it has had no answer for this long

# The notifier's records, in `notify_state`: epoch ms, except the interval (seconds) and the delivery kind.
POLL_OK = "alive:poll_ok"
INTERVAL = "alive:interval"
SLACK_OK = "alive:slack_ok"
DELIVERY = "alive:delivery"  # "slack" or "console"
RECORDED = (POLL_OK, INTERVAL, SLACK_OK, DELIVERY)


@dataclass(frozen=True)
class Figures:
    """What the verdict is drawn from (epoch ms; None: never)."""

    now: int
    interval_s: float | None  # the notifier's poll interval; None: no notifier has recorded one
    last_poll_ok: int | None
    oldest_waiting: int | None  # since when the oldest alarm still to be posted waits
    slack: bool  # the notifier posts to Slack (else on its console)
    last_slack_ok: int | None
    login_refused: str | None  # the refusal as `samops status` words it; None: the login works


@dataclass(frozen=True)
class Verdict:
    ready: bool
    reasons: tuple[str, ...]
    figures: Figures

    def as_json(self) -> dict[str, object]:
        """The `/readyz` body: the verdict and its figures as ages in seconds (no secrets: none are here)."""
        f = self.figures
        return {
            "status": "ok" if self.ready else "unavailable",
            "reasons": list(self.reasons),
            "last_poll_age_s": _age_s(f.last_poll_ok, f.now),
            "oldest_undelivered_age_s": _age_s(f.oldest_waiting, f.now),
            "last_slack_success_age_s": _age_s(f.last_slack_ok, f.now) if f.slack else None,
            "delivery": "slack" if f.slack else "console",
            "login": "refused" if f.login_refused else "ok",
            "poll_interval_s": f.interval_s,
            "thresholds_s": {
                "poll": poll_stale_s(f.interval_s) if f.interval_s is not None else None,
                "undelivered": CARD_STALE_S,
                "slack": SLACK_STALE_S,
            },
        }


def poll_stale_s(interval_s: float) -> float:
    return POLL_STALE_INTERVALS * interval_s + POLL_STALE_SLACK_S


def _age_s(at: int | None, now: int) -> float | None:
    return None if at is None else round(max(0, now - at) / 1000, 1)


def judge(f: Figures) -> Verdict:
    reasons: list[str] = []
    if f.interval_s is None or f.last_poll_ok is None:
        reasons.append("no successful poll of the service recorded yet (is `samops notify` running?)")
    elif (age := (f.now - f.last_poll_ok) / 1000) > poll_stale_s(f.interval_s):
        reasons.append(f"last successful poll {age:.0f} s ago (stale after {poll_stale_s(f.interval_s):g} s)")
    if f.login_refused:
        reasons.append(f"the service refuses the notifier's login: {f.login_refused}")
    if f.oldest_waiting is not None and (age := (f.now - f.oldest_waiting) / 1000) > CARD_STALE_S:
        reasons.append(f"an alarm has waited {age:.0f} s for its card (stale after {CARD_STALE_S:g} s)")
    if f.slack:
        if f.last_slack_ok is None:
            reasons.append("Slack has not answered the notifier yet")
        elif (age := (f.now - f.last_slack_ok) / 1000) > SLACK_STALE_S:
            reasons.append(f"Slack last answered {age:.0f} s ago (stale after {SLACK_STALE_S:g} s)")
    return Verdict(not reasons, tuple(reasons), f)


def heartbeat_due(f: Figures, polled_now: bool) -> bool:
    """Whether the cycle that just ended earns a heartbeat: its own poll worked and alarms flow."""
    return polled_now and judge(f).ready
