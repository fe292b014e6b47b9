"""Silent-panel supervision in the notifier (the rule: core/supervision.py; what users see:
docs/supervision.md).

Each cycle, at most every SUPERVISE_EVERY_MS: discovery takes in the "communication lost" alarm of every
panel newly silent (`raise_due`, in discovery's transaction, so it is routed, held by a silence, opened in
the lifecycle and joined to incidents as any alarm is), and `tick` resolves, as samops, the alarm of every
panel that reported again, audits it, says "restored after 26 h" in the card's thread and redraws the card
through the one refresh (bot/cards.py). Everything is read from the cache: no request to the service.

Telling is once: a restored episode stays in the records until its thread post and card edit are done; an
edit Slack defers (pacing, a rate limit) is tried on a later cycle, as alarm posts are. It is leased in the
records while it is told (`restored:<event id>`, core/cache/claims.py), so two notifiers tell it once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace

from bot import cards
from bot.notify.delivery import Delivery, DeliveryError, NotYet
from bot.render import alarms as render
from core import cache, supervision
from core.alarms import Alarm
from core.cache import write_transaction
from core.clock import MINUTE_MS
from core.reference import new_reference
from core.sqlite_lib import sqlite_utils
from core.supervision import Episode, SupervisionConfig

# Silence is counted in hours; a look every half minute is plenty, and keeps the cost of a fleet's look
# (one index walk per panel) off most 5-second cycles.
SUPERVISE_EVERY_MS = MINUTE_MS // 2
CONSOLE_CHANNEL = "console"
MAX_TRIES = 5  # tellings Slack refuses before samops gives up on one (the alarm is resolved either way)
TELL_LEASE_MS = 10 * MINUTE_MS  # a telling's lease: longer than its post and edit take with Slack slow

log = logging.getLogger(__name__)


@dataclass
class Supervision:
    db: sqlite_utils.Database
    config: SupervisionConfig
    delivery: Delivery
    drawing: Callable[[], cards.Drawing]
    clock: Callable[[], int]
    watching_since: Callable[[], int]  # the notifier's baseline: silence is never counted from before it
    # The panels whose activities are read (the poller's); None: every panel of the cache (the sync's)
    watched: Callable[[], Collection[int] | None] = lambda: None
    # Whether samops hears the service now: while its polls fail, every panel would look silent, and the
    # silence would be samops' own; nothing is raised until it answers again (and the poller caught up).
    listening: Callable[[], bool] = lambda: True
    _due: int = field(default=0, init=False)
    owner: str = field(default_factory=cache.process_owner)  # whose leases it takes (core/cache/claims.py)

    @property
    def on(self) -> bool:
        c = self.config
        return c.silent_after is not None or any(
            v is not None for v in (*c.orgs.values(), *c.panels.values())
        )

    def raise_due(self) -> list[Alarm]:
        """The alarms of the panels newly silent, for discovery (in its transaction)."""
        now = self.clock()
        if not self.on or now < self._due or not self.listening():
            return []
        self._due = now + SUPERVISE_EVERY_MS
        raised = supervision.raise_silent(self.db, self.config, now, self.watching_since(), self.watched())
        for alarm in raised:
            log.info("notify: panel %s is silent: communication lost (%s)", alarm.resource_id, alarm.event_id)
        return raised

    def tick(self) -> int:
        """Resolve the alarms of panels that reported again, and tell their cards; returns how many were
        resolved now."""
        if not supervision.any_episode(self.db):
            return 0  # no panel silent: no write lock taken for nothing
        with write_transaction(self.db):
            supervision.restore_rows(self.db)  # a cache emptied under us lost them; the records keep them
            restored = supervision.restore_reporting(self.db, self.clock())
            for done in restored:  # each resolution with its audit row, in one transaction
                self._audit(done)
        self._tell()
        return len(restored)

    def _audit(self, done: supervision.Restored) -> None:
        e = done.episode
        summary = f"panel {e.resource_id} reported again: {e.event_id} resolved, {e.restored_note}"
        if done.unchanged:
            summary += f" (no change: {done.unchanged})"
        cache.record_audit(
            self.db,
            slack_user=supervision.SAMOPS,
            command=f"supervision resolve {e.event_id}",
            outcome="ok",
            summary=summary,
            reference=new_reference(),
            org_id=e.org_id,
            at=e.restored_at,
        )
        log.info(
            "notify: panel %s reported again: %s resolved, %s", e.resource_id, e.event_id, e.restored_note
        )

    def _tell(self) -> None:
        for episode in supervision.untold(self.db):
            if supervision.awaiting_post(self.db, episode.event_id):
                continue  # its card is not posted yet: it will be drawn resolved; the thread waits for it
            # Claimed before it is told, and read again once claimed: a second notifier on these records
            # (docs/notifier.md) tells it once, and finds it told.
            lease = f"restored:{episode.event_id}"
            if not cache.take_lease(self.db, lease, self.owner, self.clock(), TELL_LEASE_MS):
                continue
            try:
                current = next(
                    (e for e in supervision.untold(self.db) if e.event_id == episode.event_id), None
                )
                if current is not None:
                    self._tell_claimed(current)
            finally:
                cache.end_lease(self.db, lease, self.owner)

    def _tell_claimed(self, episode: Episode) -> None:
        try:
            self._tell_one(episode)
        except NotYet as err:
            log.info("notify: the restored note of %s waits (%s)", episode.event_id, err)
            return
        except DeliveryError as err:
            # Slack refused or was out of reach: tried again on later cycles, a few times (a card deleted or
            # the bot removed from the channel would not change).
            tries = episode.attempts + 1
            log.warning("notify: could not tell %s was restored (try %d): %s", episode.event_id, tries, err)
            if tries < MAX_TRIES:
                supervision.telling(self.db, replace(episode, attempts=tries))
                return
        supervision.told(self.db, episode)

    def _tell_one(self, episode: Episode) -> None:
        text = (
            f":white_check_mark: Communication restored: the panel reported again, {episode.restored_note}."
        )
        if self.delivery.console:
            self.delivery.post(CONSOLE_CHANNEL, render.notice(f"{episode.event_id}: {text}"))
            return
        card = cards.card_of_alarm(self.db, episode.event_id)
        if card is None:
            return  # held by a silence or maintenance window: nothing was posted, nothing to tell
        if not episode.thread_posted:
            self.delivery.post(card.channel, render.notice(text), thread_ts=card.ts)
            # Said once: a redraw that has to wait does not say it again.
            supervision.telling(self.db, replace(episode, thread_posted=True))
        cards.refresh(self.drawing(), card, self.delivery.update)
