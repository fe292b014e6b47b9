"""Times for people, the same in Slack, on pages and on the console; and what counts as a sane time.

The formatters never raise, whatever they are given: a time no calendar can show (the models reject such
records, but a cache written by an older samops may hold one) reads "invalid time".
"""

from __future__ import annotations

import functools
import logging
import math
import os
from collections.abc import Mapping
from datetime import UTC, datetime, tzinfo
from typing import Any, TypeVar, cast
from zoneinfo import ZoneInfo, available_timezones

# The times samops accepts from the service (epoch-ms): 2000-01-01 to 2100-01-01 UTC. Wider than any alarm
# panel's clock, narrow enough that every datetime library can show them. core.models enforces it.
EARLIEST_MS = 946_684_800_000
LATEST_MS = 4_102_444_800_000
INVALID = "invalid time"


def plausible(epoch_ms: float) -> bool:
    """Whether `epoch_ms` is within EARLIEST_MS..LATEST_MS."""
    return EARLIEST_MS <= epoch_ms <= LATEST_MS


def utc(epoch_ms: int | None, missing: str = "unknown") -> str:
    """An absolute UTC time: 2026-11-20 14:05 UTC."""
    if epoch_ms is None:
        return missing
    try:
        return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError, TypeError):  # beyond year 9999, NaN, not a number
        return INVALID


def age(epoch_ms: int | None, now_ms: int) -> str:
    """How long ago, in words: "just now", "5 min ago", "3 h ago", "2 days ago"."""
    if epoch_ms is None:
        return "never"
    try:
        elapsed = (now_ms - epoch_ms) // 1000
    except TypeError:
        return INVALID
    if isinstance(elapsed, float) and not math.isfinite(elapsed):
        return INVALID
    seconds = max(0, int(elapsed))
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86400 * 2:
        return f"{seconds // 3600} h ago"
    return f"{seconds // 86400} days ago"


def hhmm(ms_of_day: int) -> str:
    """A time of day as HH:MM, from milliseconds after midnight (as the privilege windows count them);
    an epoch-ms gives its UTC time of day."""
    minutes = ms_of_day % 86_400_000 // 60_000
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


UTC_ZONE = "UTC"
UTC_TZ = ZoneInfo(UTC_ZONE)  # the default where no organization's zone applies
# Names tzdata lists that are not a place's zone: the machine's own ("localtime"), a placeholder ("Factory").
_NOT_PLACES = frozenset({"localtime", "Factory", "posixrules"})


@functools.cache
def zone_names() -> tuple[str, ...]:
    """Every IANA time zone this machine knows (tzdata), sorted, UTC first."""
    return (UTC_ZONE, *sorted(available_timezones() - {UTC_ZONE} - _NOT_PLACES))


def zone(name: str | None) -> ZoneInfo | None:
    """The zone named `name` if it is a known IANA name, else None (never raises: names come from users)."""
    if not name or name not in zone_names():  # ZoneInfo alone would also open "../../etc/x"-like keys
        return None
    return ZoneInfo(name)


def org_zone(notify: Mapping[str, Any], org_id: int | None, fallback: str | None = None) -> ZoneInfo:
    """An organization's time zone: the one definition, which the bot (`NotifyConfig.zone_for`: cards,
    replies, lists, digests, the App Home, who-can) and the dashboard (its default zone) all read.

    The config's `[notify]` section says it: `timezones` by organization id (keyed as TOML writes it, or by
    int), else `timezone`; else `fallback` (the dashboard passes the zone most of the organization's cached
    users have, `core.read.organization_time_zone`), else UTC. A name that is not a zone falls back the same
    way. With no organization (`org_id` None: the first-start summary, a reply or a page with none of its
    own), the one organization `timezones` names when it names one, before `timezone` and `fallback`."""
    zones = notify.get("timezones")
    found = None
    if isinstance(zones, Mapping):
        by_org = cast("Mapping[object, object]", zones)  # TOML's string keys, or ints from a caller
        if org_id is not None:
            found = _zone_of(by_org.get(str(org_id), by_org.get(org_id)))
        elif len(by_org) == 1:  # no organization asked about: the one the config names a zone for
            found = _zone_of(next(iter(by_org.values())))
    return found or _zone_of(notify.get("timezone")) or _zone_of(fallback) or UTC_TZ


def _zone_of(name: object) -> ZoneInfo | None:
    return zone(name) if isinstance(name, str) else None


def local(
    epoch_ms: int | None, tz: tzinfo | None = None, missing: str = "unknown", seconds: bool = False
) -> str:
    """An absolute time in a zone, and the zone named: 2026-11-20 17:05 Europe/Berlin (UTC when no zone).

    samops' one way to show a person a moment (cards, replies, lists, digests, the App Home, the pages, the
    audit), named as `zone_label` names it."""
    shown = wall(epoch_ms, tz, missing, seconds)
    if epoch_ms is None or shown == INVALID:
        return shown
    return f"{shown} {zone_label(datetime.fromtimestamp(epoch_ms / 1000, tz or UTC))}"


