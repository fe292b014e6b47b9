"""Messages about silences, maintenance windows and shift handovers: the window card (with Lift), the list
of windows in force, the summary of what a window held back, and the handover digest."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block, ButtonElement, PlainTextObject, SectionBlock

from bot.render.common import MAX_BLOCKS, Rendered, clip, context, escape, header, join_lines, section, typed
from bot.render.dispositions import dispositions_section
from core.life_safety import WORDS as LIFE_SAFETY
from core.read import MAINTENANCE, Handover, HeldGroup, QuietWindow
from core.text import counted
from core.timefmt import local

LIFT = "quiet_lift"
HOLD_LIFE_SAFETY = "hold-life-safety"  # the word of `/sam maintenance` (bot/commands/maintenance.py)
_SLACK_ID = re.compile(r"[UW][A-Z0-9]{1,40}")
LISTED = MAX_BLOCKS - 5  # windows listed one block each; the rest are counted


def _what(window: QuietWindow) -> str:
    return "Maintenance" if window.kind == MAINTENANCE else "Silence"


def window_line(window: QuietWindow, zone: ZoneInfo, now: int) -> str:
    """One line: what, on what, until when, why, by whom."""
    emoji = ":construction:" if window.kind == MAINTENANCE else ":no_bell:"
    when = (
        f"until {local(window.end, zone, seconds=True)}"
        if window.starts_at <= now
        else f"from {local(window.starts_at, zone, seconds=True)} to {local(window.end, zone, seconds=True)}"
    )
    who = f" by <@{escape(window.created_by)}>" if window.created_by else " (from the config)"
    reason = f" — {typed(window.reason)}" if window.reason else ""
    state = "in maintenance" if window.kind == MAINTENANCE else "silenced"
    holds = " · life-safety alarms held too" if window.hold_life_safety else ""
    return f"{emoji} *{escape(window.scope())}* {state} {when}{who}{reason}{holds}"


def slack_words(words: str, window: QuietWindow) -> str:
    """core's words about a window (`QuietWindow.held_reason`, `during`) for Slack: escaped, and the person
    who made it a mention."""
    text = escape(words)
    who = window.created_by
    if who and _SLACK_ID.fullmatch(who):
        text = text.replace(f" by @{who} ", f" by <@{who}> ", 1)
    return text


def lift_button(window: QuietWindow) -> ButtonElement:
    label = "End now" if window.kind == MAINTENANCE else "Lift"
    return ButtonElement(text=PlainTextObject(text=label), action_id=LIFT, value=str(window.id))


def what_it_holds(window: QuietWindow) -> str:
    """What a window will hold back and what not (core/life_safety.py), as its confirmation says it."""
    if window.kind != MAINTENANCE:
        return (
            f"its alarms are recorded, not posted, except life-safety ones ({LIFE_SAFETY}), which a silence"
            " never holds; a summary follows when it ends."
        )
    if window.hold_life_safety:
        return (
            f"*every* alarm is recorded, not posted, life-safety ones ({LIFE_SAFETY}) too"
            f" (`{HOLD_LIFE_SAFETY}`); a summary follows when it ends."
        )
    return (
        "its alarms are recorded, not posted; a summary follows when it ends. Life-safety alarms"
        f" ({LIFE_SAFETY}) are still posted, marked as during this maintenance (for a fire-system test, plan"
        f" it with `{HOLD_LIFE_SAFETY}` to hold them too)."
    )


def window_card(window: QuietWindow, zone: ZoneInfo, now: int, intro: str = "") -> Rendered:
    """A window just made: what it covers, what it will hold and what not, and a button to end it early."""
    line = window_line(window, zone, now)
    text = f"{intro}{line}: {what_it_holds(window)}"
    block = SectionBlock(text=clip(text, 3000), accessory=lift_button(window))
    return Rendered(text=clip(text, 300), blocks=[block.to_dict()])


def lifted_card(window: QuietWindow, zone: ZoneInfo) -> Rendered:
    by = f"<@{escape(window.lifted_by)}>" if window.lifted_by else "someone"
    when = local(window.lifted_at or window.end, zone, seconds=True)
    text = f":bell: {_what(window)} of {escape(window.scope())} lifted by {by} at {when}."
    return Rendered(text=text, blocks=[section(text).to_dict()])


def windows_list(
    windows: Sequence[QuietWindow],
    zone_of: Callable[[QuietWindow], ZoneInfo],
    now: int,
    title: str,
    empty: str,
) -> Rendered:
    """Windows, one section each with its Lift button."""
    if not windows:
        return Rendered(text=empty, blocks=[section(empty).to_dict()])
    blocks: list[Block] = [header(title)]
    for window in windows[:LISTED]:
        line = window_line(window, zone_of(window), now)
        blocks.append(SectionBlock(text=clip(line, 3000), accessory=lift_button(window)))
    if len(windows) > LISTED:
        blocks.append(context(f"… and {len(windows) - LISTED} more; the dashboard lists them all."))
    return Rendered(text=f"{title}: {len(windows)}", blocks=[b.to_dict() for b in blocks])


def held_summary(window: QuietWindow, groups: Sequence[HeldGroup], zone: ZoneInfo) -> Rendered:
    """ONE message per channel when a window ends: what it held back, per panel and kind, first and last."""
    total = sum(g.count for g in groups)
    how = "was lifted" if window.lifted_at is not None and window.lifted_at < window.ends_at else "ended"
    head = (
        f":bell: {_what(window)} of {window.scope()} {how} ({local(window.end, zone, seconds=True)}). "
        f"It held back {counted(total, 'alarm')}:"
    )
    lines = []
    for g in groups:
        panel = f"{g.panel_name} ({g.resource_id})" if g.panel_name else f"panel {g.resource_id}"
        first, last = local(g.first_time, zone, seconds=True), local(g.last_time, zone, seconds=True)
        span = first if last == first else f"{first} – {last}"  # times within one second read the same
        lines.append(f"• {escape(panel)}: {g.count} × {escape(g.kind)} ({span})")
    blocks = [section(escape(head)), section(join_lines(lines)), context("Every alarm is in the dashboard.")]
    return Rendered(text=clip(escape(head), 300), blocks=[b.to_dict() for b in blocks])


def _duration(ms: int) -> str:
    """Seconds under a minute (a 20 s median is no "0 min"), minutes under two hours, then hours."""
    if ms < 59_500:
        return f"{round(ms / 1000)} s"
    minutes = round(ms / 60_000)
    return f"{minutes} min" if minutes < 120 else f"{minutes / 60:.1f} h"


def handover_digest(
    digest: Handover, zone: ZoneInfo, now: int, zone_for: Callable[[int | None], ZoneInfo] | None = None
) -> Rendered:
    """The digest; the shift's span in `zone` (the organization's, or over all of them the default zone),
    named. Each alarm and each silence is in its own organization's zone (`zone_for`), as its card was."""
    of = zone_for or (lambda _org: zone)
    span = f"{local(digest.since, zone, seconds=True)} – {local(digest.until, zone, seconds=True)}"
    scope = (
        f"organization {digest.org_id}"
        if digest.org_id is not None
        else "all organizations, each alarm in its organization's zone"
    )
    blocks: list[Block] = [header("Shift handover"), context(f"{span} · {scope}")]
    life = digest.lifecycle
    tta = _duration(life.median_tta_ms) if life.median_tta_ms is not None else "–"
    figures = [
        f"*Alarms received*\n{digest.alarms_received}",
        f"*Acknowledged*\n{life.acknowledged}",
        f"*Resolved*\n{life.resolved}",
        f"*Median time to acknowledge*\n{tta}",
    ]
    if digest.late_received:
        # Counted apart: they happened before the shift's alarms, and were timed from their arrival.
        figures.insert(1, f"*Reported late*\n{digest.late_received} (timed from their arrival)")
    if digest.held_back:
        # Apart from those posted: nobody saw these in Slack (each is listed, with why, on `/sam alarms`).
        figures.insert(1, f"*Held back*\n{digest.held_back} (silence or maintenance, not posted)")
    if digest.sla is not None and (digest.sla.within or digest.sla.past):
        figures.append(f"*Acknowledged within SLA*\n{digest.sla.within} · {digest.sla.past} past it")
    blocks.append(section("*This shift*", figures))
    # The figures count different things; say which, so "received 26, open 9" does not read as a sum.
    blocks.append(
        context(
            f"Received: alarms whose own time is in this shift, {life.tracked} of them posted with buttons"
            f" and {digest.held_back} held back by a silence or maintenance (the rest came before samops"
            " notify first started, or are not delivered yet). Acknowledged, resolved: in this shift,"
            " whenever the alarm came. Still open or"
            " acknowledged: every alarm posted and not yet resolved, from this shift or before."
        )
    )
    held = [
        f"• {local(h.opened_at, _own(of, h.org_id, digest.org_id), seconds=True)}"
        f" {escape(h.kind or 'alarm')} on {escape(h.panel_name or 'panel')} ({h.resource_id})"
        + (f" · {h.priority.label}" if h.priority is not None else "")
        + f" — {h.state}"
        + (" · :alarm_clock: *overdue*" if h.overdue else "")
        + (f" by <@{escape(h.acknowledged_by)}>" if h.acknowledged_by else "")
        + (f", held by <@{escape(h.holder)}>" if h.holder else ", nobody holds it")
        for h in life.held
    ]
    title = f"*Still open or acknowledged: {life.held_count}*"
    blocks.append(section(title + ("\n" + join_lines(held, total=life.held_count) if held else "")))
    noisy = [f"• {escape(p.name or 'panel')} ({p.resource_id}): {p.count}" for p in digest.noisiest]
    blocks.append(section("*Noisiest panels*\n" + (join_lines(noisy) if noisy else "none: no alarms")))
    blocks += dispositions_section(digest.dispositions)
    cams = [f"• {escape(c.name or 'camera')} ({c.resource_id})" for c in digest.cameras_offline]
    blocks.append(section(f"*Cameras offline: {len(cams)}*" + ("\n" + join_lines(cams) if cams else "")))
    if digest.cameras_disabled:  # core.cameras' other word for a camera that is down: out of service
        off = [f"• {escape(c.name or 'camera')} ({c.resource_id})" for c in digest.cameras_disabled]
        blocks.append(section(f"*Cameras disabled: {len(off)}*\n" + join_lines(off)))
    quiet = [window_line(w, _own(of, w.org_id, digest.org_id), now) for w in digest.quiet]
    blocks.append(
        section(
            f"*Silences and maintenance in force: {len(quiet)}*" + ("\n" + join_lines(quiet) if quiet else "")
        )
    )
    text = f"Shift handover {span}: {counted(digest.alarms_received, 'alarm')} received"
    if digest.late_received:
        text += f", {digest.late_received} reported late"
    if digest.held_back:
        text += f", {digest.held_back} held back"
    return Rendered(text=clip(text, 300), blocks=[b.to_dict() for b in blocks])


def _own(zone_for: Callable[[int | None], ZoneInfo], org_id: int | None, digest_org: int | None) -> ZoneInfo:
    """The zone of what belongs to `org_id` (one the cache knows no organization of: the digest's)."""
    return zone_for(org_id if org_id is not None else digest_org)


def group_by_channel(groups: Sequence[HeldGroup]) -> dict[str, list[HeldGroup]]:
    by_channel: dict[str, list[HeldGroup]] = defaultdict(list)
    for g in groups:
        by_channel[g.channel].append(g)
    return dict(by_channel)
