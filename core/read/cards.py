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

from core.read.rows import first, tuples
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


CONSOLE_REF_PREFIX = "c"  # a console card's reference: "c" and its outbox row's number, e.g. "c42"


@dataclass(frozen=True)
class ConsoleCard:
    """A card the notifier printed on the console (no Slack token): its outbox row, state 'console', which
    names its alarm and the channel it would have gone to. Its reference (`c<rowid>`) stands for the message
    ts Slack would have given: `samops slash --click <ref> <button>` clicks it as Slack would."""

    ref: str
    channel: str
    event_id: str


def console_ref(rowid: int) -> str:
    return f"{CONSOLE_REF_PREFIX}{rowid}"


def console_card(db: sqlite_utils.Database, ref: str) -> ConsoleCard | None:
    """The console card `ref` names (`c42`), None when there is none."""
    number = ref.strip().lower().removeprefix(CONSOLE_REF_PREFIX)
    if not number.isdigit() or len(number) > 18:
        return None
    row = first(
        db,
        "SELECT rowid, channel, event_id FROM notify_outbox WHERE rowid = ? AND state = 'console'",
        [int(number)],
    )
    return ConsoleCard(console_ref(int(row[0])), str(row[1]), str(row[2])) if row is not None else None


def console_card_at(db: sqlite_utils.Database, channel: str, ts: str) -> ConsoleCard | None:
    """The console card a click names by (channel, ts), the ts being its reference."""
    found = console_card(db, ts)
    return found if found is not None and found.channel == channel else None


def console_cards(db: sqlite_utils.Database, limit: int = 50) -> list[ConsoleCard]:
    """The console cards of alarms not resolved yet, oldest first (`samops slash --cards`)."""
    rows = tuples(
        db,
        "SELECT o.rowid, o.channel, o.event_id FROM notify_outbox o"
        " LEFT JOIN alarm_state l ON l.event_id = o.event_id"
        " WHERE o.state = 'console' AND (l.state IS NULL OR l.state != 'resolved')"
        " ORDER BY o.rowid LIMIT ?",
        [limit],
    )
    return [ConsoleCard(console_ref(int(r[0])), str(r[1]), str(r[2])) for r in rows]


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
