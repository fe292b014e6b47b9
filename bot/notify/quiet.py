"""Silences and maintenance windows in the notifier: which new alarms they hold back, the occurrences of the
TOML's weekly `[[notify.maintenance]]` entries, and the one message per channel when a window ends.

An alarm is held back by a window in force at the alarm's own time (not at discovery), covering its panel
or its organization; it is recorded in the outbox as 'silenced' and in `quiet_held` with the window (the one
ending last). A window that ends early (lifted) hands its alarms that another window in force still holds on
to that one: each alarm is summed up once, when no window holds it any more. A window that ended and whose
summary is out holds nothing more: an alarm discovered that late is posted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from bot.notify.config import MaintenanceEntry, NotifyConfig
from bot.notify.delivery import Delivery, DeliveryError, NotYet
from bot.render import quiet as render
from core import cache, read
from core.alarms import Alarm
from core.cache import write_transaction
from core.clock import MINUTE_MS
from core.read import MAINTENANCE, QuietWindow, held_back
from core.sqlite_lib import sqlite_utils

CONSOLE_CHANNEL = "console"

log = logging.getLogger(__name__)


@dataclass
class QuietHours:
    db: sqlite_utils.Database
    config: NotifyConfig
    delivery: Delivery
    clock: Callable[[], int]

    def holding(self, found: list[Alarm]) -> dict[str, int]:
        """event_id -> the window holding it back, for the alarms of `found` inside one. Runs in the
        discovery's transaction; records the TOML occurrences it meets."""
        if not found:
            return {}
        times = [a.activity_time for a in found]
        self.record_occurrences(times)
        windows = cache.overlapping_windows(self.db, min(times), max(times))
        held: dict[str, int] = {}
        for alarm in found:
            covering = [w for w in windows if w.holds(alarm.activity_time, alarm.resource_id, alarm.org_id)]
            if covering:  # the one that ends last is the one that kept it quiet
                held[alarm.event_id] = max(covering, key=lambda w: (w.end, w.id)).id
        return held

    def record_held(self, held: dict[str, int]) -> None:
        cache.record_held(self.db, held.items())

    def record_occurrences(self, times: Iterable[int]) -> None:
        """A `quiet_windows` row for each occurrence of a TOML entry covering one of `times` (once each)."""
        minutes = {t // MINUTE_MS * MINUTE_MS for t in times}
        now = self.clock()
        for entry in self.config.maintenance:
            targets = [("panel", p) for p in entry.panels] or [("org", entry.org)]
            for what, target in targets:
                weekly = entry.weekly(self._zone(entry, target if what == "panel" else None))
                spans = {span for t in minutes if (span := weekly.covering(t)) is not None}
                for start, end in spans:
                    cache.add_window(
                        self.db,
                        kind=MAINTENANCE,
                        starts_at=start,
                        ends_at=end,
                        created_at=now,
                        resource_id=target if what == "panel" else None,
                        org_id=target if what == "org" else None,
                        reason=entry.reason,
                        config_key=f"config:{entry.key()}:{what}:{target}:{start}",
                    )

    def _zone(self, entry: MaintenanceEntry, panel: int | None) -> ZoneInfo:
        """The entry's `timezone`, else its org's zone, else (panels only) the zone of the panel's org."""
        if entry.timezone or entry.org is not None or panel is None:
            return self.config.maintenance_zone(entry)
        return self.config.zone_for(read.panel_org(self.db, panel))

    def tick(self) -> None:
        """Record the TOML windows in force now (so lists show them); summarize the windows that ended."""
        now = self.clock()
        if self.config.maintenance:
            with write_transaction(self.db):
                self.record_occurrences([now])
        for window in cache.ended_unsummarized(self.db, now):
            if not self._summarize(window, now):
                return  # Slack is busy or failing: the next cycle goes on where this one stopped

    def _begun(self, window: QuietWindow) -> bool:
        """Whether a message of `window`'s summary is out already (to one of its channels)."""
        return cache.any_state(self.db, f"quiet-summary:{window.id}:")

    def _summarize(self, window: QuietWindow, now: int) -> bool:
        """Post what `window` held back and no other window holds any more, one message per channel; True
        once all are out."""
        zone = self.config.shown_zone_for(window.organization)
        # Handed on before its first message only: no alarm is told twice.
        if not self._begun(window):
            with write_transaction(self.db):
                cache.pass_on_held(self.db, window, now)
        for channel, groups in render.group_by_channel(held_back(self.db, window.id)).items():
            key = f"quiet-summary:{window.id}:{channel}"
            if cache.get_state(self.db, key):
                continue  # posted before a restart or a failure in another channel
            message = render.held_summary(window, groups, zone)
            if channel == CONSOLE_CHANNEL and not self.delivery.console:
                log.info("notify: %s", message.text)
            else:
                try:
                    self.delivery.post(channel, message)
                except (NotYet, DeliveryError) as err:
                    log.info("notify: the summary of window %s waits (%s)", window.id, err)
                    return False
            with write_transaction(self.db):
                cache.set_state(self.db, key, str(now))
        with write_transaction(self.db):
            cache.mark_summarized(self.db, window.id, now)
            cache.clear_states(self.db, f"quiet-summary:{window.id}:")
        return True
