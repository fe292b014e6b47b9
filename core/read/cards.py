"""Where samops posted each card, read from its own records: the one `Card` type.

An alarm posted alone has its own card (its `notify_outbox` row, state 'posted', holds the channel and ts);
alarms grouped in a storm share a storm card (`notify_cards`); an incident's card (`incidents.card_ts`) is
the first card of its panel's incident, edited in place, and every later alarm of the incident is grouped
under it. What a card is therefore follows from (channel, ts) alone, in that order of precedence: an
incident's card, a storm card, an alarm's own card. A click or a form names a card only as a claim; these
records decide which card an alarm's change edits (bot/cards.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from core.read.rows import first
from core.sqlite_lib import sqlite_utils


class CardKind(StrEnum):
    ALARM = "alarm"
    STORM = "storm"
    INCIDENT = "incident"


@dataclass(frozen=True)
class Card:
    """A message samops posted about alarms, and what it shows."""

    channel: str
    ts: str
    kind: CardKind
    event_id: str | None = None  # an alarm card's alarm
    resource_id: int | None = None  # the panel of a storm or incident card (the value of its buttons)
    incident_id: int | None = None  # an incident card's incident


def card_at(db: sqlite_utils.Database, channel: str, ts: str) -> Card | None:
    """The card samops posted at (channel, ts), or None when samops posted no card there."""
    row = first(
        db,
        "SELECT id, resource_id FROM incidents WHERE card_ts = ? AND channel = ? AND kinds >= 2 LIMIT 1",
        [ts, channel],
    )
    if row is not None:
        return Card(channel, ts, CardKind.INCIDENT, resource_id=int(row[1]), incident_id=int(row[0]))
    row = first(db, "SELECT resource_id FROM notify_cards WHERE ts = ? AND channel = ?", [ts, channel])
    if row is not None:
        return Card(channel, ts, CardKind.STORM, resource_id=None if row[0] is None else int(row[0]))
    row = first(
        db,
        "SELECT event_id FROM notify_outbox WHERE ts = ? AND channel = ? AND state = 'posted' LIMIT 1",
        [ts, channel],
    )
    return Card(channel, ts, CardKind.ALARM, event_id=str(row[0])) if row is not None else None


def card_of_alarm(db: sqlite_utils.Database, event_id: str) -> Card | None:
    """The card that shows the alarm now (its own, its storm's or its incident's), None when it was never
    posted to Slack (still pending, held by a silence, or printed on the console)."""
    row = first(
        db,
        "SELECT channel, ts FROM notify_outbox WHERE event_id = ? AND ts IS NOT NULL"
        " AND state IN ('posted', 'grouped')",
        [event_id],
    )
    return card_at(db, str(row[0]), str(row[1])) if row is not None else None


def first_grouped(db: sqlite_utils.Database, card: Card) -> str | None:
    """The event id of the first alarm grouped into a storm card (the alarm its title and colour are of)."""
    row = first(
        db,
        "SELECT event_id FROM notify_outbox WHERE channel = ? AND ts = ? AND state = 'grouped'"
        " ORDER BY rowid LIMIT 1",
        [card.channel, card.ts],
    )
    return str(row[0]) if row is not None else None


def panel_name(db: sqlite_utils.Database, resource_id: int) -> str | None:
    """The panel's name as the cache holds it (an incident card's title)."""
    row = first(db, "SELECT name FROM panels WHERE resource_id = ?", [resource_id])
    return str(row[0]) if row is not None and row[0] else None
