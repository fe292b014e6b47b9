"""Shift handover digests: at each `handover` time of a channel (`[notify.channels.<id>]`, in its
organization's time zone) one message covering the shift since the previous handover time.

Once per time, even across restarts and with two notifiers on one cache: the time is claimed
(`handover:<channel>:<local date>T<HH:MM>`) before the post, and given back if the post fails, so that the
next cycle tries again. Times before the notifier first watched a channel are not caught up; a time missed
while it was down is posted late, once (only the latest, covering since the one before).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from bot.notify.delivery import Delivery
from bot.notify.digests import post_once, watching_since
from bot.render import quiet as render
from bot.render.common import Rendered
from core.clock import DAY_MS
from core.config import ChannelNotify, NotifyConfig
from core.priorities import Priorities
from core.read import handover
from core.sqlite_lib import sqlite_utils
from core.windows import latest_at_or_before, parse_clock


def shift_start(settings: ChannelNotify, config: NotifyConfig, at: int) -> int:
    """When the shift running at `at` began: the latest handover time at or before it (a day back if the
    channel has none)."""
    times = tuple(parse_clock(t) for t in settings.handover)
    start = latest_at_or_before(times, at, config.zone_for(settings.org)) if times else None
    return start if start is not None else at - DAY_MS


def claim_key(channel: str, due: int, config: NotifyConfig, settings: ChannelNotify) -> str:
    local = datetime.fromtimestamp(due / 1000, config.zone_for(settings.org))
    return f"handover:{channel}:{local:%Y-%m-%dT%H:%M}"


@dataclass
class Handovers:
    db: sqlite_utils.Database
    config: NotifyConfig
    delivery: Delivery
    clock: Callable[[], int]
    priorities: Priorities = field(default_factory=Priorities)

    def tick(self) -> None:
        now = self.clock()
        for channel, settings in self.config.per_channel.items():
            if settings.handover:
                self._channel(channel, settings, now)

    def _channel(self, channel: str, settings: ChannelNotify, now: int) -> None:
        due = shift_start(settings, self.config, now)
        if due < watching_since(self.db, "handover", channel, now) or due > now:
            return
        key = claim_key(channel, due, self.config, settings)

        def message() -> Rendered:
            previous = shift_start(settings, self.config, due - 1)
            digest = handover(self.db, previous, due, settings.org, self.priorities)
            zone = self.config.shown_zone_for(settings.org)
            return render.handover_digest(digest, zone, now, self.config.shown_zone_for)

        post_once(self.db, self.delivery, channel, key, message, "handover digest", now)
