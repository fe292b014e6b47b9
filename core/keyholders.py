"""Keyholder context (docs/keyholders.md): whether an authorized user could have set an alarm off, judged at
the alarm's own time (`activityTime`, in the organization's zone) from the panel's authorizations as the cache
holds them (operations 2 and 15, read by `core.keyholder_reads` or `/sam who-can`), by the who-can reading
(`core.read.who_can`, `core.access_windows`).

One line, one of:
- "During the access window of Ana Yılmaz (Mon–Fri 08:00–18:00): possibly a user error" (several named, at
  most MAX_NAMED, then "and N others");
- "Outside every authorized user's window";
- "No authorized users on this panel";
- "Authorizations not read yet" / "Authorizations could not be read: <reason>": never a guess.

Inside a window, the suggested disposition is `false_user_error` (a hint for the Resolve form; never set).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from zoneinfo import ZoneInfo

from core.access_windows import DayWindow, Validity, time_of_day
from core.alarms import Alarm, is_supervision
from core.clock import DAY_MS
from core.read.keyholders import PanelAccess, panel_access
from core.read.who_can import WhoCanEntry, evaluate
from core.sqlite_lib import sqlite_utils

MAX_NAMED = 3  # people named on the line; more are counted
USER_ERROR = "false_user_error"  # the disposition code (core/dispositions.py) suggested inside a window
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


class Verdict(StrEnum):
    INSIDE = "inside"  # during the window of at least one authorized user
    OUTSIDE = "outside"  # authorized users, none of them in their window
    NOBODY = "nobody"  # the service lists no authorized user on the panel
    UNREAD = "unread"  # the panel's authorizations were never read
    FAILED = "failed"  # they could not be read, and none were read before


@dataclass(frozen=True)
class Keyholder:
    name: str
    window: str  # "Mon–Fri 08:00–18:00", in the organization's zone


@dataclass(frozen=True)
class KeyholderContext:
    verdict: Verdict
    inside: tuple[Keyholder, ...] = ()  # by name, at most MAX_NAMED
    more: int = 0  # also inside, not named
    error: str | None = None  # why the last read failed (FAILED; or the data shown is older than a failure)
    read_at: int | None = None  # when the authorizations judged were read

    @property
    def text(self) -> str:
        """The line, as plain text (the card escapes it; the dashboard shows it as text)."""
        match self.verdict:
            case Verdict.INSIDE:
                text = f"During the access {_window_word(self)} of {_named(self)}: possibly a user error"
            case Verdict.OUTSIDE:
                text = "Outside every authorized user's window"
            case Verdict.NOBODY:
                text = "No authorized users on this panel"
            case Verdict.UNREAD:
                return "Authorizations not read yet"
            case Verdict.FAILED:
                return f"Authorizations could not be read: {self.error or 'unknown reason'}"
        if self.error:
            text += f" (from an earlier read; the latest failed: {self.error})"
        return text


def suggested_disposition(context: KeyholderContext | None) -> str | None:
    """The disposition code to suggest at Resolve: `false_user_error` inside an authorized user's window."""
    return USER_ERROR if context is not None and context.verdict is Verdict.INSIDE else None


def judge(access: PanelAccess, at: int, zone: ZoneInfo) -> KeyholderContext:
    """The context at `at` (epoch-ms) from one panel's authorizations, windows read in `zone`."""
    read = access.read
    if read is None and not access.users:
        return KeyholderContext(Verdict.UNREAD)
    if read is not None and read.read_at is None:
        return KeyholderContext(Verdict.FAILED, error=read.error)
    # Users with no read recorded were read by `/sam who-can` before reads were recorded (cache version 14).
    error = read.error if read is not None else None
    read_at = read.read_at if read is not None else min(u.fetched_at for u in access.users)
    if not access.users:
        return KeyholderContext(Verdict.NOBODY, error=error, read_at=read_at)
    answer = evaluate(access.users[0].resource_id, list(access.users), at, zone)
    if not answer.can:
        return KeyholderContext(Verdict.OUTSIDE, error=error, read_at=read_at)
    named = tuple(_keyholder(entry, zone) for entry in answer.can[:MAX_NAMED])
    return KeyholderContext(Verdict.INSIDE, named, len(answer.can) - len(named), error=error, read_at=read_at)


