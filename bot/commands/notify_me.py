"""`/sam notify-me`: a person's own paging preferences (docs/paging.md) — on or off, the priorities of new
alarms to be paged for, and quiet hours in their own Slack time zone (users.info `tz`; else the
organization's), when only P1 pages. Stored in records.db (core/cache/paging.py); the notifier reads them
(bot/notify/paging.py)."""

from __future__ import annotations

from dataclasses import replace
from datetime import time, tzinfo

from bot.context import AppContext
from bot.render.common import escape
from bot.roles import Role
from bot.slash.parse import as_typed
from bot.slash.registry import Invocation, Reply, UsageError, subcommand
from core import cache, timefmt
from core.clock import now_ms
from core.paging import PagePrefs
from core.priorities import Priority, parse_priority
from core.windows import parse_clock

USAGE = "/sam notify-me [on | off | priorities P1 P2 … | priorities none | quiet 22:00-07:00 | quiet off]"


@subcommand(
    "notify-me",
    usage=USAGE,
    summary="your direct-message paging: on/off, the priorities you are paged for, quiet hours",
    role=Role.VIEWER,
    write=True,
    examples=(
        "/sam notify-me",
        "/sam notify-me priorities P1 P2",
        "/sam notify-me quiet 22:00-07:00",
        "/sam notify-me off",
    ),
)
def notify_me(inv: Invocation, ctx: AppContext) -> Reply:
    db = ctx.db()
    current = cache.prefs_of(db, inv.user_id) or PagePrefs(inv.user_id)
    org = ctx.config.notify.zone_for(inv.org_id)  # where Slack gives no zone of the person's own
    if not inv.args:
        return Reply(text=describe(current, org))
    wanted = _changed(current, [w.lower() for w in inv.args])
    # the zone PersonZones knows (pages and `/sam` answers read the same), else the one recorded before
    wanted = replace(wanted, zone=ctx.zones.slack_zone(inv.user_id) or current.zone)
    now = now_ms()
    summary = f"paging preferences set: {plain(wanted, org)}"
    with cache.write_transaction(db):  # the preferences and their audit row, together
        cache.set_page_prefs(db, wanted, now)
        cache.record_audit(
            db,
            slack_user=inv.user_id,
            command=as_typed(inv.text),
            outcome="ok",
            summary=summary,
            reference=inv.reference,
            at=now,
        )
    return Reply(text="Saved. " + describe(wanted, org), audit_summary=summary)


def _changed(current: PagePrefs, words: list[str]) -> PagePrefs:
    field, values = words[0], words[1:]
    if field in {"on", "off"}:
        if values:
            raise UsageError(f"`{field}` takes no words after it")
        return replace(current, enabled=field == "on")
    if field == "priorities":
        return replace(current, priorities=_priorities(values))
    if field == "quiet":
        quiet_from, quiet_to = _quiet(values)
        return replace(current, quiet_from=quiet_from, quiet_to=quiet_to)
    raise UsageError(f"`notify-me` sets on, off, priorities or quiet, not {field!r}")


def _priorities(values: list[str]) -> tuple[Priority, ...]:
    words = [w for v in values for w in v.split(",") if w]
    if not words:
        raise UsageError("priorities: give P1 to P4 (like `priorities P1 P2`), or `priorities none`")
    if words == ["none"]:
        return ()
    try:
        return tuple(sorted({parse_priority(w) for w in words}))
    except ValueError as err:
        raise UsageError(f"priorities: {err}") from None


def _quiet(values: list[str]) -> tuple[time | None, time | None]:
    if values == ["off"]:
        return None, None
    # "22:00-07:00" or "22:00 07:00"; a span and more words is not hours (blame the whole, not the span)
    spans = [v.split("-") for v in values]
    words = spans[0] if len(values) == 1 else values if all(len(s) == 1 for s in spans) else []
    if len(words) != 2:
        raise UsageError(
            "quiet: give the hours as `quiet 22:00-07:00` (from-to, in your time zone), or `quiet off`"
        )
    try:
        start, end = parse_clock(words[0]), parse_clock(words[1])
    except ValueError as err:
        raise UsageError(f"quiet: {err}") from None
    if start == end:
        raise UsageError("quiet: from and to are the same time; give a span like 22:00-07:00")
    return start, end


def zone_words(prefs: PagePrefs, org: tzinfo) -> str:
    """The zone quiet hours are read in (`core.timefmt.person_zone`), and whose when not the person's."""
    if timefmt.zone(prefs.zone) is not None:
        return str(prefs.zone)
    return f"{timefmt.zone_name(org)}, the organization's (Slack gave no time zone of yours)"


def plain(prefs: PagePrefs, org: tzinfo) -> str:
    priorities = ", ".join(p.label for p in prefs.priorities) or "none"
    quiet = (
        f"{prefs.quiet_from:%H:%M}-{prefs.quiet_to:%H:%M} ({zone_words(prefs, org)})"
        if prefs.quiet_from and prefs.quiet_to
        else "none"
    )
    return f"{'on' if prefs.enabled else 'off'}; new alarms of: {priorities}; quiet hours: {quiet}"


def describe(prefs: PagePrefs, org: tzinfo) -> str:
    """The person's preferences in words, with what they mean."""
    if not prefs.enabled:
        return (
            "Your paging by direct message is *off*: samops sends you none (the channels still show every "
            "alarm and escalation). Turn it on with `/sam notify-me on`."
        )
    priorities = ", ".join(p.label for p in prefs.priorities)
    events = (
        "when an escalation names you or your user group, and when an alarm you took escalates (taking it is"
        " not acknowledging it)"
    )
    paged = (
        f"every new alarm of {priorities}; {events}"
        if priorities
        # Said as it is: none by priority, and how to have some ("paged for no new alarm by its priority" read
        # as a riddle).
        else f"{events}; not for new alarms by their priority, as you chose none (`/sam notify-me priorities"
        " P1` pages you for every new P1 alarm)"
    )
    if prefs.quiet_from and prefs.quiet_to:
        zone = escape(zone_words(prefs, org))
        quiet = (
            f"quiet hours {prefs.quiet_from:%H:%M}–{prefs.quiet_to:%H:%M} in {zone}: only P1 pages you then"
        )
    else:
        quiet = "no quiet hours (`/sam notify-me quiet 22:00-07:00`)"
    return (
        f"Your paging by direct message is *on*: you are paged {'for ' if priorities else ''}{paged}. "
        f"{quiet[0].upper() + quiet[1:]}. "
        "No page comes once the alarm is acknowledged."
    )
