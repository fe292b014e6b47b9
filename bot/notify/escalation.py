"""Escalation: an alarm of a route with `escalate_after`/`escalate_to` (else of a priority with
`[notify.escalation.P1]`, core/priorities.py, in whatever channel its card is) that is still open (nobody has
acknowledged or resolved it; a taken alarm goes on escalating) that many minutes after it happened gets one
post in its card's thread per level, mentioning the level's targets. A storm card escalates once per level
for its open alarms, and so does an incident card (its alarms share its thread) — until someone acknowledged
or resolved any alarm of the incident: the incident is handled as one, so a later alarm joining it does not
escalate alone.

A level happens once: it is leased in the records (`escalate:<channel>:<ts>:<level>`, core/cache/claims.py)
before it is posted, the alarms' `alarm_changes` record it ('escalated', the note naming the level) in the
transaction that ends the lease, and a notifier that gets the lease looks at the record again before posting:
two notifiers never post a level both. As with alarm cards, a kill between Slack's answer and the record
repeats that one post once the lease is free; nothing is skipped.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bot import cards
from bot.notify.delivery import Delivery, DeliveryError, NotYet
from bot.render import alarms as render
from core import cache, lifecycle, read
from core.alarms import Alarm
from core.cache import write_transaction
from core.clock import DAY_MS, MINUTE_MS
from core.config import EscalationLevel, NotifyConfig
from core.lifecycle import SAMOPS, Change, State
from core.priorities import Priorities
from core.sqlite_lib import sqlite_utils
from core.text import counted

MAX_CHECKED = 5000  # open alarms looked at per cycle, oldest first
# An alarm is looked at until this long after its last level was due: long enough for a notifier that was
# down to catch up, short enough that years of alarms nobody closed do not crowd out today's.
CATCH_UP_MS = DAY_MS
# A level is leased while it is posted (core/cache/claims.py): longer than a post takes with Slack slow; a
# dead notifier's lease is free at once on this machine.
LEVEL_LEASE_MS = 10 * MINUTE_MS

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Thread:
    """A card's thread and the alarms in it that are still open."""

    channel: str
    ts: str
    alarms: tuple[Alarm, ...]
    opened_at: int  # the oldest open alarm's time

    @property
    def grouped(self) -> bool:
        return len(self.alarms) > 1


def open_threads(
    db: sqlite_utils.Database, channels: Sequence[str], opened_after: int, opened_before: int
) -> list[Thread]:
    """Posted cards in `channels` with alarms still open that happened in [opened_after, opened_before],
    oldest first."""
    by_card: dict[tuple[str, str], list[tuple[Alarm, int]]] = defaultdict(list)
    for alarm, channel, ts, opened_at in read.open_on_cards(
        db, channels, opened_after, opened_before, MAX_CHECKED
    ):
        by_card[(channel, ts)].append((alarm, opened_at))
    return [
        Thread(channel, ts, tuple(a for a, _ in alarms), min(at for _, at in alarms))
        for (channel, ts), alarms in by_card.items()
    ]


def level_note(level: int) -> str:
    return f"level {level}"


def level_of(note: str | None) -> int | None:
    """The level an 'escalated' record's note names (`level_note`'s), None for any other note."""
    number = (note or "").removeprefix("level ")
    return int(number) if number != note and number.isdigit() else None


@dataclass
class Escalator:
    db: sqlite_utils.Database
    config: NotifyConfig
    delivery: Delivery
    clock: Callable[[], int]
    priorities: Priorities = field(default_factory=Priorities)
    owner: str = field(default_factory=cache.process_owner)  # whose leases it takes (core/cache/claims.py)

    def run(self) -> int:
        """Post every escalation level that is due; returns how many were posted."""
        routes = [r for r in self.config.routes if r.escalate_after]
        by_priority = [e for e in self.config.escalation.values() if e.escalate_after]
        if not (routes or by_priority) or self.delivery.console:
            return 0
        now = self.clock()
        first = min(r.escalate_after[0] for r in [*routes, *by_priority]) * MINUTE_MS
        last = max(r.escalate_after[-1] for r in [*routes, *by_priority]) * MINUTE_MS
        # A priority's escalation follows its alarms into any channel; a route's stays in its own.
        channels = sorted(
            {r.channel for r in routes} | (set(self.config.channels()) if by_priority else set())
        )
        posted = 0
        for thread in open_threads(self.db, channels, now - int(last) - CATCH_UP_MS, now - int(first)):
            posted += self._escalate(thread, now)
        return posted

    def levels(self, thread: Thread) -> tuple[EscalationLevel, ...]:
        """The route's levels when it sets some (in its own channel), else those of the most urgent priority
        among the thread's open alarms (`[notify.escalation.P1]`), else none."""
        route = self.config.route_for(thread.alarms[0])
        if route is not None and route.escalate_after:
            return route.escalation() if route.channel == thread.channel else ()
        priority = min(self.priorities.of(a) for a in thread.alarms)
        plan = next((e for name, e in self.config.escalation.items() if name == priority.label), None)
        return plan.escalation() if plan is not None else ()

    def _escalate(self, thread: Thread, now: int) -> int:
        levels = self.levels(thread)
        if not levels:
            return 0
        if self.incident_handled(thread):
            return 0
        done = max(lifecycle.escalated_levels(self.db, a.event_id) for a in thread.alarms)
        if done >= len(levels):
            return 0
        level = levels[done]
        if now - thread.opened_at < level.after_minutes * MINUTE_MS:
            return 0
        number = done + 1
        # Claimed before it is posted, and looked at again once claimed: another notifier that posted this
        # level recorded it before giving its lease back.
        lease = f"escalate:{thread.channel}:{thread.ts}:{number}"
        if not cache.take_lease(self.db, lease, self.owner, now, LEVEL_LEASE_MS):
            return 0
        posted = False
        try:
            if max(lifecycle.escalated_levels(self.db, a.event_id) for a in thread.alarms) >= number:
                return 0
            message = render.escalation(
                number, level.targets, level.after_minutes, thread.alarms[0], len(thread.alarms)
            )
            self.delivery.post(thread.channel, message, thread_ts=thread.ts)
            posted = True
        except (NotYet, DeliveryError) as err:
            log.info("notify: escalation level %d in %s waits (%s)", number, thread.channel, err)
            return 0
        finally:
            if not posted:
                cache.end_lease(self.db, lease, self.owner)
        with write_transaction(self.db):  # the level's record and the lease's end commit together
            cache.end_lease(self.db, lease, self.owner)
            for alarm in thread.alarms:
                lifecycle.apply(
                    self.db,
                    alarm.event_id,
                    Change.ESCALATED,
                    SAMOPS,
                    now,
                    opened_at=alarm.activity_time,
                    note=level_note(number),
                )
        escalated = counted(len(thread.alarms), "alarm")
        log.info("notify: escalated %s in %s to level %d", escalated, thread.channel, number)
        return 1

    def incident_handled(self, thread: Thread) -> bool:
        """Whether the thread's card is an incident card someone has taken up."""
        card = cards.card_at(self.db, thread.channel, thread.ts)
        if card is None or card.kind is not cards.CardKind.INCIDENT or card.incident_id is None:
            return False
        members = [event_id for event_id, _ in cache.incident_alarms(self.db, card.incident_id)]
        counts = read.state_counts(self.db, members)
        return bool(counts.get(State.ACKNOWLEDGED) or counts.get(State.RESOLVED))
