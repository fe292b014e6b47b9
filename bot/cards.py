"""The cards samops posts about alarms: one drawing per kind (`draw_alarm`, `draw_storm`, `draw_incident`)
and one `refresh` that re-renders the card samops posted, found from its own records (`core/read/cards.py`:
the one `Card` type). The notifier posts and edits through them (paced: `bot/notify/delivery.py`), and so do
the lifecycle buttons wherever they are clicked (on the card or on the App Home) and the Resolve form
(`bot/actions/lifecycle.py`).

A click or a form names the card it came from (`channel`, `container`, `message`, the form's metadata): that
is a claim, read here without trusting its shape (`claimed_card`) and checked against the record
(`disagreement`); the record alone decides which card a change edits.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from slack_sdk.errors import SlackApiError, SlackClientError

from bot.context import AppContext
from bot.payloads import part
from bot.render import alarms as render
from bot.render.common import Rendered
from bot.render.incidents import incident_card
from core import cache, read
from core.action_plans import ActionPlans
from core.alarms import Alarm
from core.cache import CardCounts, IncidentRow
from core.clock import now_ms
from core.priorities import Priorities

# The one Card type, and where cards are found, are this module's too (explicit re-exports).
from core.read import Card as Card
from core.read import CardKind as CardKind
from core.read import card_at as card_at
from core.read import card_of_alarm as card_of_alarm
from core.views import Looks, StormView, alarm_view, incident_view, storm_view

if TYPE_CHECKING:
    from core.sqlite_lib import sqlite_utils


log = logging.getLogger(__name__)

MAX_ID_TEXT = 64  # a Slack channel id or message ts is far shorter; anything longer is no card of ours

# chat.update's arguments: (channel, ts, the message). The notifier's goes through its pacing.
Update = Callable[[str, str, Rendered], None]


@dataclass(frozen=True)
class Drawing:
    """What every card is drawn with: the cache, the organizations' zones, how fresh the data is, the
    dashboard's address (for its buttons), the priorities and their SLA, and the clock (an open alarm past its
    SLA is drawn overdue)."""

    db: sqlite_utils.Database
    zone_for: Callable[[int | None], ZoneInfo]
    data_as_of: int | None
    dashboard_url: str
    priorities: Priorities = field(default_factory=Priorities)
    clock: Callable[[], int] = now_ms
    plans: ActionPlans = field(default_factory=lambda: ActionPlans(()))  # the card's checklist, if any
    # The organizations' own zones, where keyholders are judged (core/views.Looks.judged_in), when
    # `zone_for` is another clock (the console's, a person's); None: `zone_for` is theirs.
    org_zone_for: Callable[[int | None], ZoneInfo] | None = None


def data_as_of(db: sqlite_utils.Database) -> int | None:
    """When the alarms in the cache were last synced (a card shows it)."""
    return next((r.last_success for r in read.freshness(db) if r.table == "activities"), None)


def drawing(ctx: AppContext) -> Drawing:
    """The bot's drawing (the notifier makes its own, with its source's freshness)."""
    db = ctx.db()
    config = ctx.config
    return Drawing(
        db,
        config.notify.zone_for,
        data_as_of(db),
        ctx.dashboard_url,
        config.priority_book(),
        plans=config.plan_book(),
    )


# --- one drawing per kind ----------------------------------------------------------------------------------


def draw_alarm(d: Drawing, alarm: Alarm) -> Rendered:
    """An alarm's own card, from its view (core/views.py): where the alarm stands (open, acknowledged, held,
    resolved), its priority, whether it is overdue, its keyholder line and its checklist."""
    return render.alarm_card(alarm_view(d.db, alarm, looks(d, alarm.org_id)))


def looks(d: Drawing, org_id: int | None) -> Looks:
    """What a view of an alarm of `org_id` is drawn for, now."""
    judged_in = (d.org_zone_for or d.zone_for)(org_id)
    return Looks(
        d.zone_for(org_id), d.data_as_of, d.dashboard_url, d.priorities, d.plans, d.clock(), judged_in
    )


def draw_storm(d: Drawing, alarm: Alarm, counts: CardCounts) -> Rendered:
    """A storm card not posted yet: `alarm` is the first grouped into it, all its alarms open."""
    return render.storm_card(
        StormView(alarm, counts, d.zone_for(alarm.org_id), d.data_as_of, d.dashboard_url)
    )


def draw_incident(d: Drawing, incident: IncidentRow) -> Rendered:
    """An incident card: the timeline of its evidence and how its alarms are handled."""
    view = incident_view(d.db, incident)
    return incident_card(view, d.zone_for(incident.org_id), d.data_as_of, d.dashboard_url)


def draw(d: Drawing, card: Card) -> Rendered | None:
    """The card as it should look now, from the cache; None when what it shows is no longer cached."""
    db = d.db
    if card.kind is CardKind.INCIDENT:
        incident = cache.get_incident(db, card.incident_id) if card.incident_id is not None else None
        return draw_incident(d, incident) if incident is not None else None
    if card.kind is CardKind.STORM:
        storm = storm_view(db, card, lambda org: looks(d, org))
        return render.storm_card(storm) if storm is not None else None
    alarm = cache.get_alarm(db, card.event_id) if card.event_id is not None else None
    return draw_alarm(d, alarm) if alarm is not None else None


# --- one refresh -------------------------------------------------------------------------------------------


def refresh(d: Drawing, card: Card, update: Update) -> bool:
    """Re-render `card` in place through `update`; False when there is nothing to draw it from."""
    rendered = draw(d, card)
    if rendered is None:
        return False
    update(card.channel, card.ts, rendered)
    return True


def refresh_now(ctx: AppContext, card: Card) -> bool:
    """`refresh` for a person's act (a click, a form): at once, since they wait to see it; False when Slack
    would not take the edit (logged)."""

    def chat_update(channel: str, ts: str, message: Rendered) -> None:
        ctx.web_client.chat_update(
            channel=channel, ts=ts, text=message.text, attachments=message.attachments, blocks=message.blocks
        )

    try:
        return refresh(drawing(ctx), card, chat_update)
    except (SlackApiError, SlackClientError, OSError) as err:
        log.warning("could not update the card %s in %s: %s", card.ts, card.channel, err)
        return False


# --- what a request claims ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """Where a click says it came from: a message (channel and ts), the App Home, neither (a click with no
    container), or a request whose pieces have the wrong shape (`malformed`)."""

    channel: str | None = None
    ts: str | None = None
    home: bool = False
    malformed: bool = False
    # A click on a page (a direct message samops sent, bot/notify/paging.py): the alarm it is about, from
    # samops' record of the page; such a click claims no card (the record decides which card is edited).
    page_of: str | None = None

    @property
    def on_message(self) -> bool:
        return self.channel is not None and self.ts is not None


def _mapping(body: dict[str, Any], key: str) -> tuple[dict[str, Any], bool]:
    """`body[key]` as an object ({} when absent); False when it is there with another shape."""
    return part(body, key), body.get(key) is None or isinstance(body.get(key), dict)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= MAX_ID_TEXT and value.isprintable() else None


def claimed_card(body: dict[str, Any]) -> Claim:
    """Where a click says it came from, read without trusting the request's shape."""
    channel, ok_channel = _mapping(body, "channel")
    container, ok_container = _mapping(body, "container")
    message, ok_message = _mapping(body, "message")
    view, ok_view = _mapping(body, "view")
    if not (ok_channel and ok_container and ok_message and ok_view):
        return Claim(malformed=True)
    if container.get("type") == "view" or view:
        return Claim(home=view.get("type") == "home", malformed=view.get("type") != "home")
    named = [v for v in (channel.get("id"), container.get("channel_id")) if v is not None]
    stamps = [v for v in (container.get("message_ts"), message.get("ts")) if v is not None]
    if not named and not stamps:
        return Claim()
    texts = {_text(v) for v in named}, {_text(v) for v in stamps}
    if any(len(t) != 1 or None in t for t in texts):
        return Claim(malformed=True)  # missing, of the wrong type, or two pieces naming different cards
    return Claim(texts[0].pop(), texts[1].pop())


