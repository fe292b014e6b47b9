"""Personal paging preferences (`/sam notify-me`, docs/paging.md): on or off, the priorities a person opted
in to, and quiet hours in their own Slack time zone (else their organization's), during which only P1 pages
them. Pure: the storage is core/cache/paging.py, the sending bot/notify/paging.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, tzinfo

from core.priorities import Priority
from core.timefmt import UTC_TZ, person_zone

# Who is paged and why; each is its own level of the (person, alarm, level) key so none repeats.
NEW_ALARM_LEVEL = 0  # an opted-in person, when the alarm's card is posted; escalation levels are 1, 2, …


@dataclass(frozen=True)
class PagePrefs:
    slack_user: str
    enabled: bool = True
    priorities: tuple[Priority, ...] = ()  # opted in to a DM for every new alarm of these
    quiet_from: time | None = None
    quiet_to: time | None = None
    zone: str | None = None  # the person's Slack time zone (users.info `tz`) when they last set preferences

    @property
    def quiet(self) -> bool:
        return self.quiet_from is not None and self.quiet_to is not None

    def in_quiet_hours(self, at_ms: int, org: tzinfo = UTC_TZ) -> bool:
        """Whether `at_ms` falls in the quiet hours, read in the person's zone (`core.timefmt.person_zone`:
        their Slack zone, else `org`, the organization's of the alarm that would page them).
        `from` after `to` spans midnight: 22:00-07:00 is 22:00 to 07:00 the next morning."""
        if self.quiet_from is None or self.quiet_to is None:
            return False
        local = datetime.fromtimestamp(at_ms / 1000, tz=person_zone(self.zone, org)).time()
        start, end = self.quiet_from, self.quiet_to
        if start <= end:
            return start <= local < end
        return local >= start or local < end

    def allows(self, priority: Priority, at_ms: int, org: tzinfo = UTC_TZ) -> bool:
        """Whether a page of `priority` may reach this person at `at_ms`: not when off, and only P1 in quiet
        hours (read as `in_quiet_hours` reads them)."""
        if not self.enabled:
            return False
        return priority is Priority.P1 or not self.in_quiet_hours(at_ms, org)

    def wants_new(self, priority: Priority) -> bool:
        """Whether the person opted in to a DM for every new alarm of `priority`."""
        return self.enabled and priority in self.priorities
