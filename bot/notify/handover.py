"""Shift handover digests: at each `handover` time of a channel (`[notify.channels.<id>]`, in its
organization's time zone) one message covering the shift since the previous handover time.

Once per time, even across restarts and with two notifiers on one cache: the time is claimed
(`handover:<channel>:<local date>T<HH:MM>`) before the post, and given back if the post fails, so that the
next cycle tries again. Times before the notifier first watched a channel are not caught up; a time missed
while it was down is posted late, once (only the latest, covering since the one before).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from bot.notify.config import ChannelNotify, NotifyConfig
from bot.notify.delivery import Delivery, DeliveryError, NotYet
from bot.render import quiet as render
from core import cache
from core.cache import write_transaction
from core.clock import DAY_MS
from core.priorities import Priorities
from core.read import handover
from core.sqlite_lib import sqlite_utils
from core.windows import latest_at_or_before, parse_clock

log = logging.getLogger(__name__)


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
        watching = self._watching_since(channel, now)
        due = shift_start(settings, self.config, now)
        if due < watching or due > now:
            return
        key = claim_key(channel, due, self.config, settings)
        if not cache.claim_once(self.db, key, at=now):
            return
        previous = shift_start(settings, self.config, due - 1)
        digest = handover(self.db, previous, due, settings.org, self.priorities)
        zone = self.config.zone_for(settings.org)
        message = render.handover_digest(digest, zone, now, self.config.zone_for)
        try:
            self.delivery.post(channel, message)
        except (NotYet, DeliveryError) as err:
            cache.release_claim(self.db, key)
            log.info("notify: the handover digest for %s waits (%s)", channel, err)
            return
        log.info("notify: handover digest posted to %s (%s)", channel, key)

    def _watching_since(self, channel: str, now: int) -> int:
        key = f"handover-since:{channel}"
        value = cache.get_state(self.db, key)
        if value is None:
            with write_transaction(self.db):
                cache.set_state(self.db, key, str(now))
            return now
        return int(value)
