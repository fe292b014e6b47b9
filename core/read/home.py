"""What one person's App Home shows: the site incidents and the alarms still open or acknowledged where they
work (their channels, their organizations), what is assigned to them, the silences and maintenance in force,
and how fresh it all is; plus `fingerprint`, a cheap summary of everything those depend on, so a refresher
can tell that nothing changed without building anyone's Home.

Alarms are the notifier's (`notify_outbox`): the channel each was posted to is where it "is". An alarm held
back by a silence is not listed (the silence is).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.alarms import KINDS, LEVELS, Alarm, alarm_from
from core.cache.alarm_sql import ALARM_COLUMNS
from core.cache.outbox import SILENCED  # a silence kept the alarm from its channel
from core.lifecycle import HOLDER_COLUMN, AlarmState, State, states
from core.priorities import Priorities, Priority
from core.read.freshness import Freshness, assess, freshness
from core.read.incidents import IncidentSummary, open_incidents
from core.read.priority_order import priority_sql
from core.read.quiet import QuietWindow, windows_in_force
from core.read.rows import marks, query, scalar
from core.sqlite_lib import sqlite_utils

# Most severe first: the level of each kind (red, yellow, gray), as SQL, so the cap keeps the worst alarms.
_LEVEL_ORDER = {name: rank for rank, name in enumerate(LEVELS)}
_LEVEL_SQL = (
    "CASE lower(COALESCE(a.violation_type, a.event_type))"
    + "".join(f" WHEN '{kind.name}' THEN {_LEVEL_ORDER[kind.level.name]}" for kind in KINDS)
    + f" ELSE {len(LEVELS) - 1} END"
)
# Open incidents are few (evidence of two kinds on one site); this many are read before the scope's filter.
MAX_INCIDENTS_READ = 500
# Driven by alarm_state's index on state: only the alarms not resolved are read, whatever the history. The
# notifier opens the lifecycle of every alarm it posts in the transaction that records it in the outbox.
_FROM = (
    "FROM alarm_state s JOIN notify_outbox o ON o.event_id = s.event_id"
    " JOIN activities a ON a.event_id = s.event_id LEFT JOIN panels p ON p.resource_id = a.resource_id"
    f" WHERE s.state IN ('{State.OPEN.value}', '{State.ACKNOWLEDGED.value}') AND o.state != '{SILENCED}'"
)


@dataclass(frozen=True)
class HomeAlarm:
    alarm: Alarm
    state: AlarmState | None  # None only if its record went between the two reads: open, then
    channel: str  # where the notifier posted it
    priority: Priority | None = None  # when the read was given the priorities
    overdue: bool = False  # still open past its priority's SLA


@dataclass(frozen=True)
class Scope:
    """Where a person works: the channels they are in, their organizations. None: not known (then the Home
    shows every alarm, and says why)."""

    channels: frozenset[str] | None = None
    org_ids: frozenset[int] | None = None

    @property
    def known(self) -> bool:
        return self.channels is not None or self.org_ids is not None


@dataclass(frozen=True)
class HomeData:
    user: str
    scope: Scope
    incidents: tuple[IncidentSummary, ...]  # open and acknowledged in scope, latest first, capped
    # open and acknowledged in scope, capped: by priority then oldest first when the read was given the
    # priorities, else most severe then newest first
    alarms: tuple[HomeAlarm, ...]
    alarms_total: int  # how many there are in all
    assigned: tuple[HomeAlarm, ...]  # not resolved and assigned to the user, anywhere; newest first, capped
    assigned_total: int
    quiet: tuple[QuietWindow, ...]  # silences and maintenance windows in force, soonest end first
    fresh: Freshness
    now: int


def home_data(
    db: sqlite_utils.Database,
    user: str,
    scope: Scope,
    now: int,
    limit: int = 15,
    priorities: Priorities | None = None,
) -> HomeData:
    """With `priorities`, the alarms where the person works come by priority, then oldest first (the
    longest waiting), each with its priority and whether it is overdue."""
    where, params = _scope_sql(scope)
    if priorities is None:
        order = f" ORDER BY {_LEVEL_SQL}, a.activity_time DESC, a.event_id LIMIT ?"
    else:
        order = f" ORDER BY {priority_sql(db, priorities)}, a.activity_time, a.event_id LIMIT ?"
    alarms = _alarms(db, where + order, [*params, limit], priorities, now)
    total = int(scalar(db, f"SELECT count(*) {_FROM}{where}", params))
    mine = f" AND s.{HOLDER_COLUMN} = ?"
    tail = f"{mine} ORDER BY a.activity_time DESC, a.event_id LIMIT ?"
    assigned = _alarms(db, tail, [user, limit], priorities, now)
    assigned_total = int(scalar(db, f"SELECT count(*) {_FROM}{mine}", [user]))
    return HomeData(
        user=user,
        scope=scope,
        incidents=_incidents(db, scope, limit),
        alarms=alarms,
        alarms_total=total,
        assigned=assigned,
        assigned_total=assigned_total,
        quiet=tuple(windows_in_force(db, now)),
        fresh=assess(freshness(db, count_rows=False), now),
        now=now,
    )


def _scope_sql(scope: Scope) -> tuple[str, list[object]]:
    if not scope.known:
        return "", []
    parts: list[str] = []
    params: list[object] = []
    if scope.channels:
        parts.append(f"o.channel IN ({marks(scope.channels)})")
        params += sorted(scope.channels)
    if scope.org_ids:
        parts.append(f"a.org_id IN ({marks(scope.org_ids)})")
        params += sorted(scope.org_ids)
    return f" AND ({' OR '.join(parts) or '0'})", params


def _incidents(db: sqlite_utils.Database, scope: Scope, limit: int) -> tuple[IncidentSummary, ...]:
    """Incidents whose card is in one of the person's channels or that are of their organizations."""
    if not scope.known:
        return tuple(open_incidents(db, limit=limit))
    channels, orgs = scope.channels or frozenset(), scope.org_ids or frozenset()
    mine = [
        i for i in open_incidents(db, limit=MAX_INCIDENTS_READ) if i.channel in channels or i.org_id in orgs
    ]
    return tuple(mine[:limit])


