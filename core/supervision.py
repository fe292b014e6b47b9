"""Silent-panel supervision: a panel that has shown no activity of any kind and no controller update
(operation 19's `lastUpdate`) for `silent_after` raises one "communication lost" alarm, and when it reports
again that alarm is resolved by samops, "restored after 26 h".

Computed from the cache alone (core/read/supervision.py): the poller and the tiered refresh already keep
what it reads, so supervision costs the service no request. The alarm is samops' own (no service eventId):
its id is `silent:<panel>:<silent-since-ms>` (core.alarms.SUPERVISION_PREFIX), the same for one silence
whoever computes it and whenever, so the outbox posts it once across restarts; it goes through the one
pipeline of every alarm (bot/notify/service.py discovers it with the service's). Its records:
core/cache/supervision.py. What users see: docs/supervision.md.

```toml
[supervision]
silent_after = "24h"              # every panel's; "off" turns supervision off
orgs = { 1001 = "12h" }           # an organization's, over the default
panels = { 100101 = "2h", 100102 = "off" }   # a panel's, over its organization's
```
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict

from core import lifecycle
from core.alarms import SUPERVISION_PREFIX, Alarm
from core.cache import outbox
from core.cache import supervision as stored
from core.cache.supervision import Episode
from core.cache.transactions import joined
from core.clock import DAY_MS, HOUR_MS, MINUTE_MS
from core.lifecycle import SAMOPS, Change
from core.read.supervision import Heard, last_heard
from core.sqlite_lib import sqlite_utils
from core.text import duration

# The alarm's record, as an activity row: its own eventType (a [[priorities]] rule or a [notify] route can
# name it), the violationType whose default priority it takes (P2, core/priorities.py) and its name.
EVENT_TYPE = "supervision"
VIOLATION_TYPE = "error"
NAME = "Communication lost"

DEFAULT_AFTER_MS = DAY_MS
_AFTER = re.compile(r"(\d+(?:\.\d+)?)\s*(m|min|h|d)", re.IGNORECASE)
_UNIT_MS = {"m": MINUTE_MS, "min": MINUTE_MS, "h": HOUR_MS, "d": DAY_MS}
MIN_AFTER_MS = MINUTE_MS  # shorter would call a panel silent between two polls; a minute is for trying it out


def parse_after(value: Any) -> int | None:
    """`silent_after` in ms: "24h", "90m", "2d"; None for "off". A bare number is refused (hours or
    minutes?)."""
    if value is None or (isinstance(value, str) and value.strip().lower() == "off"):
        return None
    if isinstance(value, str) and (match := _AFTER.fullmatch(value.strip())):
        ms = int(float(match[1]) * _UNIT_MS[match[2].lower()])
        if not MIN_AFTER_MS <= ms <= 365 * DAY_MS:
            raise ValueError("must be at least 1 minute and at most 365 days")
        return ms
    raise ValueError(f'{value!r} is not a time like "24h", "90m" or "2d", or "off"')


# A silent_after as the TOML gives it (a text), in ms; each value is checked where it stands, so a bad one is
# refused naming its field (`supervision.panels.100101`).
After = Annotated[int | None, BeforeValidator(parse_after)]


class SupervisionConfig(BaseModel):
    """`[supervision]`: how long a panel may say nothing before it is silent; the most specific wins (the
    panel's, its organization's, the default). Parsed once with the config (core/config/model.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    silent_after: After = DEFAULT_AFTER_MS
    orgs: dict[int, After] = {}
    panels: dict[int, After] = {}

    def describe(self) -> str:
        """One line for `samops notify --check-config`."""

        def said(after: int | None) -> str:
            return "off" if after is None else duration(after / 1000)

        parts = [f"silent panels: after {said(self.silent_after)}"]
        parts += [f"organization {org}: {said(after)}" for org, after in sorted(self.orgs.items())]
        parts += [f"panel {panel}: {said(after)}" for panel, after in sorted(self.panels.items())]
        return "; ".join(parts) + ' (a "communication lost" alarm each, docs/supervision.md)'

    def after_for(self, org: int | None, panel: int) -> int | None:
        """The silent_after of a panel in ms, None when it is not supervised."""
        if panel in self.panels:
            return self.panels[panel]
        if org is not None and org in self.orgs:
            return self.orgs[org]
        return self.silent_after


def event_id(panel: int, since: int) -> str:
    """The alarm's id: one per silence of one panel, never a service eventId (SUPERVISION_PREFIX); read
    back by core.alarms.silent_since."""
    return f"{SUPERVISION_PREFIX}{panel}:{since}"


def restored_note(silent_ms: int) -> str:
    """What the resolved card and its thread say: "restored after 26 h"."""
    return f"restored after {duration(silent_ms / 1000)}"


def _description(heard: Heard, after_ms: int, now: int) -> str:
    """Stored with the alarm, so it names no clock time: the card shows the alarm's own time in its
    organization's zone, and this says how long before it the panel was last heard."""
    said = f"No activity and no controller update for at least {duration(after_ms / 1000)}"
    if heard.last is None:
        return f"{said} (nothing heard since samops started)"
    return f"{said} (last heard {duration(max(0, now - heard.last) / 1000)} before this alarm)"


def _episode(heard: Heard, since: int, after_ms: int, now: int) -> Episode:
    eid = event_id(heard.resource_id, since)
    # ACTIVITY_FIELDS order; msgType, vioType and group are the service's and stay empty.
    row = (eid, heard.resource_id, heard.org_id, now, _description(heard, after_ms, now), EVENT_TYPE, NAME,
           VIOLATION_TYPE, None, None, None)  # fmt: skip
    return Episode(eid, heard.resource_id, heard.org_id, since, heard.last, now, after_ms, row)


def _alarm(episode: Episode, name: str | None) -> Alarm:
    r = episode.row
    return Alarm(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], name)


