"""Overdue cards: an alarm card still open (nobody has acknowledged or resolved its alarm; taking it is not
acknowledging it) past its priority's acknowledgement SLA (core/priorities.py) is edited once, through the
one refresh of bot/cards.py, so that it shows it is overdue. The notifier runs this every cycle.

Once: a `claim_once` key per card records the edit; an edit Slack defers (pacing, a rate limit) gives the
claim back and is tried on a later cycle; one Slack refuses (the card was deleted) is not tried again.
Edits go through the delivery's pacing, so they share each channel's budget with the posts. Storm and
incident cards are left as they are: their escalation speaks for their open alarms.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot import cards
from bot.notify.delivery import Delivery, DeliveryError, NotYet
from core import cache, read
from core.clock import DAY_MS
from core.priorities import Priorities, Priority
from core.sqlite_lib import sqlite_utils

MAX_CHECKED = 5000  # open alarms looked at per cycle, oldest first
CATCH_UP_MS = DAY_MS  # as escalation: a notifier that was down catches up on a day of alarms, not years

log = logging.getLogger(__name__)


def overdue_key(channel: str, ts: str) -> str:
    return f"overdue:{channel}:{ts}"


@dataclass
class OverdueCards:
    db: sqlite_utils.Database
    priorities: Priorities
    channels: Callable[[], Sequence[str]]
    delivery: Delivery
    drawing: Callable[[], cards.Drawing]
    clock: Callable[[], int]

    def run(self) -> int:
        """Edit every alarm card that has crossed its SLA since the last cycle; returns how many."""
        slas = [ms for p in Priority if (ms := self.priorities.sla_ms(p)) is not None]
        channels = list(self.channels())
        if not slas or not channels or self.delivery.console:
            return 0
        now = self.clock()
        edited, waiting = 0, set[str]()
        since, until = now - max(slas) - CATCH_UP_MS, now - min(slas)
        found = read.open_on_cards(self.db, channels, since, until, MAX_CHECKED)
        seen = read.seen_times(self.db, [alarm.event_id for alarm, *_ in found])
        for alarm, channel, ts, _ in found:
            late = read.lateness(alarm.activity_time, seen.get(alarm.event_id))  # timed from its arrival
            if channel in waiting or not self.priorities.overdue(alarm, now, late):
                continue
            card = cards.card_at(self.db, channel, ts)
            if card is None or card.kind is not cards.CardKind.ALARM or card.event_id != alarm.event_id:
                continue
            key = overdue_key(channel, ts)
            if not cache.claim_once(self.db, key, now):
                continue  # edited already (by this notifier or another)
            try:
                cards.refresh(self.drawing(), card, self.delivery.update)
            except NotYet as err:
                cache.release_claim(self.db, key)
                waiting.add(channel)  # its pace is spent: the rest of the channel waits for a later cycle
                log.info("notify: marking the card %s in %s overdue waits (%s)", ts, channel, err)
                continue
            except DeliveryError as err:
                # Slack refused the edit (the card deleted, the bot removed): asking again every cycle would
                # not change that, so the claim stays and the card is left as it is.
                log.warning("notify: could not mark the card %s in %s overdue: %s", ts, channel, err)
                continue
            edited += 1
            label = self.priorities.of(alarm).label
            log.info("notify: the alarm card %s in %s is overdue (%s)", ts, channel, label)
        return edited
