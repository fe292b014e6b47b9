"""The App Home: each person's tab, published with `views.publish` when they open it and again whenever what
it shows changes (the refresher, `bot/events/refresh.py`, decides when to look).

`HomeTabs` holds, in memory, who opened their Home recently, the digest of the view each was last shown,
and the pace: a refresh publishes only a view that differs from the last one shown, no more often than
`SAMOPS_HOME_USER_GAP` per person and `SAMOPS_HOME_PUBLISH_RATE` per minute in all, and nothing at all
while a 429's Retry-After runs. A person's own acts (opening the tab, a click on it) are published at once.

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
from collections.abc import Callable
from typing import Any

from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.models.views import View

from bot.context import AppContext
from bot.events.channels import Memberships
from bot.notify.delivery import NotYet, Pacer
from bot.render.common import header, section
from bot.render.home import home_view, view_hash
from bot.roles import Role
from core.clock import now_ms
from core.read import HomeScope, home_data

log = logging.getLogger(__name__)

HOT_S = 15.0  # after a click on a card, look for its change this long at a quicker pace
_GLOBAL = ("views.publish", "home")


class HomeTabs:
    def __init__(self, ctx: AppContext, clock: Callable[[], float] = time.monotonic) -> None:
        settings = ctx.settings
        self.ctx = ctx
        self.clock = clock
        self.memberships = Memberships(ctx.web_client, settings.home_channels_ttl)
        self.recent_s = settings.home_recent
        self.wake = threading.Event()  # set to make the refresher look now
        self._pace = Pacer(settings.home_publish_rate / 60.0, clock)
        gap = settings.home_user_gap
        self._user_pace = Pacer(1.0 / gap if gap > 0 else 1e9, clock)
        self._lock = threading.Lock()
        self._user_locks: dict[str, threading.Lock] = {}
        self._opened: dict[str, float] = {}  # user -> when they last opened their Home
        self._shown: dict[str, str] = {}  # user -> digest of the view last published
        self._notes: dict[str, str] = {}  # user -> the answer to their last click on the Home
        self._pending: set[str] = set()  # users whose refresh was put off (pace, 429)
        self._hot: dict[str, float] = {}  # user -> until when to look quickly for their click's change
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
                for kept in (self._opened, self._shown, self._notes, self._hot, self._user_locks):
                    kept.pop(user, None)
                self._pending.discard(user)
            return sorted(self._opened)

    def pending(self) -> set[str]:
        with self._lock:
            return set(self._pending)

    def hot(self) -> set[str]:
        now = self.clock()
        with self._lock:
            self._hot = {u: until for u, until in self._hot.items() if until > now}
            return set(self._hot)

    def retry_in(self) -> float | None:
        """Seconds until a refresh put off may go out (None: none is)."""
        with self._lock:
            pending = set(self._pending)
            blocked = max(0.0, self._blocked_until - self.clock())
        if not pending:
            return None
        everyone = max(self._pace.wait(*_GLOBAL), blocked)
        return max(everyone, min(self._user_pace.wait(user, "home") for user in pending))

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
        data = home_data(ctx.db(), user, scope, now_ms())
        view = home_view(data, answer.sentence(), config.zone_for, url, why, note,
                         can_act=answer.role >= Role.TECHNICIAN)  # fmt: skip
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
        429) or "failed". `urgent` (their own act) skips the pace, not a 429."""
        outcome = self._refresh(user, urgent)
        log.debug("App Home of %s: %s", user, outcome)
        return outcome

    def _refresh(self, user: str, urgent: bool) -> str:
        with self._user_lock(user):
            view = self.build(user)
            digest = view_hash(view)
            with self._lock:
                if self._shown.get(user) == digest:
                    self._pending.discard(user)
                    return "unchanged"
                if not self._take_slot(user, urgent):
                    self._pending.add(user)
                    return "later"
            return self._publish(user, view, digest)

    def _take_slot(self, user: str, urgent: bool) -> bool:
        """Whether a publish may go out now (and if so, its slot is taken). Called under self._lock."""
        if self._blocked_until > self.clock():
            return False  # Slack's Retry-After holds for everyone, a person's own act included
        if not urgent and (self._pace.wait(*_GLOBAL) > 0 or self._user_pace.wait(user, "home") > 0):
            return False
        try:
            self._pace.take(*_GLOBAL)
        except NotYet:
            # A person's own act goes out at once; the refreshes behind it wait a slot longer.
            self._pace.push_back(*_GLOBAL, self._pace.spacing)
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
                    self._pending.add(user)
                self._pace.push_back(*_GLOBAL, wait)
                log.info("views.publish: Slack asked to wait %.0f s; Homes are refreshed after that", wait)
                return "later"
            log.warning("views.publish for %s failed: %s", user, err.response.get("error"))
            return "failed"
        except (SlackClientError, OSError) as err:
            log.warning("views.publish for %s failed: %s", user, type(err).__name__)
            with self._lock:
                self._pending.add(user)
            return "failed"
        with self._lock:
            self._shown[user] = digest
            self._pending.discard(user)
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
