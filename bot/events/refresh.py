"""The App Home refresher: a daemon thread of the bot that looks at the cache every `SAMOPS_HOME_REFRESH`
seconds and, when anything a Home shows has changed (`core.read.home_fingerprint`: a few aggregates, not a
Home built), marks the Homes of the people who opened theirs recently to be looked at. Each wake it looks
at only as many as a slot is free for (`HomeTabs.can_look`: a build and a publish slot), oldest first, the
clicking first; the rest wait for the next wake. So its work follows Slack's pace and what changed, never
the number of Homes open: 2,000 Homes cost no more a second than 20. `HomeTabs.refresh` publishes only a
view that differs from the last one shown. After a click on a lifecycle button (`HomeTabs.poke`) it looks
every HOT_WAIT_S for a while, so the clicker's Home shows the change promptly.
"""

from __future__ import annotations

import logging
import threading

from bot.events.home import HomeTabs
from core.clock import now_ms
from core.read import home_fingerprint

log = logging.getLogger(__name__)

HOT_WAIT_S = 0.25
MIN_WAIT_S = 0.05


class HomeRefresher:
    def __init__(self, home: HomeTabs, interval: float) -> None:
        self._home = home
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="home-refresher", daemon=True)
        self._last: tuple[object, ...] | None = None

    def start(self) -> HomeRefresher:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop after the Home being published, if any."""
        self._stop.set()
        self._home.wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.cycle()
            except Exception as err:  # the cache locked or being migrated: look again next time
                log.warning("App Home refresh failed: %s", err, exc_info=log.isEnabledFor(logging.DEBUG))
            self._home.wake.wait(self._wait())
            self._home.wake.clear()

    def cycle(self) -> None:
        """One look: if the cache changed, everyone recent is to be looked at; then as many of those as
        there are slots for are refreshed, the clicking first."""
        users = self._home.recent_users()
        if not users:
            return
        ctx = self._home.ctx
        found = home_fingerprint(ctx.db(), now_ms(), ctx.config.priority_book())
        if found != self._last:
            self._home.changed(users)
            self._last = found
        if not self._home.can_look():
            return  # nothing could go out: not even the list of who is due is made
        hot = self._home.hot()
        for user in self._home.due(hot):
            if self._stop.is_set() or not self._home.can_look():
                return
            if self._home.refresh(user, urgent=user in hot) == "later":
                return  # a slot it needs (Slack's, the service's) is taken: so it is for those behind

    def _wait(self) -> float:
        wait = self._interval
        if self._home.hot():
            wait = min(wait, HOT_WAIT_S)
        retry = self._home.retry_in()
        if retry is not None:
            wait = min(wait, max(retry, MIN_WAIT_S))
        return wait
