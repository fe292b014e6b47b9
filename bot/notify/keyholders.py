"""Keyholder lines that arrive after their card (docs/keyholders.md): an alarm card drawn before its panel's
authorizations were read says "Authorizations not read yet"; once the read is recorded (or fails, or a failure
is followed by a read), the card is edited through the one refresh of bot/cards.py, so that it shows the line.
The notifier runs this every cycle.

Once per change: a `claim_once` key per card and per change of its panel's read records the edit; an edit
Slack defers (pacing, a rate limit) gives the claim back and is tried on a later cycle; one Slack refuses (the
card was deleted) is not tried again. Edits go through the delivery's pacing, sharing each channel's budget
with the posts. Storm and incident cards carry no keyholder line (they stand for several alarms).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from bot import cards
from bot.notify.delivery import Delivery, DeliveryError, NotYet
from core import cache, read
from core.clock import DAY_MS
from core.sqlite_lib import sqlite_utils

MAX_CHECKED = 500  # cards looked at per cycle, oldest first
LOOK_BACK_MS = DAY_MS  # cards posted this long ago or less are brought up to date

log = logging.getLogger(__name__)


@dataclass
class KeyholderCards:
    db: sqlite_utils.Database
    delivery: Delivery
    drawing: Callable[[], cards.Drawing]
    clock: Callable[[], int]

    def run(self) -> int:
        """Edit every alarm card whose keyholder line changed since it was drawn; returns how many."""
        if self.delivery.console:
            return 0
        now = self.clock()
        edited, waiting = 0, set[str]()
        for stale in read.keyholder_cards_behind(self.db, now - LOOK_BACK_MS, MAX_CHECKED):
            if stale.channel in waiting:
                continue
            key = read.keyholder_edit_key(stale.channel, stale.ts, stale.changed_at)
            if not cache.claim_once(self.db, key, now):
                continue  # edited already (by this notifier or another)
            card = cards.card_at(self.db, stale.channel, stale.ts)
            if card is None or card.kind is not cards.CardKind.ALARM or card.event_id != stale.event_id:
                continue  # now an incident's card: no line to add (the claim stays, so it is not asked again)
            try:
                cards.refresh(self.drawing(), card, self.delivery.update)
            except NotYet as err:
                cache.release_claim(self.db, key)
                waiting.add(stale.channel)  # its pace is spent: the rest of the channel waits
                log.info(
                    "notify: the keyholder line of card %s in %s waits (%s)", stale.ts, stale.channel, err
                )
                continue
            except DeliveryError as err:
                # Slack refused (the card deleted, the bot removed): the claim stays, the card is left.
                log.warning(
                    "notify: could not edit the keyholder line of %s in %s: %s", stale.ts, stale.channel, err
                )
                continue
            edited += 1
        return edited
