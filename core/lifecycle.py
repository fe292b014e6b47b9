"""The alarm lifecycle: an alarm is open, then acknowledged, then resolved, and may be assigned to one person
at any time before it is resolved. The one definition of the states, the changes and which change is
allowed from which state; every change is applied in one write transaction to `alarm_state` (where the alarm
is now) and `alarm_changes` (who changed what, when, with which note).

Changes are idempotent: acknowledging an acknowledged alarm, or resolving a resolved one, changes nothing and
says so (`Outcome.changed` False, `Outcome.reason`), so a double click or a Slack retry never writes twice.
"Taking" an alarm ("I'm on it") assigns it and nothing more: an open alarm that is taken stays open, keeps
escalating and pages its taker at each level, until someone acknowledges it (issue 24: the taker gets the
escalations, and nothing once it is acknowledged). Resolving an open alarm acknowledges it at the same moment
(both changes are recorded), so time to acknowledge is known for every resolved alarm.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from core.cache import lifecycle as stored
from core.cache.transactions import joined
from core.sqlite_lib import sqlite_utils


class State(StrEnum):
    OPEN = "open"
    ACKNOWLEDGED = "acknowledged"
    RESOLVED = "resolved"


class Change(StrEnum):
    ACKNOWLEDGED = "acknowledged"
    ASSIGNED = "assigned"
    RESOLVED = "resolved"
    ESCALATED = "escalated"  # a record of a post, not a state change


# What each change may start from; anything else is a no-op with a reason.
ALLOWED: dict[Change, frozenset[State]] = {
    Change.ACKNOWLEDGED: frozenset({State.OPEN}),
    Change.ASSIGNED: frozenset({State.OPEN, State.ACKNOWLEDGED}),
    Change.RESOLVED: frozenset({State.OPEN, State.ACKNOWLEDGED}),
    Change.ESCALATED: frozenset({State.OPEN}),
}

MAX_NOTE = 2000
# Who samops' own changes are recorded as (an escalation level, a silent panel's alarm resolved when it
# reports again): not a Slack user, so a card names it as it is rather than mentioning it.
SAMOPS = "samops"

# Who holds an alarm: the person it is assigned to ("I'm on it", or assigned), and nobody else. Acknowledging
# says someone saw it, not that they are dealing with it, so an alarm acknowledged and taken by nobody is
# nobody's. This is the one rule: `AlarmState.holder`, and this column for the reads that select it in SQL
# (the card, the App Home, the Handling page, the digest and the Alarms page all read one or the other).
HOLDER_COLUMN = stored.HOLDER_COLUMN


@dataclass(frozen=True)
class AlarmState:
    event_id: str
    state: State
    assignee: str | None
    opened_at: int
    acknowledged_at: int | None
    acknowledged_by: str | None
    resolved_at: int | None
    resolved_by: str | None
    note: str | None
    updated_at: int | None

    @property
    def holder(self) -> str | None:
        """Who holds the alarm (HOLDER_COLUMN's rule): its assignee; acknowledging alone holds nothing."""
        return self.assignee


@dataclass(frozen=True)
class Outcome:
    state: AlarmState
    changed: bool
    reason: str = ""  # why nothing changed, in words ("already acknowledged")


def _row(row: Sequence[object]) -> AlarmState:
    values = list(row)
    values[1] = State(str(values[1]))
    return AlarmState(*values)  # type: ignore[arg-type]


def get(db: sqlite_utils.Database, event_id: str) -> AlarmState | None:
    row = stored.state_row(db, event_id)
    return _row(row) if row else None


def states(db: sqlite_utils.Database, event_ids: Iterable[str]) -> dict[str, AlarmState]:
    return {str(r[0]): _row(r) for r in stored.state_rows(db, event_ids)}


def open_alarms(db: sqlite_utils.Database, entries: Iterable[tuple[str, int]], at: int) -> None:
    """Record (event_id, opened_at) alarms as open; an alarm already recorded is left as it is. Runs in the
    caller's transaction when there is one."""
    with joined(db):
        stored.insert_open(db, entries, at)


def apply(
    db: sqlite_utils.Database,
    event_id: str,
    change: Change,
    by_user: str,
    at: int,
    *,
    opened_at: int,
    note: str | None = None,
) -> Outcome:
    """Apply one change in one write transaction (joining the caller's, if any). `opened_at` is used when
    the alarm has no state yet (the alarm's own time)."""
    note = note[:MAX_NOTE] if note else None
    with joined(db):
        open_alarms(db, [(event_id, opened_at)], at)
        current = get(db, event_id)
        assert current is not None
        reason = refusal(current, change, by_user)
        if reason:
            return Outcome(current, False, reason)
        _write(db, current, change, by_user, at, note)
        recorded = [change]
        if change is Change.RESOLVED and current.acknowledged_at is None:
            recorded.insert(0, Change.ACKNOWLEDGED)  # resolving an open alarm acknowledges it too
        stored.record_changes(
            db, [(event_id, at, by_user, c.value, note if c is change else None) for c in recorded]
        )
        updated = get(db, event_id)
        assert updated is not None
        return Outcome(updated, True)


def refusal(current: AlarmState, change: Change, by_user: str) -> str:
    """Why `change` by `by_user` would change nothing ("already acknowledged"), or "" when it applies."""
    if current.state not in ALLOWED[change]:
        return f"already {current.state.value}"
    if change is Change.ASSIGNED and current.assignee == by_user:
        return "already yours"
    return ""


def _write(
    db: sqlite_utils.Database, current: AlarmState, change: Change, by_user: str, at: int, note: str | None
) -> None:
    if change is Change.ESCALATED:
        return  # recorded in alarm_changes only
    sets: dict[str, object] = {"updated_at": at}
    if change is Change.ACKNOWLEDGED:
        sets |= {"state": State.ACKNOWLEDGED.value, "acknowledged_at": at, "acknowledged_by": by_user}
    if change is Change.ASSIGNED:
        sets["assignee"] = by_user
    if change is Change.RESOLVED:
        sets |= {"state": State.RESOLVED.value, "resolved_at": at, "resolved_by": by_user, "note": note}
        if current.acknowledged_at is None:
            # Resolving is the first sign anyone saw it: time to acknowledge ends here too.
            sets |= {"acknowledged_at": at, "acknowledged_by": by_user}
    stored.update_state(db, current.event_id, sets)


def changes(db: sqlite_utils.Database, event_id: str) -> list[tuple[int, str, str, str | None]]:
    """(at, by_user, change, note) of one alarm, oldest first."""
    return [(int(r[0]), str(r[1]), str(r[2]), r[3]) for r in stored.change_rows(db, event_id)]


def escalated_levels(db: sqlite_utils.Database, event_id: str) -> int:
    """How many escalation levels an alarm has had."""
    return stored.count_changes(db, event_id, Change.ESCALATED.value)


def incident_state(handled: Mapping[State, int]) -> State:
    """A site incident's state from its alarms' (counts per state): open while any alarm of it is open (or
    it has none), resolved when every one is, acknowledged in between. Here rather than in core/incidents.py,
    which stays pure: the cache imports that module, and this one imports the cache."""
    if handled.get(State.OPEN) or not any(handled.values()):
        return State.OPEN
    return State.ACKNOWLEDGED if handled.get(State.ACKNOWLEDGED) else State.RESOLVED