def _alarms(
    db: sqlite_utils.Database, tail: str, params: list[object], priorities: Priorities | None, now: int
) -> tuple[HomeAlarm, ...]:
    rows = query(db, f"SELECT {ALARM_COLUMNS}, o.channel AS channel {_FROM}{tail}", params)
    found = states(db, [r["event_id"] for r in rows])
    return tuple(
        _home_alarm(alarm_from(r), found.get(r["event_id"]), r["channel"], priorities, now) for r in rows
    )


def _home_alarm(
    alarm: Alarm, state: AlarmState | None, channel: str, priorities: Priorities | None, now: int
) -> HomeAlarm:
    if priorities is None:
        return HomeAlarm(alarm, state, channel)
    still_open = state is None or state.state is State.OPEN
    return HomeAlarm(
        alarm, state, channel, priorities.of(alarm), still_open and priorities.overdue(alarm, now)
    )


def fingerprint(
    db: sqlite_utils.Database, now: int, priorities: Priorities | None = None
) -> tuple[object, ...]:
    """Changes whenever a Home could: an alarm's state, a new alarm in the outbox, a quiet window made,
    lifted or ending, the freshness shown (its time, failing tables, stale or not). A few indexed reads:
    cheap enough to run every few seconds whatever the history. The poller's own sync time, which moves
    every poll, does not count unless it is what the Home shows (the oldest table's)."""
    changes = scalar(db, "SELECT max(id) FROM alarm_changes")  # every acknowledge, take, resolve adds one
    outbox = scalar(db, "SELECT max(rowid) FROM notify_outbox")  # every new alarm adds one
    evidence = scalar(db, "SELECT max(rowid) FROM incident_evidence")  # a camera offline joining, too
    keyholders = scalar(db, "SELECT max(changed_at) FROM panel_access_reads")  # a keyholder line read
    quiet = tuple(w.id for w in windows_in_force(db, now))
    fresh = assess(freshness(db, count_rows=False), now)
    found = (
        changes,
        outbox,
        evidence,
        keyholders,
        quiet,
        fresh.as_of,
        tuple(t.table for t in fresh.failing),
        fresh.stale,
    )
    return found if priorities is None else (*found, _overdue_count(db, now, priorities))


def _overdue_count(db: sqlite_utils.Database, now: int, priorities: Priorities) -> int:
    """How many open alarms are past their SLA: it grows when one crosses, so the Home marking it is
    republished though nothing else changed. Read over the open alarms only (alarm_state's index)."""
    due = " ".join(f"WHEN {int(p)} THEN {ms}" for p in Priority if (ms := priorities.sla_ms(p)) is not None)
    if not due:
        return 0
    sql = (
        f"SELECT count(*) {_FROM} AND s.state = '{State.OPEN.value}'"
        f" AND a.activity_time + (CASE {priority_sql(db, priorities)} {due} END) <= ?"
    )
    return int(scalar(db, sql, [now]))
