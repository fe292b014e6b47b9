"""At-risk digests (docs/at_risk.md): at each digest time of a channel (`[notify.channels.<id>] at_risk`,
weekly by default, in its organization's zone) one message with the at-risk list of its organization (or of
every organization when the channel names none).

Once per period, even across restarts and with two notifiers on one cache: the period is claimed
(`at-risk:<channel>:<local date>T<HH:MM>`) before the post and given back if the post fails, so that the
next cycle tries again; as the handover digest (bot/notify/handover.py). A time before the notifier first
watched the channel is not caught up; one missed while it was down is posted late, once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.notify.delivery import Delivery
from bot.notify.digests import post_once, watching_since
from bot.render.at_risk import at_risk_message
from bot.render.common import Rendered
from core.config import AtRiskDigest, ChannelNotify, NotifyConfig
from core.read import at_risk_of, panel_org_ids
from core.sqlite_lib import sqlite_utils


@dataclass
class AtRiskDigests:
    db: sqlite_utils.Database
    config: NotifyConfig
    delivery: Delivery
    clock: Callable[[], int]

    def tick(self) -> None:
        now = self.clock()
        for channel, settings in self.config.per_channel.items():
            if settings.at_risk is not None:
                self._channel(channel, settings, settings.at_risk, now)

    def _channel(self, channel: str, settings: ChannelNotify, digest: AtRiskDigest, now: int) -> None:
        zone = self.config.zone_for(settings.org)
        due = digest.latest_due(now, zone)
        if due < watching_since(self.db, "at-risk", channel, now):
            return
        key = f"at-risk:{channel}:{digest.period_key(due, zone)}"
        orgs = [settings.org] if settings.org is not None else sorted(panel_org_ids(self.db))

        def message() -> Rendered:
            return at_risk_message(
                [at_risk_of(self.db, o, now) for o in orgs], self.config.shown_zone_for, now
            )

        post_once(self.db, self.delivery, channel, key, message, "at-risk digest", now)
