"""Storm control: when a channel gets more alarms than `[notify.storm] threshold` within `window`, they are
counted into one card per panel (edited in place as more arrive) and listed in the card's thread.

Every grouped alarm is recorded in the outbox as 'grouped' with its card's ts, so counts come from the cache
and survive a restart; a card's thread details are tracked by the outbox rowid they reached.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from bot import cards
from bot.notify.delivery import Delivery
from bot.render import alarms as render
from core import cache
from core.cache import CardCounts, CardThread, OutboxEntry, write_transaction
from core.clock import WEEK_MS, now_ms
from core.config import NotifyConfig
from core.sqlite_lib import sqlite_utils

CARD_MEMORY_MS = WEEK_MS  # cards older than this are never touched again


@dataclass
class StormCards:
    db: sqlite_utils.Database
    config: NotifyConfig
    delivery: Delivery
    drawing: Callable[[], cards.Drawing]  # what cards are drawn with (bot/cards.py)
    dirty: set[str] = field(default_factory=set)  # cards whose counts changed since their last edit

    def window_start(self) -> int:
        return now_ms() - int(self.config.storm.window * 1000)

    def recent_cards(self, channel: str | None = None) -> list[CardThread]:
        return [c for c in cache.cards(self.db, channel) if c.updated_at >= now_ms() - CARD_MEMORY_MS]

    def reopen(self) -> None:
        """After a restart, cards still in their window may miss their last edit: edit them once. (An
        incident card, tracked here for its thread, keeps its own record of edits: notify/incidents.py.)"""
        self.dirty.update(
            c.ts
            for c in self.recent_cards()
            if c.updated_at >= self.window_start()
            and cache.incident_by_card(self.db, c.channel, c.ts) is None
        )

    def group(self, channel: str, entries: list[OutboxEntry]) -> None:
        """Count alarms into the open card of their panel, or open one (a post) when there is none."""
        by_panel = itertools.groupby(
            sorted(entries, key=lambda e: (e.alarm.resource_id or 0, e.rowid)),
            key=lambda e: e.alarm.resource_id,
        )
        for resource_id, group in by_panel:
            batch = list(group)
            ids = [e.alarm.event_id for e in batch]
            card = cache.open_card(self.db, channel, resource_id, self.window_start())
            if card is not None:
                with write_transaction(self.db):
                    cache.mark_delivered(self.db, ids, cache.GROUPED, card.ts)
                    saved = CardThread(
                        card.ts, channel, resource_id, card.opened_at, now_ms(), card.details_rowid
                    )
                    cache.save_card(self.db, saved)
                self.dirty.add(card.ts)
                continue
            if self.delivery.wait(channel) > 0:
                continue  # stays pending; the card opens at the next slot
            counts = CardCounts(
                len(batch),
                min(e.alarm.activity_time for e in batch),
                max(e.alarm.activity_time for e in batch),
                tuple(sorted({e.alarm.violation_name or e.alarm.violation_type or "alarm" for e in batch})),
            )
            ts = self.delivery.post(channel, cards.draw_storm(self.drawing(), batch[0].alarm, counts))
            assert ts is not None
            with write_transaction(self.db):
                cache.mark_delivered(self.db, ids, cache.GROUPED, ts)
                cache.save_card(self.db, CardThread(ts, channel, resource_id, now_ms(), now_ms(), 0))

    def update(self, channel: str) -> None:
        """Edit in place every card of `channel` whose count changed."""
        for thread in self.recent_cards(channel):
            if thread.ts not in self.dirty:
                continue
            card = cards.card_at(self.db, channel, thread.ts)
            if card is not None:
                cards.refresh(self.drawing(), card, self.delivery.update)
            self.dirty.discard(thread.ts)

    def post_details(self, channel: str) -> None:
        """List the newly grouped alarms in their card's thread (replies, never broadcast)."""
        per_reply = min(self.config.storm.details_per_reply, render.DETAILS_FIT)
        for card in self.recent_cards(channel):
            while batch := cache.undetailed(self.db, card, per_reply):
                zone = self.config.shown_zone_for(batch[0].alarm.org_id)
                details = render.storm_details([e.alarm for e in batch], zone)
                self.delivery.post(channel, details, thread_ts=card.ts)
                card = CardThread(
                    card.ts, channel, card.resource_id, card.opened_at, card.updated_at, batch[-1].rowid
                )
                with write_transaction(self.db):
                    cache.save_card(self.db, card)

    def with_work(self) -> list[CardThread]:
        return [c for c in self.recent_cards() if c.ts in self.dirty or cache.undetailed(self.db, c, limit=1)]