def contexts(
    db: sqlite_utils.Database, alarms: Iterable[Alarm], zone_for: Callable[[int | None], ZoneInfo]
) -> dict[str, KeyholderContext]:
    """Each alarm's context by event id, the cache read once per panel. Alarms with no panel have none, nor
    samops' own Communication-lost alarms: a panel that said nothing was set off by nobody, so who was
    allowed there is not the question (and "possibly a user error" would be wrong)."""
    listed = [
        (a, a.resource_id) for a in alarms if a.resource_id is not None and not is_supervision(a.event_id)
    ]
    access = panel_access(db, (rid for _, rid in listed))
    return {a.event_id: judge(access[rid], a.activity_time, zone_for(a.org_id)) for a, rid in listed}


def context_of(db: sqlite_utils.Database, alarm: Alarm, zone: ZoneInfo) -> KeyholderContext | None:
    """One alarm's context (None when the alarm names no panel)."""
    return contexts(db, [alarm], lambda _org: zone).get(alarm.event_id)


# --- wording -----------------------------------------------------------------------------------------------


def _window_word(context: KeyholderContext) -> str:
    return "window" if len(context.inside) + context.more == 1 else "windows"


def _named(context: KeyholderContext) -> str:
    parts = [f"{k.name} ({k.window})" for k in context.inside]
    if context.more:
        parts.append(f"{context.more} other{'s' if context.more != 1 else ''}")
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _keyholder(entry: WhoCanEntry, zone: ZoneInfo) -> Keyholder:
    validity = entry.user.validity
    return Keyholder(entry.user.name, window_text(validity, zone) if validity else "any time")


def window_text(validity: Validity, zone: ZoneInfo) -> str:
    """A user's weekly windows in words, in `zone`: days sharing the same hours together ("Mon–Fri
    08:00–18:00, Sat 09:00–13:00"); no windows: "any time"."""
    if not validity.windows:
        return "any time"
    by_hours: dict[tuple[int, int], set[int]] = {}
    for w in validity.windows:
        by_hours.setdefault(_hours(w, zone), set()).add(w.day_of_week)
    ordered = sorted(by_hours.items(), key=lambda item: (min(item[1]), item[0]))
    return ", ".join(f"{_days(days)} {_clock(s)}–{_clock(e)}" for (s, e), days in ordered)


def _hours(w: DayWindow, zone: ZoneInfo) -> tuple[int, int]:
    start, end = time_of_day(w.start, zone), time_of_day(w.end, zone)
    return start, DAY_MS if end == start else end  # equal bounds: the whole day (core.access_windows)


def _days(days: set[int]) -> str:
    """ISO weekdays as words: runs of three or more joined with a dash (Mon–Fri), others listed."""
    ordered = sorted(days)
    runs: list[list[int]] = []
    for day in ordered:
        if runs and day == runs[-1][-1] + 1:
            runs[-1].append(day)
        else:
            runs.append([day])
    words: list[str] = []
    for run in runs:
        if len(run) >= 3:
            words.append(f"{_DAYS[run[0] - 1]}–{_DAYS[run[-1] - 1]}")
        else:
            words += [_DAYS[d - 1] for d in run]
    return ", ".join(words)


def _clock(ms: int) -> str:
    minutes = ms // 60_000
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


__all__ = [
    "MAX_NAMED",
    "USER_ERROR",
    "Keyholder",
    "KeyholderContext",
    "Verdict",
    "context_of",
    "contexts",
    "judge",
    "suggested_disposition",
    "window_text",
]
