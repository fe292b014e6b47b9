"""Site incidents in the notifier: evidence recorded as it is discovered, incident cards posted and edited.

In discovery's transaction every new piece of evidence (an alarm to be posted, an error activity, a camera
that went down) is joined into its panel's incident by core/incidents.py's rule (core/cache/incidents.py
keeps them). An alarm posted alone makes its card the incident's "first card". When a second piece joins,
that card is edited in place into the incident card; an incident that has no card yet when one of its alarms
is due gets one posted. Later alarms of the incident are recorded in the outbox as 'grouped' under the
card's ts (as storm cards do), so they are never posted on their own, and never counted into a storm card;
the card is tracked among the storm cards (notify_cards), whose machinery lists its alarms in the card's
thread: the grouped ones and the alarm the card was first posted for, whose event id its own card showed
until it became the incident's. The timeline names each activity's event id too; so every alarm's id is in
Slack however long the timeline grows.

Edits are restart-safe: an incident counts the changes of its evidence (`version`) and records the version
its card shows (`edited`); what a crash left unedited is edited on the next cycle. As for every post, a
crash between posting an incident card and recording its ts repeats that one post.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from bot import cards
from bot.notify.delivery import Delivery
from core import cache, read
from core.alarms import Alarm
from core.cache import OutboxEntry, write_transaction
from core.clock import WEEK_MS, now_ms
from core.config import NotifyConfig
from core.incidents import Evidence, camera_on_site, evidence_kind
from core.read import Card, CardKind
from core.sqlite_lib import sqlite_utils


def alarm_evidence(alarm: Alarm) -> Evidence | None:
    if alarm.resource_id is None:
        return None
    kind = evidence_kind(alarm.event_type, alarm.violation_type, alarm.violation_name, alarm.description)
    text = alarm.description or alarm.violation_name or alarm.event_type or "alarm"
    time, panel = alarm.activity_time, alarm.resource_id
    return Evidence(kind or "alarm", time, panel, alarm.org_id, alarm.event_id, text)


def error_evidence(db: sqlite_utils.Database, since: int) -> list[Evidence]:
    """Error activities that are no alarm (eventType `error` without a violationType) from `since`, not yet
    recorded: evidence, though never posted on their own."""
    found = []
    for row in read.unrecorded_errors(db, since):
        event_id, rid, org, at, description, event_type, name, violation_type = row
        kind = evidence_kind(event_type, violation_type, name, description)
        if kind is not None:
            found.append(Evidence(kind, int(at), int(rid), org, event_id, description or name or "error"))
    return found


def camera_evidence(db: sqlite_utils.Database, since: int) -> list[Evidence]:
    """Camera changes first seen from `since`, once for each panel whose site the camera belongs to."""
    found = []
    for change in cache.camera_changes_since(db, since):
        for rid, name, tree_path in read.site_panels(db, change.org_id):
            if camera_on_site(change.name, change.tree_path, change.org_id, name, tree_path, change.org_id):
                found.append(change.evidence(int(rid)))
    return found


@dataclass
class IncidentCards:
    db: sqlite_utils.Database
    config: NotifyConfig
    delivery: Delivery
    drawing: Callable[[], cards.Drawing]  # what cards are drawn with (bot/cards.py)
    clock: Callable[[], int]

    @property
    def enabled(self) -> bool:
        return self.config.incidents.enabled

    def discover(self, found: Iterable[Alarm], held: Mapping[str, int], since: int) -> set[int]:
        """Record the new evidence (in discovery's transaction): alarms to be posted, error activities and
        camera changes since `since`. Alarms held back by a silence are no evidence: nothing of them is
        posted."""
        if not self.enabled:
            return set()
        posted = [a for a in found if a.event_id not in held]
        evidence = [e for a in posted if (e := alarm_evidence(a)) is not None]
        evidence += error_evidence(self.db, since)
        evidence += camera_evidence(self.db, since - self.config.incidents.window_ms)
        alarms = {a.event_id for a in posted}
        return cache.record_evidence(self.db, evidence, self.config.incidents.window_ms, self.clock(), alarms)

    def take(self, channel: str, entries: list[OutboxEntry]) -> list[OutboxEntry]:
        """Group the alarms of incidents into their incident card (posting it when it has none and the
        channel has a slot); returns the entries that are no incident's, for the single and storm path."""
        if not self.enabled:
            return entries
        rest = []
        for entry in entries:
            incident = cache.incident_of_event(self.db, entry.alarm.event_id)
            if incident is None or not incident.is_incident:
                rest.append(entry)
                continue
            if incident.card_ts is None:
                if self.delivery.wait(channel) > 0:
                    continue  # stays pending; the card is posted at the next slot
                ts = self.delivery.post(channel, cards.draw_incident(self.drawing(), incident))
                assert ts is not None
                with write_transaction(self.db):
                    cache.set_incident_card(self.db, incident.id, channel, ts)
                    cache.mark_incident_edited(self.db, incident.id, incident.version)
                    cache.track_card(self.db, ts, channel, incident.resource_id, now_ms())
                incident = cache.get_incident(self.db, incident.id)
                assert incident is not None
            if incident.channel != channel or incident.card_ts is None:
                rest.append(entry)  # routed elsewhere than the incident's card: posted as usual
                continue
            with write_transaction(self.db):
                cache.mark_delivered(self.db, [entry.alarm.event_id], cache.GROUPED, incident.card_ts)
                # As a storm card's, the card's thread lists its grouped alarms (bot/notify/storm.py).
                cache.track_card(self.db, incident.card_ts, channel, incident.resource_id, now_ms())
        return rest

    def posted(self, event_id: str, channel: str, ts: str | None) -> None:
        """An alarm was posted on its own (in the transaction recording it): its card is its incident's
        first."""
        if not self.enabled or ts is None:
            return
        incident = cache.incident_of_event(self.db, event_id)
        if incident is not None:
            cache.set_incident_card(self.db, incident.id, channel, ts)

    def channels(self) -> list[str]:
        return cache.incident_channels_to_edit(self.db, self.clock() - WEEK_MS) if self.enabled else []

    def update(self, channel: str) -> None:
        """Edit in place every incident card of `channel` whose evidence changed, as pacing allows."""
        for incident in cache.incidents_to_edit(self.db, channel, self.clock() - WEEK_MS):
            if self.delivery.wait(channel, "update") > 0:
                return
            assert incident.card_ts is not None
            card = Card(
                channel,
                incident.card_ts,
                CardKind.INCIDENT,
                resource_id=incident.resource_id,
                incident_id=incident.id,
            )
            cards.refresh(self.drawing(), card, self.delivery.update)
            with write_transaction(self.db):
                cache.mark_incident_edited(self.db, incident.id, incident.version)
                # Its thread names every alarm of the card, the one it was first posted for included.
                cache.track_card(self.db, incident.card_ts, channel, incident.resource_id, now_ms())
