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
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from slack_sdk.errors import SlackApiError, SlackClientError

from bot.context import AppContext
from bot.payloads import part
from bot.render import alarms as render
from bot.render import plans as plan_render
from bot.render import quiet as quiet_render
from bot.render.common import Rendered
from bot.render.incidents import IncidentView, incident_card
from core import cache, dispositions, lifecycle, read
from core.action_plans import ActionPlans
from core.alarms import Alarm
from core.cache import CardCounts, IncidentRow
from core.clock import now_ms
from core.incidents import kinds_of
from core.keyholders import context_of
from core.lifecycle import AlarmState, State
from core.priorities import Priorities

# The one Card type, and where cards are found, are this module's too (explicit re-exports).
from core.read import Card as Card
from core.read import CardKind as CardKind
from core.read import card_at as card_at
from core.read import card_of_alarm as card_of_alarm
from core.read import first_grouped, panel_name

if TYPE_CHECKING:
    from slack_sdk.models.blocks import Block

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
    """An alarm's own card, showing where the alarm stands (open, acknowledged, held, resolved), its priority,
    whether it is overdue (still open past its priority's SLA), and its keyholder line (core/keyholders)."""
    state = lifecycle.get(d.db, alarm.event_id)
    priority = d.priorities.of(alarm)
    still_open = state is None or state.state is State.OPEN
    late = read.late_by(d.db, alarm.event_id)  # a late alarm's SLA counts from its arrival (due_at)
    overdue = still_open and d.priorities.overdue(alarm, d.clock(), late)
    urgency = render.Urgency(priority, d.priorities.sla.minutes(priority), overdue, late is not None)
    zone = d.zone_for(alarm.org_id)
    checklist = plan_blocks(d, alarm, state, zone)
    closed = dispositions.resolved_as(d.db, alarm.event_id)
    window = read.marked_during(d.db, alarm.event_id)  # a life-safety alarm posted during maintenance
    return render.alarm_card(
        alarm,
        zone,
        d.data_as_of,
        d.dashboard_url,
        state=state,
        late_ms=late,
        urgency=urgency,
        keyholders=context_of(d.db, alarm, zone),
        checklist=checklist,
        resolved_as=closed.label if closed is not None else None,
        during=quiet_render.slack_words(window.during(zone), window) if window is not None else None,
    )


def plan_blocks(d: Drawing, alarm: Alarm, state: AlarmState | None, zone: ZoneInfo) -> list[Block]:
    """The alarm's action plan as its card shows it (core/action_plans.py); none when no plan is for it."""
    resolved = state is not None and state.state is State.RESOLVED
    found = read.plan_checklist(d.db, d.plans, alarm, d.clock(), zone, with_data=not resolved)
    return [] if found is None else plan_render.checklist_blocks(alarm.event_id, found, zone, resolved)


def draw_storm(
    d: Drawing,
    alarm: Alarm,
    counts: CardCounts,
    handled: dict[State, int] | None = None,
    closed: dict[str, int] | None = None,
) -> Rendered:
    """A storm card: `alarm` is the first grouped into it (its title and colour), `handled` how many of its
    alarms are in each state (None for a card not posted yet: all open), `closed` what its resolved alarms
    were resolved as."""
    zone = d.zone_for(alarm.org_id)
    return render.storm_card(alarm, counts, zone, d.data_as_of, d.dashboard_url, handled, closed)


def incident_view(db: sqlite_utils.Database, incident: IncidentRow) -> IncidentView:
    """What the card of `incident` shows, from the cache."""
    timeline = tuple(cache.incident_timeline(db, incident.id))
    name = panel_name(db, incident.resource_id)
    label = f"{name} ({incident.resource_id})" if name else f"panel {incident.resource_id}"
    members = [event_id for event_id, _ in cache.incident_alarms(db, incident.id)]
    handled = read.state_counts(db, members)
    held = lifecycle.states(db, members).values()
    holders = tuple(sorted({s.holder for s in held if s.holder and s.state is not State.RESOLVED}))
    kinds = kinds_of(e.kind for e in timeline)
    closed = resolved_as(db, members)
    return IncidentView(incident.resource_id, label, kinds, timeline, handled, holders, closed)


def resolved_as(db: sqlite_utils.Database, event_ids: list[str]) -> dict[str, int]:
    """How many of these alarms were resolved as each disposition (by label, most first)."""
    labels = Counter(d.label for d in read.dispositions_of(db, event_ids).values())
    return dict(labels.most_common())


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
        first = first_grouped(db, card)
        alarm = cache.get_alarm(db, first) if first is not None else None
        if alarm is None:
            return None
        # An edit keeps the card's handling line and buttons as the team left them.
        handled = read.card_states(db, card.channel, card.ts)
        closed = resolved_as(db, [e for e, _ in read.card_alarms(db, card.channel, card.ts)])
        return draw_storm(d, alarm, cache.card_counts(db, card.ts), handled, closed)
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
