"""Silences and maintenance windows in the notifier: which new alarms they hold back, the occurrences of the
TOML's weekly `[[notify.maintenance]]` entries, and the one message per channel when a window ends.

An alarm is held back by a window in force at the alarm's own time (not at discovery), covering its panel
or its organization; it is recorded in the outbox as 'silenced' and in `quiet_held` with the window (the one
ending last). A life-safety alarm (core/life_safety.py) is never held by a silence, and by a maintenance
window only one planned to hold them (`hold_life_safety`): otherwise it is posted, recorded in
`quiet_marked` with the window its card says it came during. A window that ends early (lifted) hands its
alarms that another window in force still holds on to that one: each alarm is summed up once, when no
window holds it any more. A window that ended and whose summary is out holds nothing more: an alarm
discovered that late is posted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from bot.notify.delivery import Delivery, DeliveryError, NotYet
from bot.render import quiet as render
from core import cache, read
from core.alarms import Alarm
from core.cache import write_transaction
from core.clock import MINUTE_MS
from core.config import MaintenanceEntry, NotifyConfig
from core.life_safety import LifeSafetyConfig
from core.read import MAINTENANCE, QuietWindow, held_back
from core.sqlite_lib import sqlite_utils
from core.timefmt import host_zone

CONSOLE_CHANNEL = "console"
TOLD = 20  # console lines a discovery gives alarms held back (and as many to those posted marked)

log = logging.getLogger(__name__)


def _ends_last(window: QuietWindow) -> tuple[int, int]:
    """Of the windows over one alarm, the one ending last is the one that kept it quiet."""
    return window.end, window.id


def _named(alarm: Alarm) -> str:
    """`Burglary alarm on Depot (100101)`, as a console line names an alarm."""
    what = alarm.violation_name or alarm.event_type or "alarm"
    panel = f"{alarm.panel_name} ({alarm.resource_id})" if alarm.panel_name else f"panel {alarm.resource_id}"
    return f"{what} on {panel}"


@dataclass(frozen=True)
class Quieted:
    """What the windows in force did to one discovery's alarms, by event id: held back (not posted), or
    posted marked as during maintenance (life-safety alarms), each with its window."""

    held: dict[str, QuietWindow]
    marked: dict[str, QuietWindow]


@dataclass
class QuietHours:
    db: sqlite_utils.Database
    config: NotifyConfig
    delivery: Delivery
    clock: Callable[[], int]
    life_safety: LifeSafetyConfig = field(default_factory=LifeSafetyConfig)

    def holding(self, found: list[Alarm]) -> Quieted:
        """The windows holding back (or, for a life-safety alarm, marking) the alarms of `found`. Runs in
        the discovery's transaction; records the TOML occurrences it meets."""
        if not found:
            return Quieted({}, {})
        times = [a.activity_time for a in found]
        self.record_occurrences(times)
        windows = cache.overlapping_windows(self.db, min(times), max(times))
        held: dict[str, QuietWindow] = {}
        marked: dict[str, QuietWindow] = {}
        for alarm in found:
            vital = self.life_safety.is_life_safety(alarm)
            at, panel, org = alarm.activity_time, alarm.resource_id, alarm.org_id
            if covering := [w for w in windows if w.holds(at, panel, org, vital)]:
                held[alarm.event_id] = max(covering, key=_ends_last)
            elif during := [w for w in windows if w.marks(at, panel, org, vital)]:
                marked[alarm.event_id] = max(during, key=_ends_last)
        return Quieted(held, marked)

    def record(self, quieted: Quieted) -> None:
        cache.record_held(self.db, ((e, w.id) for e, w in quieted.held.items()))
        cache.record_marked(self.db, ((e, w.id) for e, w in quieted.marked.items()))

    def tell(self, found: list[Alarm], quieted: Quieted) -> None:
        """A console line for each alarm held back, with its reason, and for each posted marked as during
        maintenance (at most TOLD of each a cycle; the Alarms page lists every one)."""
        for words, chosen in (("held", quieted.held), ("posted", quieted.marked)):
            alarms = [a for a in found if a.event_id in chosen]
            for alarm in alarms[:TOLD]:
                window = chosen[alarm.event_id]
                # The console's clock, the machine's: the line's time names its zone once already.
                zone = host_zone()
                why = window.held_reason(zone, False) if words == "held" else window.during(zone, False)
                log.info("notify: %s %s (%s): %s", words, _named(alarm), alarm.event_id, why)
            if len(alarms) > TOLD:
                more = len(alarms) - TOLD
                log.info("notify: and %d more %s (the dashboard's Alarms page lists them)", more, words)

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
                        hold_life_safety=entry.hold_life_safety,
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
                cache.pass_on_held(self.db, window, now, self.life_safety.is_life_safety)
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
