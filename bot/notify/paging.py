"""Personal paging (docs/paging.md): a direct message with the card's buttons to

- whoever holds (took) an alarm of a card thread that escalates, at each level;
- each escalation target that is a person (`<@U…>`) or a member of a user group (`<!subteam^S…>`,
  `usergroups.users.list`), at each level (channel targets are told in the thread, as before);
- everyone who opted in (`/sam notify-me`) to the alarm's priority, when its card is posted (level 0).

Only alarms still open are paged: once an alarm is acknowledged (or resolved) nobody is paged about it any
more (taking it is not acknowledging it: its taker is paged at each level until someone does); the pages
already sent stay. A person who turned paging off gets none; in their quiet hours (in their own Slack time
zone) only P1 pages them, and the rest wait for the quiet hours to end while the alarm is still open.

Once only: each page is claimed in `pages_sent` by (person, alarm, level) before it is sent and released if
Slack did not take it (core/cache/paging.py). A grouped (storm or incident) card's thread is paged as one,
carrying and keyed by its most urgent open alarm (`Pager._lead`). Each page is audited, and paced: per
person by the delivery's pacing (one DM channel each), and all pages together by a token bucket well inside
chat.postMessage's limits.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any
from zoneinfo import ZoneInfo

from bot import cards
from bot.notify.delivery import Delivery, DeliveryError, NotYet, SlackDelivery
from bot.notify.escalation import CATCH_UP_MS, Escalator, Thread, level_of, open_threads
from bot.pace import TokenBucket
from bot.render import alarms as render
from bot.render.common import Rendered, section
from core import cache, lifecycle, read, timefmt
from core.alarms import Alarm
from core.config import NotifyConfig
from core.paging import NEW_ALARM_LEVEL, PagePrefs
from core.priorities import Priorities, Priority
from core.sqlite_lib import sqlite_utils

log = logging.getLogger(__name__)

# All pages together: one a second, bursts of 10 (chat.postMessage allows about one a second per
# conversation, and more across a workspace; the channel cards keep their own pace).
PAGES_PER_SECOND = 1.0
PAGES_BURST = 10
# usergroups.users.list is Tier 2 (20 a minute): a group's members are asked at most once per GROUP_TTL_S.
GROUP_TTL_S = 300.0
GROUP_CALLS_PER_SECOND = 0.2
AUDIT_USER = "samops"
# An opted-in person is paged about alarms that opened within this long: a page says "new alarm", so one who
# opts in is not sent a day of old ones, and a notifier that was down a while still catches up.
NEW_ALARM_WINDOW_MS = 60 * 60_000


class Directory:
    """User groups' members from Slack (`usergroups.users.list`), remembered for GROUP_TTL_S and paced."""

    def __init__(self, client: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.clock = clock
        self._members: dict[str, tuple[float, tuple[str, ...]]] = {}
        self._pace = TokenBucket(GROUP_CALLS_PER_SECOND, 5, clock)

    def members(self, group: str) -> tuple[str, ...] | None:
        """The group's members; None when they cannot be asked now (paced, or Slack refused)."""
        known = self._members.get(group)
        if known is not None and self.clock() - known[0] < GROUP_TTL_S:
            return known[1]
        if not self._pace.take():
            return known[1] if known else None
        try:
            users = self.client.usergroups_users_list(usergroup=group).get("users") or []
        except Exception as err:  # noqa: BLE001  # SlackApiError or unreachable: the level waits, nothing lost
            log.info(
                "notify: members of user group %s unknown (%s); its pages wait", group, type(err).__name__
            )
            return known[1] if known else None
        members = tuple(str(u) for u in users)
        self._members[group] = (self.clock(), members)
        return members


@dataclass(frozen=True)
class Page:
    user: str
    alarm: Alarm  # the alarm the page carries (with its buttons) and is recorded under
    level: int
    why: str  # "taken", "target", "opted in"
    priority: Priority
    thread: Thread

    @property
    def key(self) -> str:
        return self.alarm.event_id


@dataclass
class Pager:
    db: sqlite_utils.Database
    config: NotifyConfig
    delivery: Delivery
    drawing: Callable[[], cards.Drawing]
    clock: Callable[[], int]
    priorities: Priorities = field(default_factory=Priorities)
    directory: Directory | None = None
    pace: TokenBucket = field(default_factory=lambda: TokenBucket(PAGES_PER_SECOND, PAGES_BURST))

    def run(self) -> int:
        """Send the pages that are due; returns how many were sent."""
        if not isinstance(self.delivery, SlackDelivery):
            return 0  # the console has nobody to page
        now = self.clock()
        prefs = cache.prefs_of_all(self.db)
        due = [*self._escalation_pages(now), *self._opt_in_pages(now, prefs)]
        done = cache.claimed_pages(self.db, [p.key for p in due])
        sent = 0
        for page in due:
            if (page.user, page.key, page.level) in done:
                continue
            mine = prefs.get(page.user) or PagePrefs(page.user)
            if not mine.allows(page.priority, now, self.config.zone_for(page.alarm.org_id)):
                continue  # off, or quiet hours: not claimed, so it goes out after them if still open
            if not self.pace.can_take():
                break
            sent += self._send(page, now, mine)
        return sent

    # --- who is due a page ----------------------------------------------------------------------------

    def _escalation_pages(self, now: int) -> list[Page]:
        escalator = Escalator(self.db, self.config, self.delivery, self.clock, self.priorities)
        routes = [r for r in self.config.routes if r.escalate_after]
        plans = [e for e in self.config.escalation.values() if e.escalate_after]
        if not (routes or plans):
            return []
        last = max(r.escalate_after[-1] for r in [*routes, *plans]) * 60_000
        channels = sorted({r.channel for r in routes} | (set(self.config.channels()) if plans else set()))
        pages: list[Page] = []
        for thread in open_threads(self.db, channels, now - int(last) - CATCH_UP_MS, now):
            done = max(lifecycle.escalated_levels(self.db, a.event_id) for a in thread.alarms)
            if not done or escalator.incident_handled(thread):  # an incident taken up is handled as one
                continue
            levels = escalator.levels(thread)  # the one rule of which levels apply
            priority = min(self.priorities.of(a) for a in thread.alarms)
            holders = self._holders(thread)
            reached = self._reached(thread)
            lead = self._lead(thread)
            for number, level in enumerate(levels[:done], start=1):
                # A taker is paged from the first level reached after they took it: a level already passed
                # when they took it is no news to them.
                since = reached.get(number)
                people = {h: "taken" for h, took in holders.items() if since is None or since > took}
                for user in self._people(level.targets):
                    people.setdefault(user, "target")
                pages += [Page(u, lead, number, why, priority, thread) for u, why in people.items()]
        return pages

    def _opt_in_pages(self, now: int, prefs: dict[str, PagePrefs]) -> list[Page]:
        wanting = [p for p in prefs.values() if p.enabled and p.priorities]
        if not wanting:
            return []
        pages: list[Page] = []
        for thread in open_threads(self.db, self.config.channels(), now - NEW_ALARM_WINDOW_MS, now):
            priority = min(self.priorities.of(a) for a in thread.alarms)
            pages += [
                Page(p.slack_user, self._lead(thread), NEW_ALARM_LEVEL, "opted in", priority, thread)
                for p in wanting
                if p.wants_new(priority)
            ]
        return pages

    def _lead(self, thread: Thread) -> Alarm:
        """The alarm a page about a card's thread carries: its most urgent open alarm, the oldest of those.
        A storm or incident card's thread holds alarms of several priorities, and the buttons of the page act
        on the alarm it carries, so that is the one that made the thread escalate."""
        return min(thread.alarms, key=lambda a: (self.priorities.of(a), a.activity_time, a.event_id))

    def _holders(self, thread: Thread) -> dict[str, int]:
        """Who took an alarm of the thread's card, and when they took it: a single card's taker, or whoever
        took any alarm of a storm card (taking does not acknowledge, so a taken alarm escalates until someone
        acknowledges it)."""
        ids = [e for e, _ in read.card_alarms(self.db, thread.channel, thread.ts)] or [
            a.event_id for a in thread.alarms
        ]
        holders: dict[str, int] = {}
        for event_id, state in lifecycle.states(self.db, ids).items():
            holder = state.holder
            if not holder or holder == lifecycle.SAMOPS:
                continue
            took = max(
                (
                    at
                    for at, by, change, _ in lifecycle.changes(self.db, event_id)
                    if change == lifecycle.Change.ASSIGNED.value and by == holder
                ),
                default=0,
            )
            holders[holder] = min(holders.get(holder, took), took)
        return holders

    def _reached(self, thread: Thread) -> dict[int, int]:
        """When the thread reached each escalation level (its alarms' 'escalated' records)."""
        reached: dict[int, int] = {}
        for alarm in thread.alarms:
            for at, _, change, note in lifecycle.changes(self.db, alarm.event_id):
                level = level_of(note) if change == lifecycle.Change.ESCALATED.value else None
                if level is not None:
                    reached[level] = min(reached.get(level, at), at)
        return reached

    def _people(self, targets: Iterable[str]) -> list[str]:
        """The people among escalation targets (mentions): users as they are, user groups' members."""
        people: list[str] = []
        for target in targets:
            if target.startswith("<@"):
                people.append(target[2:-1])
            elif target.startswith("<!subteam^") and self.directory is not None:
                people += self.directory.members(target.removeprefix("<!subteam^").rstrip(">")) or ()
        return list(dict.fromkeys(people))

    # --- sending --------------------------------------------------------------------------------------

    def _send(self, page: Page, now: int, prefs: PagePrefs) -> int:
        # Acknowledged since the look began (a click between cycles): no page after an acknowledgement.
        state = lifecycle.get(self.db, page.key)
        if state is not None and state.state is not lifecycle.State.OPEN:
            return 0
        if not cache.claim_page(self.db, page.user, page.key, page.level, page.why, now):
            return 0
        assert isinstance(self.delivery, SlackDelivery)
        try:
            channel, ts = self.delivery.post_direct(page.user, self._message(page, prefs))
        except (NotYet, DeliveryError) as err:
            cache.release_page(self.db, page.user, page.key, page.level)
            log.info("notify: page to %s about %s waits (%s)", page.user, page.key, err)
            return 0
        self.pace.spend()
        what = "new alarm" if page.level == NEW_ALARM_LEVEL else f"escalation level {page.level}"
        with cache.write_transaction(self.db):  # where the page went and its audit row, together
            cache.mark_page_sent(self.db, page.user, page.key, page.level, channel, ts)
            cache.record_audit(
                self.db,
                slack_user=AUDIT_USER,
                command=f"page {page.user}",
                outcome="ok",
                summary=f"paged {page.user} ({page.why}) by direct message: {what} of alarm {page.key}",
                reference=page.key,
                org_id=page.alarm.org_id,
                at=now,
            )
        log.info("notify: paged %s (%s) about %s, %s", page.user, page.why, page.key, what)
        return 1

    def _message(self, page: Page, prefs: PagePrefs) -> Rendered:
        """The page: a lead line over the alarm's card, drawn on the person's clock (a direct message is
        theirs alone): their Slack zone as last seen (`/sam notify-me`), else the organization's."""
        alarm = page.alarm
        drawing = self.drawing()

        def theirs(org_id: int | None) -> ZoneInfo:
            return timefmt.person_zone(prefs.zone, (drawing.org_zone_for or drawing.zone_for)(org_id))

        card = cards.draw_alarm(replace(drawing, zone_for=theirs), alarm)
        lead = render.page_lead(page.level, page.why, alarm, len(page.thread.alarms))
        blocks = [section(lead).to_dict(), *card.blocks]
        return Rendered(text=f"{lead}\n{card.text}", attachments=card.attachments, blocks=blocks)
