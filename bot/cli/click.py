"""`samops slash --click <card> <button>` and `samops slash --cards`: press the buttons of the cards the
notifier printed on the console (no Slack token) as Slack would.

A console card is named by its reference (`c42`: core.read.console_ref, printed under the card with its
buttons numbered). The card is drawn as the notifier draws it now (bot/cards.py), so the numbers are those
of the buttons it shows at this moment; the click is the block_actions payload Slack sends for that button
on that message (its action_id, block_id and value; the card's channel and reference as its message ts; the
user of `--as`; a response_url served here), signed and POSTed to the running bot: its real handlers, roles
and audit decide. A button that opens a form (Resolve) answers with the form; `--submit field=value …`
fills and submits it, as for a command's form.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from typing import Any
from urllib.parse import urlencode

from bot.cli.slash import ResponseCatcher, collect_with_ack, post_signed, show, submit_form
from bot.render.common import Rendered, terminal_text
from core import cache, read
from core.settings import Settings


class ClickError(ValueError):
    """A card or button the console does not show; the message says what it does show."""


def _drawn(settings: Settings, ref: str) -> tuple[read.ConsoleCard, Rendered]:
    """The console card `ref` names and how it looks now."""
    from bot import cards
    from bot.context import build_context

    ctx = build_context(settings)
    db = ctx.db()
    card = read.console_card(db, ref)
    if card is None:
        raise ClickError(f"no card {ref!r} was printed on the console; `samops slash --cards` lists them")
    alarm = cache.get_alarm(db, card.event_id)
    if alarm is None:
        raise ClickError(f"card {card.ref}'s alarm {card.event_id} is no longer in samops' cache")
    return card, cards.draw_alarm(cards.drawing(ctx), alarm)


def button_of(message: Rendered, wanted: str) -> dict[str, Any]:
    """The button numbered `wanted` (1 = the first), or labelled so (case aside, or a unique start of it)."""
    buttons = message.buttons()
    labels = [str(b["text"]["text"]) for b in buttons]
    offered = "; ".join(f"{n} {label}" for n, label in enumerate(labels, 1)) or "none"
    if wanted.isdigit():
        if 1 <= int(wanted) <= len(buttons):
            return buttons[int(wanted) - 1]
        raise ClickError(f"the card has no button {wanted}; its buttons: {offered}")
    key = wanted.strip().casefold()
    exact = [b for b, label in zip(buttons, labels, strict=True) if label.casefold() == key]
    starts = [b for b, label in zip(buttons, labels, strict=True) if label.casefold().startswith(key)]
    found = exact or (starts if len(starts) == 1 else [])
    if not found:
        raise ClickError(f"the card has no button {wanted!r}; its buttons: {offered}")
    return found[0]


def _block_of(message: Rendered, button: dict[str, Any]) -> str | None:
    for block in message.blocks:
        if block.get("accessory") is button or button in (block.get("elements") or []):
            return block.get("block_id")
    return None


def click_payload(
    card: read.ConsoleCard, message: Rendered, button: dict[str, Any], user: str, team: str, response_url: str
) -> dict[str, Any]:
    """The block_actions payload Slack sends when `user` presses `button` on the card's message."""
    now = f"{time.time():.6f}"
    action = {
        "type": "button",
        "action_id": button.get("action_id"),
        "block_id": _block_of(message, button) or secrets.token_hex(3),
        "text": button.get("text"),
        "value": button.get("value"),
        "action_ts": now,
    }
    return {
        "type": "block_actions",
        "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": team},
        "api_app_id": "A_SAMOPS",
        "token": "samops-local",
        "container": {
            "type": "message",
            "message_ts": card.ref,
            "channel_id": card.channel,
            "is_ephemeral": False,
        },
        "trigger_id": f"{int(time.time())}.{secrets.token_hex(6)}",
        "team": {"id": team, "domain": "samops"},
        "is_enterprise_install": False,
        "channel": {"id": card.channel, "name": card.channel},
        "message": {"type": "message", "ts": card.ref, "text": message.text, "blocks": message.blocks},
        "state": {"values": {}},
        "response_url": response_url,
        "actions": [action],
    }


def list_cards(settings: Settings) -> int:
    """`--cards`: the console cards of alarms not resolved yet, each with its numbered buttons."""
    from bot import cards
    from bot.context import build_context

    ctx = build_context(settings)
    db = ctx.db()
    drawing = cards.drawing(ctx)
    shown = 0
    for card in read.console_cards(db):
        alarm = cache.get_alarm(db, card.event_id)
        if alarm is None:
            continue
        message = cards.draw_alarm(drawing, alarm)
        labels = "  ".join(f"{n} [{b['text']['text']}]" for n, b in enumerate(message.buttons(), 1))
        print(f"{card.ref}  #{card.channel}  {terminal_text(message.text)}\n    {labels}")
        shown += 1
    if not shown:
        print("No open card was printed on the console (cards print there when no SLACK_BOT_TOKEN is set).")
    return 0


def run(args: argparse.Namespace, settings: Settings, secret: str) -> int:
    """`--click REF BUTTON`: press it, print the bot's answers and the card as it is now."""
    ref, wanted = args.click
    try:
        card, message = _drawn(settings, ref)
        button = button_of(message, wanted)
    except ClickError as err:
        print(f"samops slash: --click: {err}", file=sys.stderr)
        return 2
    with ResponseCatcher() as catcher:
        payload = click_payload(card, message, button, args.user, args.team, catcher.url)
        ack = post_signed(args, urlencode({"payload": json.dumps(payload)}).encode(), secret)
        if ack is None:
            return 1
        answers = collect_with_ack(ack, catcher, args.timeout)
        if answers:
            show(answers, args.json)
        if args.submit is not None:
            if not answers:
                print(f"samops slash: no answer within {args.timeout:g} s", file=sys.stderr)
                return 1
            code = submit_form(args, answers, secret, catcher)
            if code:
                return code
    if not args.json:
        _, now = _drawn(settings, card.ref)
        print(f"\n--- card {card.ref} now ---\n{now.console(card.ref)}")
    return 0 if answers or args.submit is not None else 1
