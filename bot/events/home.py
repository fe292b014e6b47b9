"""The App Home: each person's tab, published with `views.publish` when they open it and again whenever what
it shows changes (the refresher, `bot/events/refresh.py`, decides when to look).

`HomeTabs` holds, in memory, who opened their Home recently, the digest of the view each was last shown,
and the pace: a refresh publishes only a view that differs from the last one shown, no more often than
`SAMOPS_HOME_USER_GAP` per person and `SAMOPS_HOME_PUBLISH_RATE` per minute in all, and nothing at all
while a 429's Retry-After runs. A person's own acts (opening the tab, a click on it) are published at once,
from a burst of PUBLISH_BURST kept for them, at most once per URGENT_GAP_S per person; beyond that they
wait their turn. A Home is built only when it could be published and the calls it needs fit: Slack's
tiers (views.publish tier 4, 100+ a minute; users.conversations tier 3, 50+ a minute, bot/events/channels.py)
and the service's budget for role lookups (bot/roles_service.py); at most BUILDS_PER_S builds a second.
A flood of 1,000 `app_home_opened` thus costs a few publishes at once and the rest at the pace.

Why memory and not a cache table: only this process publishes, Slack sends `app_home_opened` each time a
person opens the tab (so the list refills itself after a restart at the first look), and a table would
add a write per opening for nothing a restart needs; after a restart the first refresh of each person
publishes again, since no digest is known.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.models.views import View

from bot.context import AppContext
from bot.events.channels import Memberships
from bot.notify.delivery import NotYet, Pacer
from bot.pace import TokenBucket
from bot.render.common import header, section
from bot.render.home import home_view, view_hash
from bot.roles import Role
from core.clock import now_ms
from core.keyholders import contexts as keyholder_contexts
from core.read import HomeScope, home_data

log = logging.getLogger(__name__)

HOT_S = 15.0  # after a click on a card, look for its change this long at a quicker pace
SLACK_PUBLISH_PER_MINUTE = 100  # views.publish is in Slack's rate tier 4: 100+ a minute
PUBLISH_BURST = 10  # publishes saved up for people's own acts (opening the tab, a click), beyond the rate
URGENT_GAP_S = 3.0  # one person's own acts are published at once at most this often; the rest, paced
BUILDS_PER_S = 5.0  # Homes built (read from the cache) a second, published or not, and ...
BUILD_BURST = 10.0  # ... at most this many at once: the refresher's work does not grow with the Homes open


class HomeTabs:
    def __init__(self, ctx: AppContext, clock: Callable[[], float] = time.monotonic) -> None:
        settings = ctx.settings
        self.ctx = ctx
        self.clock = clock
        self.memberships = Memberships(ctx.web_client, settings.home_channels_ttl)
        self.recent_s = settings.home_recent
        self.wake = threading.Event()  # set to make the refresher look now
        rate = settings.home_publish_rate
        # Any minute: at most `rate` + the burst, which is kept within Slack's tier.
        self._publishes = TokenBucket(rate / 60.0, min(PUBLISH_BURST, SLACK_PUBLISH_PER_MINUTE - rate), clock)
        self._keep = (self._publishes.capacity - 1) / 2  # refreshes leave half the burst to people's acts
        self._builds = TokenBucket(BUILDS_PER_S, BUILD_BURST, clock)
        gap = settings.home_user_gap
        self._user_pace = Pacer(1.0 / gap if gap > 0 else 1e9, clock)
        self._lock = threading.Lock()
        self._user_locks: dict[str, threading.Lock] = {}
        self._opened: dict[str, float] = {}  # user -> when they last opened their Home
        self._shown: dict[str, str] = {}  # user -> digest of the view last published
        self._notes: dict[str, str] = {}  # user -> the answer to their last click on the Home
        self._pending: dict[str, None] = {}  # users to look at (changed, put off), oldest first
        self._hot: dict[str, float] = {}  # user -> until when to look quickly for their click's change
        self._urgent_at: dict[str, float] = {}  # user -> when their own act was last published at once
        # user -> when their own act (an opening, a click) found no slot: served before the other pending,
        # newest first, so a person opening their Home after a flood of opens does not wait behind it
        self._asked: dict[str, float] = {}
        self._blocked_until = 0.0  # a 429's Retry-After: nothing is published before

    # -- what the listeners call ---------------------------------------------------------------------

    def opened(self, user: str) -> None:
        """The person opened their Home: publish it now, even if unchanged (what Slack holds may be another
        process's, or the previous samops'), and a note from an earlier click is done with."""
        with self._lock:
            self._opened[user] = self.clock()
            self._notes.pop(user, None)
            self._shown.pop(user, None)
        self.refresh(user, urgent=True)

    def note(self, user: str, text: str) -> None:
        """Answer a click on the Home in the Home itself (a Home click has no channel to answer in)."""
        with self._lock:
            self._notes[user] = text
        self.refresh(user, urgent=True)

    def poke(self, user: str) -> None:
        """The person clicked a lifecycle button somewhere: their Home should show the change promptly."""
        with self._lock:
            if user not in self._opened:
                return
            self._hot[user] = self.clock() + HOT_S
        self.wake.set()

    # -- what the refresher calls --------------------------------------------------------------------

    def recent_users(self) -> list[str]:
        """Who opened their Home within SAMOPS_HOME_RECENT; the others are forgotten."""
        cutoff = self.clock() - self.recent_s
        with self._lock:
            for user in [u for u, at in self._opened.items() if at < cutoff]:
                for kept in (
                    self._opened,
                    self._shown,
                    self._notes,
                    self._hot,
                    self._user_locks,
                    self._pending,
                    self._urgent_at,
                    self._asked,
                ):
                    kept.pop(user, None)
            return list(self._opened)

    def changed(self, users: list[str]) -> None:
        """What Homes show changed: each of `users` is to be looked at, at the pace kept (not here)."""
        with self._lock:
            self._pending.update(dict.fromkeys(u for u in users if u in self._opened))

    def pending(self) -> set[str]:
        with self._lock:
            return set(self._pending)

    def due(self, hot: set[str]) -> Iterator[str]:
        """The people to look at now, the clicking first, then the others pending past their own gap, oldest
        first; lazily, as the refresher stops at the first that finds no slot."""
        with self._lock:
            pending = list(self._pending)
            asked = sorted(
                (u for u in pending if u in self._asked), key=self._asked.__getitem__, reverse=True
            )
        yield from (u for u in pending if u in hot)
        yield from (u for u in asked if u not in hot)
        yield from (
            u for u in pending if u not in hot and u not in asked and self._user_pace.wait(u, "home") <= 0
        )

    def can_look(self) -> bool:
        """Whether a refresh may be looked at now: a build and a publish slot are free (nothing is built
        that could not be published: the refresher's work is bounded by Slack's pace, not by the Homes)."""
        with self._lock:
            blocked = self._blocked_until > self.clock()
        return not blocked and self._builds.can_take() and self._publishes.can_take(keep=self._keep)

    def hot(self) -> set[str]:
        now = self.clock()
        with self._lock:
            self._hot = {u: until for u, until in self._hot.items() if until > now}
            return set(self._hot)

    def retry_in(self) -> float | None:
        """Seconds until a refresh put off may go out (None: none is)."""
        with self._lock:
            pending = list(self._pending)
            blocked = max(0.0, self._blocked_until - self.clock())
        if not pending:
            return None
        service = self.ctx.roles.service
        lookups = service.wait() if service is not None else 0.0
        everyone = max(self._publishes.wait(keep=self._keep), self._builds.wait(), blocked)
        everyone = max(everyone, min(self.memberships.calls.wait(), lookups))  # often one is known already
        # The oldest pending decide: the others wait their turn behind them anyway.
        return max(everyone, min(self._user_pace.wait(user, "home") for user in pending[:100]))

    # -- building and publishing ---------------------------------------------------------------------

    def build(self, user: str) -> View:
        ctx = self.ctx
        answer = ctx.roles.explain(user)
        if answer.role is Role.NONE:
            return View(type="home", blocks=[header("samops"), section(ctx.roles.refusal())])
        with self._lock:
            note = self._notes.get(user)
        scope, why = self.scope_of(user)
        config, url = ctx.config.notify, ctx.dashboard_url
        data = home_data(ctx.db(), user, scope, now_ms(), priorities=ctx.config.priority_book())
        # Access windows are the service's, read on each organization's clock (the card's rule); every other
        # time on the person's own (their Slack zone, else the organization's).
        lines = keyholder_contexts(ctx.db(), [a.alarm for a in data.alarms + data.assigned], config.zone_for)
        view = home_view(
            data,
            answer.sentence(),
            ctx.reader_zones(user),
            url,
            why,
            note,
            can_act=answer.role >= Role.TECHNICIAN,
            keyholders=lines,
            windows_zone_for=config.zone_for,
        )
        return view

    def scope_of(self, user: str) -> tuple[HomeScope, str]:
        """Where the person works, and how that was decided, in words for the Home."""
        channels = self.memberships.of(user)
        service = self.ctx.roles.service
        found = service.lookup(user) if service is not None else None
        orgs = frozenset(found.org_ids) if found is not None and found.org_ids else None
        scope = HomeScope(channels.ids, orgs)
        if not scope.known:
            reasons = [channels.why] + ([found.why] if found is not None and found.why else [])
            return (
                scope,
                f"samops cannot tell where you work ({'; '.join(reasons)}): every open alarm is listed.",
            )
        bases = []
        if channels.ids is not None:
            bases.append("posted to channels you are in")
        if orgs:
            bases.append(f"of your organizations in the service ({', '.join(map(str, sorted(orgs)))})")
        return scope, "Alarms " + " and ".join(bases) + "."

    def refresh(self, user: str, urgent: bool = False) -> str:
        """Publish the person's Home if it changed: "published", "unchanged", "later" (paced, or Slack said
        429) or "failed". `urgent` (their own act) skips the pace, not a 429, Slack's tiers, nor the gap
        between one person's own acts (URGENT_GAP_S): a flood of opens is published at the pace."""
        with self._lock:
            idle = not self._pending
        outcome = self._refresh(user, urgent)
        log.debug("App Home of %s: %s", user, outcome)
        if outcome == "later" and idle:
            self.wake.set()  # the refresher was not minding anyone: it sends this one when a slot is free
        return outcome

    def _refresh(self, user: str, urgent: bool) -> str:
        with self._user_lock(user):
            with self._lock:
                own_act = urgent
                urgent = urgent and self.clock() - self._urgent_at.get(user, -URGENT_GAP_S) >= URGENT_GAP_S
                if not self._may_build(user, urgent):
                    self._pending[user] = None
                    if own_act:
                        self._asked[user] = self.clock()
                    return "later"
            view = self.build(user)
            digest = view_hash(view)
            with self._lock:
                if self._shown.get(user) == digest:
                    self._pending.pop(user, None)
                    self._asked.pop(user, None)
                    return "unchanged"
                if not self._take_slot(user, urgent):
                    self._pending[user] = None
                    if own_act:
                        self._asked[user] = self.clock()
                    return "later"
            return self._publish(user, view, digest)

    def _may_build(self, user: str, urgent: bool) -> bool:
        """Whether the Home may be built now (its build slot taken): only when it could be published, and
        the calls it needs (users.conversations, a role lookup) fit Slack's tier and the service's budget.
        Called under self._lock."""
        if self._blocked_until > self.clock():
            return False
        keep = 0.0 if urgent else self._keep
        if not self._publishes.can_take(keep=keep):
            return False
        if not urgent and self._user_pace.wait(user, "home") > 0:
            return False
        service = self.ctx.roles.service
        if not self.memberships.can_ask(user):
            return False
        if service is not None and not service.cached(user) and not service.slot_free():
            return False
        return self._builds.take()

    def _take_slot(self, user: str, urgent: bool) -> bool:
        """Whether a publish may go out now (and if so, its slot is taken). Called under self._lock."""
        if self._blocked_until > self.clock():
            return False  # Slack's Retry-After holds for everyone, a person's own act included
        if not self._publishes.take(keep=0.0 if urgent else self._keep):
            return False
        if urgent:
            self._urgent_at[user] = self.clock()
        with contextlib.suppress(NotYet):  # an urgent one: this person's gap counts from their last refresh
            self._user_pace.take(user, "home")
        return True

    def _publish(self, user: str, view: View, digest: str) -> str:
        try:
            self.ctx.web_client.views_publish(user_id=user, view=view)
        except SlackApiError as err:
            if err.response.status_code == 429:
                wait = float(err.response.headers.get("Retry-After", 1) or 1)
                with self._lock:
                    self._blocked_until = max(self._blocked_until, self.clock() + wait)
                    self._pending[user] = None
                self._publishes.hold(wait)
                log.info("views.publish: Slack asked to wait %.0f s; Homes are refreshed after that", wait)
                return "later"
            log.warning("views.publish for %s failed: %s", user, err.response.get("error"))
            return "failed"
        except (SlackClientError, OSError) as err:
            log.warning("views.publish for %s failed: %s", user, type(err).__name__)
            with self._lock:
                self._pending[user] = None
            return "failed"
        with self._lock:
            self._shown[user] = digest
            self._pending.pop(user, None)
            self._asked.pop(user, None)
        return "published"

    def _user_lock(self, user: str) -> threading.Lock:
        with self._lock:
            return self._user_locks.setdefault(user, threading.Lock())


class HomeAnswer:
    """Bolt's `respond` for a click on the Home, which comes with no response_url: the answer is shown at
    the top of the person's Home instead."""

    def __init__(self, home: HomeTabs, user: str) -> None:
        self._home = home
        self._user = user

    def __call__(self, text: str = "", **_: Any) -> None:
        self._home.note(self._user, text)

    def __deepcopy__(self, memo: dict[int, Any]) -> HomeAnswer:
        # bolt deep-copies a request's context for each lazy function; this is a handle on the one HomeTabs
        # (its locks cannot be copied, and a copy would answer on a Home no one sees), so it is shared.
        return self
