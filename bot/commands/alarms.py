"""`/sam alarms [panel] [since]`: recent alarms from the local cache (the read API)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from bot.context import AppContext
from bot.forms.fields import looks_like_id, parse_id
from bot.render.common import escape
from bot.render.lists import alarms_blocks
from bot.slash.panels_lookup import not_one_panel, resolve_panels
from bot.slash.registry import Invocation, Reply, UsageError, subcommand
from core.clock import DAY_MS, HOUR_MS, MINUTE_MS, WEEK_MS, now_ms
from core.read import AlarmFilter, count_alarms, freshness, held_reasons, recent_alarms
from core.timefmt import local

DEFAULT_SINCE_MS = DAY_MS
SHOWN = 200  # rows read for one answer; the message says how many more there are
_DURATION = re.compile(r"(\d{1,6})(m|min|h|d|w)", re.IGNORECASE)
_UNIT_MS = {"m": MINUTE_MS, "min": MINUTE_MS, "h": HOUR_MS, "d": DAY_MS, "w": WEEK_MS}


def parse_since(word: str, now: int) -> int | None:
    """`2h`, `30m`, `1d`, `2w` before now, or a UTC date `2026-11-20`; None if `word` is neither."""
    match = _DURATION.fullmatch(word)
    if match:
        return now - int(match.group(1)) * _UNIT_MS[match.group(2).lower()]
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", word):
        try:
            day = datetime.strptime(word, "%Y-%m-%d").replace(tzinfo=UTC)
        except ValueError:
            raise UsageError(f"`{word}` is not a date (YYYY-MM-DD)") from None
        return int(day.timestamp() * 1000)
    return None


@subcommand(
    "alarms",
    usage="/sam alarms [panel] [since]",
    summary="recent alarms, of all panels or one; since like 2h, 30m, 1d or 2026-11-20 (default 24h)",
    examples=("/sam alarms", "/sam alarms 100101 3d", "/sam alarms Warehouse 7d"),
)
def alarms(inv: Invocation, ctx: AppContext) -> Reply:
    now = now_ms()
    words = list(inv.args)
    since = parse_since(words[-1], now) if words else None
    if since is not None:
        words.pop()
    if since is None:
        since = now - DEFAULT_SINCE_MS
    if since > now:
        raise UsageError("`since` is in the future")
    zone_for = ctx.reader_zones(inv.user_id)  # the person's clock: their Slack zone, else the org's
    zone = zone_for(inv.org_id)
    resource_id, scope = None, f"since {escape(_since_words(since, now, zone))}"
    if words:
        wanted = " ".join(words)
        typed_id = parse_id(wanted, "panel") if looks_like_id(wanted) else None
        if typed_id is not None:
            wanted = str(typed_id)
        panels = resolve_panels(ctx, wanted, inv.org_id)
        if not panels and typed_id is not None:
            resource_id = typed_id  # not known by name: the id as typed
        elif len(panels) != 1:
            return not_one_panel(wanted, panels)
        else:
            resource_id = panels[0].resource_id
        name = panels[0].name if panels else None
        scope = f"on {escape(name or 'panel')} (`{resource_id}`) " + scope
    db = ctx.db()
    flt = AlarmFilter(org_id=inv.org_id, resource_id=resource_id, since=since)
    rows = recent_alarms(db, flt, limit=SHOWN + 1)
    total = len(rows) if len(rows) <= SHOWN else count_alarms(db, flt)
    fresh = next((f for f in freshness(db) if f.table == "activities"), None)
    held = held_reasons(db, [r.event_id for r in rows[:SHOWN]])  # held back: said so, with the reason
    message = alarms_blocks(rows[:SHOWN], scope, total, fresh, now, zone_for, inv.org_id, held)
    return Reply(text=message.text, blocks=message.blocks)


def _since_words(since: int, now: int, zone: ZoneInfo) -> str:
    minutes = (now - since) // MINUTE_MS
    if minutes < 120:
        return f"{minutes} min ago"
    if minutes < 48 * 60:
        return f"{minutes // 60} h ago"
    return local(since, zone)
