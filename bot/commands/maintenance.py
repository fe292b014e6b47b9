"""`/sam maintenance`: the maintenance windows in force or to come (each with End now), and, for
technicians, `/sam maintenance <panel | org:ID> <from> <to> [reason] [hold-life-safety]` to plan one
(life-safety alarms are posted, marked, unless `hold-life-safety` is given: core/life_safety.py).

`<from>`/`<to>` are read in the organization's time zone (`[notify.timezones]`): `now`; `HH:MM` (`from`:
the next such time, today's up to a minute late; `to`: the first such time after `from`, so 22:00 06:00
runs over midnight); `YYYY-MM-DD HH:MM`; `+2h`, `+30m`, `+1d` (for `to`: after `from`).

Bounds (docs/security.md), so that no one can hold an organization's alarms back for long or flood the audit
channel: a window lasts at most LONGEST_MS and starts within FURTHEST_MS; the windows planned in Slack hold
one organization, or one panel (its own and its organization's), at most HELD_MS in any HELD_SPAN_MS; one
person has at most OPEN_PER_PERSON windows not over yet; and the audit channel gets at most
`bot.writes.ANNOUNCE_PER_MINUTE` maintenance lines a minute, the rest summed up in one line.
"""

from __future__ import annotations

import re

from bot.commands.silences import windows_reply
from bot.context import AppContext
from bot.forms.fields import FieldError, looks_like_id, parse_id, parse_name
from bot.render import quiet as render
from bot.render.common import escape
from bot.roles import Role
from bot.slash.panels_lookup import resolve_panels
from bot.slash.parse import as_typed, parse_text
from bot.slash.registry import Invocation, Reply, UsageError, subcommand
from bot.writes import WriteRequest, audit_denied, record_act, role_denied, slash_key
from core import cache
from core.clock import DAY_MS, MINUTE_MS, now_ms
from core.read import MAINTENANCE, QuietWindow, organizations, quiet_window, windows_in_force
from core.reference import is_reference, new_reference
from core.sqlite_lib import sqlite_utils
from core.timefmt import local
from core.windows import WhenError, parse_when

USAGE = "/sam maintenance [<panel | org:ID> <from> <to> [reason] [hold-life-safety]]"
# The word that makes a window hold life-safety alarms too (a fire-system test: core/life_safety.py).
HOLD_LIFE_SAFETY = render.HOLD_LIFE_SAFETY
LONGEST_MS = 31 * DAY_MS
FURTHEST_MS = 365 * DAY_MS
HELD_MS = 31 * DAY_MS  # one organization or panel held back at most this long ...
HELD_SPAN_MS = 90 * DAY_MS  # ... in any span of this length
OPEN_PER_PERSON = 20  # maintenance windows one person has planned that are not over yet
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_CLOCK = re.compile(r"\d{1,2}:\d{2}")


@subcommand(
    "maintenance",
    usage=USAGE,
    summary="maintenance windows in force; technicians plan one for a panel or org (alarms held back)",
    write=True,
    examples=(
        "/sam maintenance",
        "/sam maintenance 100101 now +2h replacing the siren",
        "/sam maintenance org:1001 22:00 06:00 network works",
        "/sam maintenance Warehouse 08:00 12:00 door replacement",
        "/sam maintenance 100101 now +1h fire system test hold-life-safety",
    ),
)
def maintenance(inv: Invocation, ctx: AppContext) -> Reply:
    if not inv.args:
        return _list(inv, ctx)
    if denied := role_denied(ctx, inv.user_id, Role.TECHNICIAN):
        audit_denied(ctx, inv.user_id, as_typed(inv.text), inv.org_id)
        return Reply(text=denied)
    words = list(inv.args)
    explicit_org = parse_text(inv.text).org_id
    if explicit_org is not None and _starts_with_time(words):
        resource_id, org_id, scope = None, explicit_org, f"organization {explicit_org}"
        if explicit_org not in {org for org, _ in organizations(ctx.db())}:
            return Reply(text=f"Not found: organization {explicit_org} is not in samops' cache.")
    else:
        resource_id, org_id, scope = _panel(ctx, words.pop(0), inv.org_id)
    config = ctx.config.notify
    zone = config.zone_for(org_id)
    now = now_ms()
    start_words, end_words, reason_words = _split_times(words)
    try:
        start = parse_when(start_words, now, zone)
        end = parse_when(end_words, now, zone, after=start)
    except WhenError as err:
        raise UsageError(str(err)) from None
    _check_span(start, end, now)
    hold_life_safety = any(w.lower() == HOLD_LIFE_SAFETY for w in reason_words)
    reason = _reason([w for w in reason_words if w.lower() != HOLD_LIFE_SAFETY])
    # The audit row's reference, which the reason of every alarm the window holds names.
    reference = inv.reference if is_reference(inv.reference) else new_reference()
    db = ctx.db()
    # In the organization it is about: a role from the service holds only where the service gives it.
    if denied := role_denied(ctx, inv.user_id, Role.TECHNICIAN, org_id):
        audit_denied(ctx, inv.user_id, as_typed(inv.text), org_id, "role not held there")
        return Reply(text=denied)
    command = as_typed(inv.text)  # with its `org:` word, which the parser takes out of `inv.args`
    span = f"from {local(start, zone, seconds=True)} to {local(end, zone, seconds=True)}"

    def plan() -> QuietWindow | str:
        """The bounds checked and the window added under one lock: two commands cannot both pass."""
        over = _over_bounds(db, inv.user_id, resource_id, org_id, start, end, now, scope)
        if over:
            return over
        window_id = cache.add_window(
            db,
            kind=MAINTENANCE,
            starts_at=start,
            ends_at=end,
            created_at=now,
            resource_id=resource_id,
            org_id=None if resource_id else org_id,
            reason=reason,
            created_by=inv.user_id,
            hold_life_safety=hold_life_safety,
            reference=reference,
        )
        made = quiet_window(db, window_id)
        assert made is not None
        return made

    def summary_of(made: QuietWindow) -> str:
        # Plain text, as every audit summary (its readers escape it): the window, its span and the reason.
        said = f"planned maintenance {made.id} of {scope} {span}" + (f" — {reason}" if reason else "")
        return f"{said} (holding life-safety alarms too)" if hold_life_safety else said

    def recorded(made: QuietWindow | str) -> WriteRequest | None:
        if isinstance(made, str):
            return None
        return WriteRequest(inv.user_id, command, summary_of(made)[:500], "", org_id, reference)

    # The claim, the window and its audit row commit together, or none of them (docs/security.md).
    ran, made = record_act(ctx, plan, recorded, claim=slash_key(inv), paced="maintenance")
    if not ran:
        return Reply(text="This command was already run (a retry); nothing more was planned.")
    if isinstance(made, str):
        audit_denied(ctx, inv.user_id, command, org_id, made)
        return Reply(text=f"Not planned: {made}. See `/sam maintenance` for the windows planned.")
    assert made is not None
    card = render.window_card(made, zone, now)
    return Reply(text=card.text, blocks=card.blocks, in_channel=True, audit_summary=summary_of(made))


