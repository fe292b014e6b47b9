"""Each person's own time zone as Slack gives it (users.info `tz`), asked once per person per TTL.

What a person reads themselves (a `/sam` answer, their App Home, the zone `/sam notify-me` records for their
pages and quiet hours) is on their clock: `core.timefmt.person_zone`, their Slack zone where Slack gives it,
else the organization's. Channel cards, which many read, stay on the organization's clock.

A failed or unasked lookup is never an error to the person: their answer is on the organization's clock
(or on the zone known from before), and the failure is a WARNING line that names no one's zone.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from zoneinfo import ZoneInfo

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.pace import TokenBucket
from core import timefmt

log = logging.getLogger(__name__)

ZoneFor = Callable[[int | None], ZoneInfo]  # an organization's zone (NotifyConfig.zone_for)

TTL_S = 3600.0  # a person's zone is asked again after this long (people travel; Slack rarely changes it)
# users.info is Tier 4 (100+ a minute), shared with the role lookups (one a second, bot/roles_service.py,
# whose answers `learn` reads, so a person looked up there costs no second call): at most one ask every 2 s
# past a burst of 10, so both stay within the tier in a flood of commands or Homes from new people (past
# it, the zone known from before, else the organization's).
ASKS_PER_S = 0.5
ASKS_BURST = 10.0


class PersonZones:
    """The Slack zone of each person, cached for `ttl` seconds (the answer, or that there was none)."""

    def __init__(
        self,
        web_client: WebClient | None,
        ttl: float = TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._web = web_client  # None: no Slack to ask (a local run): everyone on the organization's clock
        self.ttl = ttl
        self.clock = clock
        self._asks = TokenBucket(ASKS_PER_S, ASKS_BURST, clock)
        self._lock = threading.Lock()
        self._known: dict[str, tuple[str | None, float]] = {}  # user -> (zone name or None, asked at)
        # Told each zone Slack gave for a person (once per TTL): `AppContext` records it for their pages.
        self.on_zone: Callable[[str, str], None] | None = None

    def slack_zone(self, user: str) -> str | None:
        """The person's Slack zone name (users.info `tz`), None where Slack gives none or was not reached."""
        if self._web is None or not user:
            return None
        now = self.clock()
        with self._lock:
            known = self._known.get(user)
        if known is not None and now - known[1] < self.ttl:
            return known[0]
        before = known[0] if known is not None else None
        if not self._asks.take():
            return before
        answered, found = self._ask(user)
        zone = found if answered else before  # a failed ask keeps what was known, until the next TTL
        self._keep(user, zone if answered else None, zone, now)
        return zone

    def learn(self, user: str, record: object) -> None:
        """A users.info answer's `user` record read elsewhere (a role lookup): its `tz` kept as if asked."""
        zone = _tz_of(record)
        self._keep(user, zone, zone, self.clock())

    def _keep(self, user: str, given: str | None, zone: str | None, at: float) -> None:
        """Remember `zone` for `user`; tell `on_zone` of a zone Slack just `given`."""
        with self._lock:
            self._known[user] = (zone, at)
        if given is not None and self.on_zone is not None:
            self.on_zone(user, given)

    def reader(self, user: str, zone_for: ZoneFor) -> ZoneFor:
        """`zone_for` as `user` reads it: their own zone for every organization where Slack gives one
        (`core.timefmt.person_zone`), else each organization's. Slack is asked at first use, not before."""
        asked: list[str | None] = []

        def theirs(org_id: int | None) -> ZoneInfo:
            if not asked:
                asked.append(self.slack_zone(user))
            return timefmt.person_zone(asked[0], zone_for(org_id))

        return theirs

    def _ask(self, user: str) -> tuple[bool, str | None]:
        """(whether Slack answered, the zone it gave: None for none, or one this machine does not know)."""
        assert self._web is not None
        try:
            answer = self._web.users_info(user=user)
        except SlackApiError as err:
            log.warning("users.info of %s failed: %s", user, err.response.get("error") or "error")
            return False, None
        except (SlackClientError, OSError) as err:
            log.warning("users.info of %s failed: %s", user, type(err).__name__)
            return False, None
        return True, _tz_of(answer.get("user"))


def _tz_of(record: object) -> str | None:
    """A users.info `user` record's `tz`: None for none, or one this machine does not know."""
    found = record.get("tz") if isinstance(record, dict) else None
    return found if isinstance(found, str) and timefmt.zone(found) is not None else None