def zone_label(when: datetime) -> str:
    """How a moment's zone is named, the one rule everywhere: its IANA name (America/New_York, UTC), the
    name who-can, the privilege windows and the dashboard's picker say too. An abbreviation is not used: it
    differs between winter and summer, "+03" names nothing, and IST is India's, Israel's and Ireland's. A
    zone without a name (a fixed offset) reads as its abbreviation."""
    key = getattr(when.tzinfo, "key", None)
    return key if isinstance(key, str) else when.tzname() or UTC_ZONE


def wall(
    epoch_ms: int | None, tz: tzinfo | None = None, missing: str = "unknown", seconds: bool = False
) -> str:
    """`local` without the zone's name, for a table cell whose column header names the zone once
    (`zone_label`): 2026-11-20 17:05:09."""
    if epoch_ms is None:
        return missing
    try:
        when = datetime.fromtimestamp(epoch_ms / 1000, tz or UTC)
    except (OverflowError, OSError, ValueError, TypeError):
        return INVALID
    return when.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def clock(epoch_ms: int, tz: tzinfo | None = None) -> str:
    """The time of day in a zone, HH:MM:SS, for a line under a heading that names the zone and the day
    (an incident's timeline)."""
    try:
        return datetime.fromtimestamp(epoch_ms / 1000, tz or UTC).strftime("%H:%M:%S")
    except (OverflowError, OSError, ValueError, TypeError):
        return INVALID


def day(epoch_ms: int | None, missing: str = "unknown") -> str:
    """A date that carries no time of day (a bill's due date: the service sends `2026-10-15T00:00:00Z`),
    as the date it names, 2026-10-15, on no zone's clock: shifted into a zone it would read as a time
    ("2026-10-15 03:00") or as the day before."""
    if epoch_ms is None:
        return missing
    try:
        return datetime.fromtimestamp(epoch_ms / 1000, UTC).date().isoformat()
    except (OverflowError, OSError, ValueError, TypeError):
        return INVALID


_Zone = TypeVar("_Zone", bound=tzinfo)


def person_zone(slack_tz: str | None, org: _Zone) -> ZoneInfo | _Zone:
    """A person's zone: their own where Slack gives it (users.info `tz`), else their organization's
    (`org_zone`), never UTC in its place."""
    return zone(slack_tz) or org


def host_zone() -> tzinfo:
    """The zone of the machine samops runs on, as the process reads it (TZ honoured, else /etc/localtime):
    what the console, `samops status`, `samops audit` and the logs show times in, named by `zone_label`.

    An IANA name where one is known (TZ=Europe/Istanbul, or the /etc/localtime link), else the local
    offset, named by its abbreviation."""
    return _host_zone(os.environ.get("TZ"))


@functools.cache
def _host_zone(tz_env: str | None) -> tzinfo:
    if tz_env is not None:
        found = zone(tz_env.removeprefix(":"))
        if found is not None:
            return found
        if tz_env in ("", ":"):  # TZ set empty: UTC, as the C library reads it
            return UTC_TZ
    else:
        try:
            target = os.path.realpath("/etc/localtime")
        except OSError:
            target = ""
        name = target.partition("zoneinfo/")[2]
        if zone(name) is not None:
            return ZoneInfo(name)
    return datetime.now().astimezone().tzinfo or UTC_TZ


def host(epoch_ms: int | None, missing: str = "unknown", seconds: bool = False) -> str:
    """A moment on the machine's clock, named: 2026-11-20 17:05 Europe/Istanbul (`local` in `host_zone`)."""
    return local(epoch_ms, host_zone(), missing, seconds)


class HostLogFormatter(logging.Formatter):
    """Log lines on the machine's clock with its zone named once: `21:30:54 Europe/Istanbul notify: …`
    (`datefmt` as strftime reads it, the zone's name appended)."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        when = datetime.fromtimestamp(record.created, host_zone())
        return f"{when.strftime(datefmt or '%Y-%m-%d %H:%M:%S')} {zone_label(when)}"


def zone_name(tz: tzinfo) -> str:
    """A zone's name as `zone_label` gives it, for a heading or a column header that names it once."""
    return zone_label(datetime.now(tz))


def iso(epoch_ms: int | None, tz: tzinfo | None = None) -> str:
    """ISO 8601 with the zone's offset, for files: 2026-11-20T17:05:09+03:00 ("" when unknown or invalid)."""
    if epoch_ms is None:
        return ""
    try:
        return datetime.fromtimestamp(epoch_ms / 1000, tz or UTC).isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError, TypeError):
        return ""


def wall_ms(epoch_ms: int, tz: tzinfo | None) -> int:
    """The zone's wall-clock time as if it were UTC, in epoch-ms: a chart drawn in UTC then reads local."""
    if tz is None:
        return epoch_ms
    offset = datetime.fromtimestamp(epoch_ms / 1000, tz).utcoffset()
    return epoch_ms + (int(offset.total_seconds() * 1000) if offset else 0)
