"""`/sam who-can <panel> [now | HH:MM | YYYY-MM-DD HH:MM]`: who may operate a panel at a moment.

The authorizations are read live from the service (operations 2 and 15, `core.panel_access`) into the cache
and judged there by `core.read.who_can`, so the dashboard's panel page shows the same answer. Times are on
the organization's clock (`[notify] timezones`, else `timezone`, else UTC). When the service cannot be
reached, the last authorizations samops read are used, and the answer says how old they are.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from bot.commands.panel import pick_panel
from bot.context import AppContext
from bot.live_budget import WHO_CAN_GUESS
from bot.render.who_can import who_can_blocks
from bot.slash.panels_lookup import PanelRef
from bot.slash.registry import Invocation, Reply, UsageError, subcommand
from core import read
from core.access_windows import local_words
from core.clock import now_ms
from core.errors import NotFoundError, SamError
from core.panel_access import refresh_panel_authorizations
from core.timefmt import plausible

log = logging.getLogger(__name__)

USAGE = "/sam who-can <panel id | name> [now | HH:MM | YYYY-MM-DD HH:MM]"
# ASCII digits only: `\d` would also read Arabic-Indic digits, which ids refuse.
_CLOCK = re.compile(r"([0-9]{1,2}):([0-9]{2})")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_ISO = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{1,2}:[0-9]{2})")  # 2026-11-24T07:00, as pasted
_TIMEISH = re.compile(r"[\d:.-]*[:-][\d:.-]*")  # what someone meant as a time or a date, rightly or not


@dataclass(frozen=True)
class Moment:
    """When the question is about, as typed: now, or a wall-clock time (today's when no date)."""

    day: date | None = None
    clock: time | None = None  # None: now


def split_moment(args: tuple[str, ...]) -> tuple[tuple[str, ...], Moment]:
    """The panel's words and the moment at the end of `args`; UsageError for a time that is not one, or for
    words after it."""
    words = [part for word in args for part in _iso_apart(word)]
    _refuse_words_after_the_moment(words)
    if words and words[-1].lower() == "now":
        return tuple(words[:-1]), Moment()
    if not words or not _TIMEISH.fullmatch(words[-1]):
        return tuple(words), Moment()
    last = words.pop()
    if _DATE.fullmatch(last):
        raise UsageError(f"`{last}` needs a time too: `{last} HH:MM`")
    clock = _clock(last)
    day = None
    if words and _TIMEISH.fullmatch(words[-1]):
        day = _day(words.pop())
    return tuple(words), Moment(day, clock)


def _iso_apart(word: str) -> tuple[str, ...]:
    """`2026-11-24T07:00` as the two words `2026-11-24 07:00`; any other word as it is."""
    match = _ISO.fullmatch(word)
    return match.groups() if match else (word,)


def _refuse_words_after_the_moment(words: list[str]) -> None:
    """A time or `now` after the panel ends the command: anything after it was not read as the panel's name.

    Only strict shapes count (`now`, HH:MM, YYYY-MM-DD), so a name such as `Unit 3-4 East` stays a name; a
    name that does hold one is quoted."""
    for at, word in enumerate(words[1:], start=1):
        if not (word.lower() == "now" or _CLOCK.fullmatch(word) or _DATE.fullmatch(word)):
            continue
        end = at + 1
        if _DATE.fullmatch(word) and end < len(words) and _CLOCK.fullmatch(words[end]):
            end += 1
        if extra := words[end:]:
            raise UsageError(
                f"`{' '.join(extra)}` after the time: give the panel, then the time, nothing more"
                ' (quote a panel name that holds a time or "now")'
            )
        return


def _clock(word: str) -> time:
    match = _CLOCK.fullmatch(word)
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise UsageError(f"`{word}` is not a time of day; give HH:MM (24-hour), e.g. 14:30")
    return time(int(match.group(1)), int(match.group(2)))


def _day(word: str) -> date:
    try:
        if _DATE.fullmatch(word):
            return date.fromisoformat(word)
    except ValueError:
        pass
    raise UsageError(f"`{word}` is not a date; give YYYY-MM-DD, e.g. 2026-11-24")


def moment_ms(moment: Moment, zone: ZoneInfo, now: int) -> int:
    """The moment in epoch-ms, its wall-clock time read in `zone`."""
    if moment.clock is None:
        return now
    day = moment.day or datetime.fromtimestamp(now / 1000, zone).date()
    at = int(datetime.combine(day, moment.clock, tzinfo=zone).timestamp() * 1000)
    if not plausible(at):
        raise UsageError(f"{day.isoformat()} is outside the years samops can reason about")
    return at


def answer_who_can(ctx: AppContext, ref: PanelRef, org: int | None, moment: Moment) -> Reply:
    """Fetch the panel's authorizations, judge them at `moment`, and word the answer (the command and the
    alarm cards' button share it)."""
    zone = ctx.config.notify.zone_for(org)
    now = now_ms()
    at = moment_ms(moment, zone, now)
    db = ctx.db()
    if not ctx.live.take(org, WHO_CAN_GUESS):
        cached = read.who_can(db, ref.resource_id, at, zone)
        if cached.fetched_at is None:
            return Reply(text=ctx.live.busy_text(org, WHO_CAN_GUESS))
        source = (
            f"samops has asked the service a lot about this organization just now; these are the "
            f"authorizations it read at {local_words(cached.fetched_at, zone, now)}. Times in {zone.key}."
        )
        message = who_can_blocks(cached, ref.name, zone, source)
        return Reply(text=message.text, blocks=message.blocks)
    try:
        rows = refresh_panel_authorizations(db, ctx.client, org, ref.resource_id)
        ctx.live.spend(org, 1 + rows - WHO_CAN_GUESS)  # operation 2, and 15 for each person authorized
        source = f"Live from the service at {local_words(now, zone, now)}; times in {zone.key}."
    except NotFoundError:
        raise  # the service says the panel is not there: old authorizations would mislead
    except SamError as err:
        cached = read.who_can(db, ref.resource_id, at, zone)
        if cached.fetched_at is None:
            raise
        log.warning(
            "who-can of panel %s: the service failed (%s); answering from the cache", ref.resource_id, err
        )
        source = (
            f"The service did not answer; these are the authorizations samops read at "
            f"{local_words(cached.fetched_at, zone, now)}. Times in {zone.key}."
        )
    answer = read.who_can(db, ref.resource_id, at, zone)
    message = who_can_blocks(answer, ref.name, zone, source)
    return Reply(text=message.text, blocks=message.blocks)


@subcommand(
    "who-can",
    usage=USAGE,
    summary="who may operate a panel now or at a time: names, privilege groups, until when",
    examples=("/sam who-can 100101", "/sam who-can Warehouse 22:30", "/sam who-can 100101 2026-11-24 07:00"),
)
def who_can(inv: Invocation, ctx: AppContext) -> Reply:
    panel_words, moment = split_moment(inv.args)
    if not panel_words:
        raise UsageError("say which panel: its id or part of its name")
    picked = pick_panel(ctx, replace(inv, args=panel_words))
    if isinstance(picked, Reply):
        return picked
    org = inv.org_id if inv.org_id is not None else picked.org_id
    return answer_who_can(ctx, picked, org, moment)