def claimed(db: sqlite_utils.Database, body: dict[str, Any]) -> Claim:
    """`claimed_card`, except that a click on a page samops sent (its record in `pages_sent`), or on a card it
    printed on the console, is a click on that message's alarm, not a claim of a card."""
    claim = claimed_card(body)
    if claim.channel is not None and claim.ts is not None:
        paged = cache.page_at(db, claim.channel, claim.ts)
        if paged is not None:
            return Claim(page_of=paged)
        # A card printed on the console (no Slack token; `samops slash --click`) names its alarm as a page
        # does: the click acts on that alarm alone, and is answered, since no Slack card shows the change.
        printed = read.console_card_at(db, claim.channel, claim.ts)
        if printed is not None:
            return Claim(page_of=printed.event_id)
    return claim


def page_disagreement(claim: Claim, event_id: str) -> str | None:
    """Why a click on a page names another alarm than the one samops paged there; None when it does not (or
    the click is on no page)."""
    if claim.page_of is not None and claim.page_of != event_id:
        return f"the page at that message is about alarm {claim.page_of}"
    return None


def disagreement(claim: Claim, card: Card | None) -> str | None:
    """Why a click's claim contradicts samops' record of the card (`card`, None: the alarm was never posted
    to Slack); None when it does not. A click from the App Home, or with no container, claims no card."""
    if claim.malformed:
        return "the click's container is not one Slack sends"
    if not claim.on_message:
        return None
    if card is None:
        return f"no card of samops is at {claim.ts} in {claim.channel}"
    if (claim.channel, claim.ts) != (card.channel, card.ts):
        return f"the alarm's card is {card.ts} in {card.channel}, not {claim.ts} in {claim.channel}"
    return None