def _list(inv: Invocation, ctx: AppContext) -> Reply:
    empty = f"No maintenance window is in force or planned. Plan one: `{USAGE}`"
    return windows_reply(inv, ctx, MAINTENANCE, "Maintenance windows", empty, upcoming=True)


def _starts_with_time(words: list[str]) -> bool:
    first = words[0].lower() if words else ""
    return first == "now" or first.startswith("+") or bool(_DATE.fullmatch(first) or _CLOCK.fullmatch(first))


def _panel(ctx: AppContext, word: str, org_id: int | None) -> tuple[int, int | None, str]:
    """(panel id, its organization, its name in words) of what was typed; UsageError if not one panel."""
    try:
        typed = parse_id(word, "panel") if looks_like_id(word) else None
    except FieldError as err:
        raise UsageError(str(err)) from None
    panels = resolve_panels(ctx, str(typed) if typed is not None else word, org_id)
    if typed is not None:
        panels = [p for p in panels if p.resource_id == typed]
    if not panels:
        raise UsageError(f"no panel `{escape(word)}` in samops' cache (give its id, or `org:<id>` first)")
    if len(panels) > 1:
        ids = ", ".join(f"`{p.resource_id}`" for p in panels[:10])
        raise UsageError(f"`{escape(word)}` matches {len(panels)} panels ({ids}); give the panel's id")
    panel = panels[0]
    return panel.resource_id, panel.org_id, f"{panel.name or 'panel'} ({panel.resource_id})"


def _split_times(words: list[str]) -> tuple[str, str, list[str]]:
    """The `from` and `to` words (a date and a time are one), and the words of the reason."""
    groups: list[str] = []
    rest = list(words)
    while rest and len(groups) < 2:
        word = rest.pop(0)
        if _DATE.fullmatch(word) and rest and _CLOCK.fullmatch(rest[0]):
            word = f"{word} {rest.pop(0)}"
        groups.append(word)
    if len(groups) < 2:
        raise UsageError("give when it starts and when it ends, e.g. `now +2h` or `22:00 06:00`")
    return groups[0], groups[1], rest


def _check_span(start: int, end: int, now: int) -> None:
    if start < now - MINUTE_MS:
        raise UsageError("it would start in the past; start it `now` or later")
    if end <= start:
        raise UsageError("it must end after it starts")
    if end - start > LONGEST_MS:
        raise UsageError("a window lasts at most 31 days")
    if start > now + FURTHEST_MS:
        raise UsageError("a window starts within a year")


def _over_bounds(
    db: sqlite_utils.Database,
    user: str,
    resource_id: int | None,
    org_id: int | None,
    start: int,
    end: int,
    now: int,
    scope: str,
) -> str | None:
    """Why the window may not be planned (its bounds, in words), or None. Windows from the TOML
    (`[[notify.maintenance]]`) are the admins' own and count for neither bound."""
    planned = [
        w for w in windows_in_force(db, now, upcoming=True) if w.kind == MAINTENANCE and w.config_key is None
    ]
    if sum(1 for w in planned if w.created_by == user) >= OPEN_PER_PERSON:
        return f"you have {OPEN_PER_PERSON} maintenance windows planned or in force, the most one person may"
    org_wide = [w for w in planned if w.resource_id is None and org_id is not None and w.org_id == org_id]
    holding = org_wide + [w for w in planned if resource_id is not None and w.resource_id == resource_id]
    spans = [(max(w.starts_at, now), w.ends_at) for w in holding] + [(start, end)]
    if longest_held(spans, HELD_SPAN_MS) > HELD_MS:
        days, span = HELD_MS // DAY_MS, HELD_SPAN_MS // DAY_MS
        return f"{escape(scope)} would be in maintenance more than {days} days within {span} days"
    return None


def longest_held(spans: list[tuple[int, int]], span_ms: int) -> int:
    """The most time any `span_ms`-long stretch is covered by the union of `spans` ((start, end) pairs).
    The worst stretch starts where a span starts, or ends where one ends: only those are tried."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    anchors = {s for s, _ in merged} | {e - span_ms for _, e in merged}
    return max((sum(max(0, min(e, a + span_ms) - max(s, a)) for s, e in merged) for a in anchors), default=0)


def _reason(words: list[str]) -> str | None:
    if not words:
        return None
    try:
        return parse_name(" ".join(words), "reason")
    except FieldError as err:
        raise UsageError(str(err)) from None
