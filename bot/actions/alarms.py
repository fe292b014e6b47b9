"""The buttons of alarm cards: Acknowledge (edits the card in place, once), Panel status (an ephemeral
summary), Silence panel 30 min / 2 h / 24 h (technicians and admins; recorded in panel_silences, and the
notifier records but does not post the panel's alarms until then)."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.context import AppContext
from bot.notify.config import NotifyConfig, NotifyConfigError, parse_notify
from bot.payloads import PayloadError, SilenceValue, read_event_id, read_id, read_json, slack_user
from bot.render import alarms as render
from bot.render.common import escape
from bot.roles import Role
from core import read
from core.cache import audit, outbox
from core.cache.writes import write_transaction
from core.clock import now_ms
from core.sqlite_lib import sqlite_utils

log = logging.getLogger(__name__)


def acknowledge(db: sqlite_utils.Database, event_id: str, user: str, at: int) -> tuple[outbox.Ack, bool]:
    """Record the first acknowledgement; a second click returns the first one and False."""
    with write_transaction(db):
        return outbox.acknowledge(db, event_id, user, at)


def silence(db: sqlite_utils.Database, resource_id: int, minutes: int, user: str, at: int) -> int:
    until = at + minutes * 60_000
    with write_transaction(db):
        outbox.silence_panel(db, resource_id, until, user)
    return until


def acked_card(
    db: sqlite_utils.Database, event_id: str, ack: outbox.Ack, config: NotifyConfig, dashboard_url: str
) -> render.Rendered | None:
    """The alarm card as it looks once acknowledged, or None for an alarm not in the cache."""
    alarm = outbox.get_alarm(db, event_id)
    if alarm is None:
        return None
    return render.alarm_card(alarm, config.zone_for(alarm.org_id), _data_as_of(db), dashboard_url, ack=ack)


def panel_summary(db: sqlite_utils.Database, resource_id: int, config: NotifyConfig) -> str:
    detail = read.panel_detail(db, resource_id, activities=5)
    if detail is None:
        return f"Panel {resource_id} is not in the cache (yet)."
    zone = config.zone_for(detail.panel.org_id)
    sensors = sum(len(group) for group in detail.sensors_by_type.values())
    enabled = {True: "enabled", False: "disabled"}.get(detail.panel.enabled, "state unknown")  # type: ignore[arg-type]  # None (not reported) is a key .get may miss
    model = escape(detail.panel.model or "model unknown")
    lines = [
        f"*{escape(detail.panel.name or 'Panel')}* ({resource_id}) · {model} · {enabled}",
        f"{sensors} sensors, {len(detail.controllers)} controllers",
    ]
    until = outbox.silence_until(db, resource_id)
    if until and until > now_ms():
        lines.append(f":no_bell: silenced until {render.local_time(until, zone)}")
    if detail.last_activities:
        lines.append("*Last activity*")
        lines += [
            f"• {render.local_time(a.activity_time, zone)} {escape(a.violation_name or a.event_type or '')}"
            f" — {escape(a.description or '')}"
            for a in detail.last_activities
        ]
    as_of = render.local_time(detail.data_as_of, zone) if detail.data_as_of else "unknown"
    lines.append(f"_data as of {as_of}_")
    return "\n".join(lines)


def _data_as_of(db: sqlite_utils.Database) -> int | None:
    return next((r.last_success for r in read.freshness(db) if r.table == "activities"), None)


def _config(ctx: AppContext) -> tuple[NotifyConfig, str]:
    try:
        config = parse_notify(ctx.config.notify)
    except NotifyConfigError:
        config = NotifyConfig()  # the notifier reports config errors; buttons still work with defaults
    url = config.dashboard_url or ctx.config.dashboard.url or ctx.settings.dashboard_url
    return config, url


def on_ack(
    ctx: AppContext,
    ack: Ack,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    respond: Respond,
) -> None:
    ack()
    user = slack_user(body)
    if ctx.roles.role_of(user) == Role.NONE:
        respond(text=ctx.roles.refusal(), response_type="ephemeral", replace_original=False)
        return
    try:
        event_id = read_event_id(action.get("value"))
    except PayloadError as err:
        respond(text=str(err), response_type="ephemeral", replace_original=False)
        return
    db = ctx.db()
    if outbox.get_alarm(db, event_id) is None:
        text = "This alarm is not in samops' cache (a full sync may have removed it); nothing was recorded."
        respond(text=text, response_type="ephemeral", replace_original=False)
        return
    recorded, created = acknowledge(db, event_id, user, now_ms())
    if not created:
        config, _ = _config(ctx)
        when = render.local_time(recorded.at, config.zone_for(None))
        text = f"Already acknowledged by <@{recorded.slack_user}> at {when}."
        respond(text=text, response_type="ephemeral", replace_original=False)
        return
    config, url = _config(ctx)
    card = acked_card(db, event_id, recorded, config, url)
    channel = (body.get("channel") or {}).get("id")
    ts = (body.get("container") or {}).get("message_ts") or (body.get("message") or {}).get("ts")
    if card is None or not channel or not ts:
        respond(text="Acknowledged.", response_type="ephemeral", replace_original=False)
        return
    try:
        client.chat_update(channel=channel, ts=ts, text=card.text, attachments=card.attachments, blocks=[])
    except SlackApiError as err:
        log.warning("could not update the alarm card: %s", err.response.get("error"))


def on_panel_status(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    if ctx.roles.role_of(slack_user(body)) == Role.NONE:
        respond(text=ctx.roles.refusal(), response_type="ephemeral", replace_original=False)
        return
    try:
        resource_id = read_id(action.get("value"), "This card")
    except PayloadError:
        respond(text="This card names no panel.", response_type="ephemeral", replace_original=False)
        return
    config, _ = _config(ctx)
    text = panel_summary(ctx.db(), resource_id, config)
    respond(text=text, response_type="ephemeral", replace_original=False)


def on_silence(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    try:
        value = read_json(SilenceValue, action.get("value"), "This button")
    except PayloadError:
        respond(text="This button is not valid.", response_type="ephemeral", replace_original=False)
        return
    resource_id, minutes = value.r, value.m
    user = slack_user(body)
    role = ctx.roles.role_of(user)
    if role < Role.TECHNICIAN:
        # Silencing hides alarms from everyone: the same role as the other writes.
        text = ctx.roles.refusal() if role == Role.NONE else "Silencing a panel needs the technician role."
        respond(text=text, response_type="ephemeral", replace_original=False)
        return
    db = ctx.db()
    if read.panel_detail(db, resource_id, activities=0) is None:
        text = f"Panel {resource_id} is not in samops' cache; nothing was silenced."
        respond(text=text, response_type="ephemeral", replace_original=False)
        return
    config, _ = _config(ctx)
    at = now_ms()
    shown_until = render.local_time(at + minutes * 60_000, config.zone_for(None))
    # Nothing between the silence and its audit row can raise: the words are ready before the write.
    until = silence(db, resource_id, minutes, user, at)
    audit.record(db, slack_user=user, command=f"alarm silence {resource_id} {minutes}m", outcome="ok",
                 summary=f"silenced panel {resource_id} until {shown_until}",
                 reference=f"silence-{resource_id}-{until}")  # fmt: skip
    respond(
        text=f":no_bell: Panel {resource_id} silenced by <@{user}> until "
        f"{shown_until}: its alarms are recorded but not posted.",
        response_type="in_channel",
        replace_original=False,
    )


def on_dashboard(ack: Ack) -> None:
    ack()  # a link button: Slack opens the URL, the app only acknowledges
