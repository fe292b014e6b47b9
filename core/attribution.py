"""Which panel each new activity belongs to, found by group testing over operation 3.

The spec's Activity record names no panel. decisions.md ("which panel an activity belongs to"): an activity
is known to be a panel's only when a request whose `resourceIds` held that panel alone returned it; a
request over many panels only says whether anything is new. So:

- one request (page after page when the window is fuller than a page) over all of an organization's
  panels; when every record in it is already in the cache, nothing is new and that was the whole cost;
- a new record that carries a panel id (not a spec field; a service may send one) which is one of the
  panels asked about is attributed to that panel directly;
- for the rest, the panel set is split in halves and each half asked again, all halves of a level at
  once; a half whose answer holds nothing new is dropped, and a single panel's answer is that panel's.

`k` active panels among `n` cost about `2·k·log2(n/k)` small requests, in `log2(n)` rounds; a group with
as many new records as panels, on a first poll over a day's history, is asked panel by panel at once.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from core.client import SamClient
from core.models import Activity

# Which of these event ids the cache already holds with a panel: called on the caller's thread only.
Known = Callable[[Collection[str]], set[str]]


@dataclass(frozen=True)
class Attributed:
    activity: Activity
    panel: int


@dataclass
class GroupTest:
    """The activities of one organization's panels in [start, end) that the cache does not know yet, each
    with the panel it belongs to. `rounds` counts the levels of splitting asked (1: nothing to split)."""

    client: SamClient
    org: int | None
    start: int
    end: int
    known: Known
    concurrency: int = 8
    dense: bool = False  # expect most panels to have something new (a first poll reading history)
    # Called before each request, page by page (reconciliation's pacing: core/history.py); None: unpaced.
    pace: Callable[[], None] | None = None
    rounds: int = 0
    _found: dict[str, Attributed] = field(default_factory=dict)

    def run(self, panel_ids: Sequence[int]) -> list[Attributed]:
        groups = [list(dict.fromkeys(panel_ids))] if panel_ids else []
        workers = max(1, self.concurrency)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="attribution") as pool:
            while groups:
                self.rounds += 1
                answers = list(pool.map(self._ask, groups))  # a failure raises here: the caller retries
                groups = [
                    half
                    for group, records in zip(groups, answers, strict=True)
                    for half in self._settle(group, records)
                ]
        found = self._found.values()
        return sorted(found, key=lambda f: (f.activity.activity_time or 0, f.activity.event_id or ""))

    def _ask(self, group: list[int]) -> list[Activity]:
        if self.pace is not None:
            return paced_activities(self.client, self.pace, group, self.start, self.end, self.org)
        pages = self.client.iter_activities(group, start_time=self.start, end_time=self.end, org=self.org)
        return list(pages)

    def _settle(self, group: list[int], records: list[Activity]) -> list[list[int]]:
        """Attribute what this answer proves; return the halves still worth asking."""
        fresh = self._new(records)
        if not fresh:
            return []
        asked = set(group)
        unnamed: list[Activity] = []
        for activity in fresh:
            if len(group) == 1:
                self._found[activity.event_id or ""] = Attributed(activity, group[0])
            elif activity.resource_id in asked:
                self._found[activity.event_id or ""] = Attributed(activity, int(activity.resource_id or 0))
            else:
                unnamed.append(activity)
        if not unnamed:
            return []
        if self.dense and len(unnamed) >= len(group) > 2:
            # A day's history on a first poll: most panels have something, and halving would cost about
            # twice as much as asking every panel alone. (Not in general: one panel's storm is many records.)
            return [[panel] for panel in group]
        middle = len(group) // 2
        return [group[:middle], group[middle:]]

    def _new(self, records: list[Activity]) -> list[Activity]:
        ids = [a.event_id for a in records if a.event_id is not None]
        known = self.known(ids) | set(self._found)
        seen: set[str] = set()
        fresh: list[Activity] = []
        for activity in records:
            eid = activity.event_id
            if eid is None or eid in known or eid in seen:
                continue  # no eventId: nothing can de-duplicate it, so it is not stored (as in the sync)
            seen.add(eid)
            fresh.append(activity)
        return fresh


def paced_activities(
    client: SamClient, pace: Callable[[], None], ids: Sequence[int], start: int, end: int, org: int | None
) -> list[Activity]:
    """Every activity of operation 3 over `ids` in [start, end), `pace()` before each page."""
    size, page = client.settings.page_size, client.settings.first_page
    found: dict[str | None, Activity] = {}
    while True:
        pace()
        answer = client.list_activities(
            ids, page=page, page_size=size, org=org, start_time=start, end_time=end
        )
        items = answer.activities or []
        for activity in items:
            found.setdefault(activity.event_id, activity)
        page += 1
        total = answer.total_records
        if len(items) < size or (total is not None and (page - client.settings.first_page) * size >= total):
            return list(found.values())


__all__ = ["Attributed", "GroupTest", "Known", "paced_activities"]