@dataclass(frozen=True)
class Restored:
    episode: Episode
    unchanged: str = ""  # why samops changed nothing: "already resolved", "held back" (never posted)


def raise_silent(
    db: sqlite_utils.Database,
    config: SupervisionConfig,
    now: int,
    watching_since: int,
    watched: Collection[int] | None = None,
) -> list[Alarm]:
    """Record an episode and its alarm row for every panel silent now that has none open; returns their
    alarms, for discovery to take in (the caller's transaction). Silence is counted from the last sign of
    life, but never from before `watching_since` (the notifier's first start): a first start does not page
    about every panel that was quiet for days before samops watched it. `watched`: the panels whose
    activities samops is reading (the poller's); None: every panel of the cache."""
    episodes = stored.open_episodes(db)
    raised: list[Alarm] = []
    for heard in last_heard(db):
        after = config.after_for(heard.org_id, heard.resource_id)
        if after is None or heard.resource_id in episodes:
            continue
        if watched is not None and heard.resource_id not in watched:
            continue  # not polled (another organization, removed from the service): its silence is ours
        since = max(heard.last or watching_since, watching_since)
        if now - since < after:
            continue
        episode = _episode(heard, since, after, now)
        stored.raise_episode(db, episode)
        raised.append(_alarm(episode, heard.name))
    return raised


def restore_reporting(db: sqlite_utils.Database, now: int) -> list[Restored]:
    """Close the episode of every panel that reported since it fell silent and resolve its alarm as samops,
    "restored after …" (the caller's transaction). A panel no longer supervised or no longer listed keeps
    its episode until it reports."""
    episodes = stored.open_episodes(db)
    if not episodes:
        return []
    done: list[Restored] = []
    for heard in last_heard(db, list(episodes)):
        episode = episodes.get(heard.resource_id)
        if episode is None or heard.last is None or heard.last <= episode.since:
            continue
        # How long it was silent: from its last sign of life (before samops watched, if so), else from then.
        note = restored_note(now - (episode.last_heard if episode.last_heard is not None else episode.since))
        closed = replace(episode, restored_at=now, restored_note=note)
        stored.restore_episode(db, closed)
        if lifecycle.get(db, episode.event_id) is None:
            # Held back by a silence or maintenance window: never posted, so no lifecycle to close.
            done.append(Restored(closed, "held back by a silence or maintenance window"))
            continue
        outcome = lifecycle.apply(
            db, episode.event_id, Change.RESOLVED, SAMOPS, now, opened_at=episode.raised_at, note=note
        )
        done.append(Restored(closed, outcome.reason))
    return done


def any_episode(db: sqlite_utils.Database) -> bool:
    """Whether a panel is silent now, or a restored one is still to be told (else there is nothing to do)."""
    return outbox.any_state(db, stored.PREFIX)


def restore_rows(db: sqlite_utils.Database) -> int:
    """Write again the alarm rows the cache lost (emptied, refilled) from the records; returns how many."""
    return stored.restore_rows(db)


def untold(db: sqlite_utils.Database) -> list[Episode]:
    """Restored episodes whose card and thread are still to be told."""
    return stored.untold(db)


def telling(db: sqlite_utils.Database, episode: Episode) -> None:
    """Keep how far telling a restored episode got (its thread posted, tries Slack refused)."""
    with joined(db):
        stored.telling(db, episode)


def told(db: sqlite_utils.Database, episode: Episode) -> None:
    with joined(db):
        stored.told(db, episode)


def awaiting_post(db: sqlite_utils.Database, event_id: str) -> bool:
    """Whether the alarm's card is still to be posted (it will be drawn as it stands then)."""
    entry = outbox.entry(db, event_id)
    return entry is not None and entry[1] == outbox.PENDING


__all__ = [
    "EVENT_TYPE",
    "NAME",
    "Episode",
    "Restored",
    "SupervisionConfig",
    "any_episode",
    "awaiting_post",
    "event_id",
    "parse_after",
    "raise_silent",
    "restore_reporting",
    "restore_rows",
    "restored_note",
    "telling",
    "told",
    "untold",
]
