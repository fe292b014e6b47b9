"""Pull the service into the cache: one login, per-panel fetches in a bounded pool, one transaction per table.

Everything is fetched first (in worker threads sharing one client), then each table is written in a single
transaction by the calling thread, so a `kill -9` at any moment leaves every table as the previous run left
it, and the activity cursors only move forward together with the activities they cover.

The login's Resource summaries carry every panel's sensors and controllers (the spec's `resourceSensors`,
`resourceControllers`): those tables are taken from the login, and asked panel by panel (operations 18 and
14) only for a panel whose summary lacks them. Under tiered freshness (`sync --every`) the login itself is
the sensors' and controllers' tier: between its refreshes a tick keeps the session it has, so an idle tick
costs nothing but what is due, and the per-panel tiers are paced to SAMOPS_REFRESH_RATE (core/tiers.py).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from core import tiers
from core.cache import incidents, sync_state, writes
from core.cache.cursors import save_cursors
from core.cache.transactions import write_transaction
from core.client import SamClient
from core.client.rejections import RejectionKey
from core.clock import MINUTE_MS, now_ms
from core.errors import SamError
from core.models import LoginResult
from core.read import cursors as read_cursors
from core.read import panels as read_panels
from core.settings import Settings
from core.sqlite_lib import sqlite_utils

log = logging.getLogger("samops.sync")

DEFAULT_OVERLAP_MS = 10 * MINUTE_MS
# The order tables are written in, and what keys and scopes them.
PER_ORG = ("users", "cameras", "controller_values")
PER_PANEL = ("sensors", "controllers", "activities", "push_history")
TABLES = ("organizations", "panels", *PER_ORG, *PER_PANEL)
PKS = {
    "organizations": "id",
    "panels": "resource_id",
    "users": "user_id",
    "cameras": "resource_id",
    "controller_values": "resource_controller_id",
    "sensors": "id",
    "controllers": "id",
    "activities": "event_id",
    "push_history": "event_id",
}
CURSOR_TABLES = ("activities", "push_history")
FROM_LOGIN = ("sensors", "controllers")  # in the login's Resource summaries, when the service sends them

Progress = Callable[[int, int, str], None]  # (done, total, what just finished)


@dataclass
class SyncOptions:
    full: bool = False
    concurrency: int = 8
    overlap_ms: int = DEFAULT_OVERLAP_MS
    # False when the alarm poller (core/poller.py, hosted by the notifier) keeps activities fresh.
    activities: bool = True
    # Tiered freshness (`sync --every`): only the scopes of these tables that are due. None (and --full):
    # everything at once.
    schedules: dict[str, tiers.Schedule] | None = None
    # Requests per second per organization that the per-panel tiers share (SAMOPS_REFRESH_RATE).
    refresh_rate: float = Settings.model_fields["refresh_rate"].default


@dataclass
class SyncReport:
    started_at: int
    rows: dict[str, int] = field(default_factory=dict)  # rows fetched and upserted, per table
    deleted: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    panels: int = 0
    rejected: dict[RejectionKey, int] = field(default_factory=dict)  # records dropped as invalid
    # Why nothing of the service was reached this run (its login, or every fetch, failed): an outage, which
    # a console says once when it starts and once when it ends, not every cycle (core/cli/sync.py).
    outage: str | None = None
    asked: bool = False  # whether this run sent the service anything (a kept session with nothing due: not)

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass
class _Fetched:
    """What the workers brought back for one table."""

    rows: list[Any] = field(default_factory=list)
    by_scope: dict[int, list[Any]] = field(default_factory=dict)  # what each organization or panel brought
    failed_scopes: set[int] = field(default_factory=set)  # panels (or organizations) whose fetch failed
    errors: list[str] = field(default_factory=list)
    cursors: dict[int, int] = field(default_factory=dict)  # panel -> new cursor, for activity tables


def _panel_cursors(db: sqlite_utils.Database, table: str) -> dict[int, int]:
    return read_cursors.cursors(db, table)


def run_sync(
    db: sqlite_utils.Database,
    client: SamClient,
    options: SyncOptions | None = None,
    progress: Progress | None = None,
) -> SyncReport:
    """One sync of every organization of the login; errors are recorded in sync_state and the report."""
    options = options or SyncOptions()
    report = SyncReport(started_at=now_ms())
    client.rejections.drain()  # what earlier calls of this client dropped is not this run's
    try:
        login, fresh = _login(db, client, options, report.started_at)
    except SamError as exc:
        report.asked = True
        message = f"login: {exc}"
        log.debug("sync failed: %s", message)
        report.errors.append(message)
        report.outage = message
        with write_transaction(db):
            for table in TABLES:
                _record_state(db, table, report.started_at, [message], None)
        return report

    org_ids = _org_ids(login, client)
    names = {writes.as_int(o.id): o.name for o in login.organizations or []}
    panels = [(r.resource_id, r.org_id) for r in login.resources or [] if r.resource_id is not None]
    panels = [(rid, org) for rid, org in panels if org is None or org in org_ids]
    report.panels = len(panels)
    fetched = {table: _Fetched() for table in TABLES}
    fetched["organizations"].rows = [
        writes.organization_row({"id": o, "name": names.get(o)}) for o in org_ids
    ]
    synced = {rid for rid, _ in panels}
    fetched["panels"].rows = [writes.panel_row(r) for r in login.resources or [] if r.resource_id in synced]

    tables = [t for t in TABLES if options.activities or t != "activities"]
    cursor_tables = [t for t in CURSOR_TABLES if t in tables]
    cursors = {t: ({} if options.full else _panel_cursors(db, t)) for t in cursor_tables}
    carried = _carried(login, synced, rows=fresh)
    if fresh:
        for table in FROM_LOGIN:
            fetched[table].by_scope = carried[table]
    jobs = _jobs(client, login.user_id, org_ids, panels, cursors, options.overlap_ms, report.started_at)
    # A panel whose summary carries its sensors (controllers) is refreshed with the login, never alone.
    jobs = [job for job in jobs if job[0] not in FROM_LOGIN or job[1] not in carried[job[0]]]
    due = _due(db, options, org_ids, panels, jobs, report.started_at)
    jobs = [job for job in jobs if job[0] not in due or job[1] in due[job[0]]]
    written: list[str] = []

    def write(table: str) -> None:
        _write_table(db, table, fetched[table], options.full, report)
        written.append(table)

    if fresh:
        write("organizations")
        write("panels")
    else:  # a kept session's organizations and panels are what the cache has already
        written += ["organizations", "panels"]
    # Each table is written as soon as its last fetch is in, while the pool goes on with the next tables.
    report.asked = fresh or bool(jobs)
    _fetch_all(jobs, fetched, options.concurrency, progress, write)
    failures = [message for data in fetched.values() for message in data.errors]
    if jobs and len(failures) >= len(jobs):
        report.outage = failures[0]  # not one fetch went through: one line for the run, said by the caller
    else:
        for message in failures:
            log.warning("sync: %s", message)
    for table in tables:
        # A tier with nothing due and nothing from the login: untouched.
        if table not in written and (table not in due or due[table] or fetched[table].by_scope):
            write(table)
    _record_rejections(db, client, report)
    return report


def _login(
    db: sqlite_utils.Database, client: SamClient, options: SyncOptions, now: int
) -> tuple[LoginResult, bool]:
    """(the login result, whether it is fresh). Under tiered freshness the session is kept until the
    sensors' or controllers' tier falls due: the login is their refresh, and at fleet size its answer is
    large (about 18 MB at 10,000 panels). The spec shows no token lifetime; a 401 logs in again anyway."""
    intervals = [s.interval_ms for t, s in (options.schedules or {}).items() if t in FROM_LOGIN]
    last = tiers.refreshed(db, tiers.LOGIN).get(0)
    kept = client.session
    if (
        kept is not None
        and intervals
        and not options.full
        and last is not None
        and now - last < min(intervals)
    ):
        return kept, False
    login = client.login()
    with write_transaction(db):
        tiers.mark_refreshed(db, tiers.LOGIN, [0], now)
    return login, True


def _carried(login: LoginResult, synced: set[int], rows: bool = True) -> dict[str, dict[int, list[Any]]]:
    """The sensor and controller rows of each panel whose login summary carries them (an empty list is
    "none", an absent field is "ask the panel"). Without `rows` (a kept session, not written again) only
    which panels carry them: every tick would otherwise rebuild ~50,000 rows at 10,000 panels."""
    carried: dict[str, dict[int, list[Any]]] = {table: {} for table in FROM_LOGIN}
    for panel in login.resources or []:
        rid = panel.resource_id
        if rid is None or rid not in synced:
            continue
        if panel.resource_sensors is not None:
            groups = panel.resource_sensors if rows else []
            carried["sensors"][rid] = [row for g in groups for row in writes.sensor_rows(g, rid)]
        if panel.resource_controllers is not None:
            controllers = panel.resource_controllers if rows else []
            carried["controllers"][rid] = [writes.controller_row(c, rid) for c in controllers]
    return carried


def _due(
    db: sqlite_utils.Database,
    options: SyncOptions,
    org_ids: list[int],
    panels: list[tuple[int, int | None]],
    jobs: list[Job],
    now: int,
) -> dict[str, set[int]]:
    """The scopes due of each tiered table (absent: every scope). The per-panel tiers that still cost a
    request per panel share SAMOPS_REFRESH_RATE requests per second per organization: at fleet size their
    interval stretches past the configured one (core/tiers.py `paced`)."""
    if options.schedules is None or options.full:
        return {}
    org_of = dict(panels)
    asked = {table: [j[1] for j in jobs if j[0] == table] for table in PER_PANEL}
    paced = [t for t in PER_PANEL if t in options.schedules and asked[t]]
    due: dict[str, set[int]] = {}
    for table, schedule in options.schedules.items():
        if table in PER_ORG:
            due[table] = set(schedule.due(org_ids, tiers.refreshed(db, table), now))
            continue
        if table in paced:
            per_org = Counter(org_of.get(rid) for rid in asked[table])
            schedule = schedule.paced(max(per_org.values()), options.refresh_rate / len(paced))
        due[table] = set(schedule.due(asked[table], tiers.refreshed(db, table), now))
    return due


def _record_rejections(db: sqlite_utils.Database, client: SamClient, report: SyncReport) -> None:
    """The records this run dropped as invalid (the client logged each), for `samops status`."""
    report.rejected = client.rejections.drain()
    with write_transaction(db):
        sync_state.replace_rejections(
            db,
            [
                (k.operation, k.record, k.field, k.reason, n, report.started_at)
                for k, n in report.rejected.items()
            ],
        )
    for key, count in sorted(report.rejected.items()):
        log.warning("sync: %s", key.describe(count))


def _org_ids(login: LoginResult, client: SamClient) -> list[int]:
    ids = list(login.organization_id_list()) if hasattr(login, "organization_id_list") else []
    if not ids:
        ids = [i for i in (writes.as_int(o.id) for o in login.organizations or []) if i is not None]
    wanted = client.settings.organization_id
    return [wanted] if wanted is not None and wanted in ids else ids


# A job: (table, scope id, label, function returning (rows, cursor or None)).
Job = tuple[str, int, str, Callable[[], tuple[list[Any], int | None]]]


def _jobs(
    client: SamClient,
    user_id: int | None,
    org_ids: list[int],
    panels: list[tuple[int, int | None]],
    cursors: dict[str, dict[int, int]],
    overlap_ms: int,
    started_at: int,
) -> list[Job]:
    jobs: list[Job] = []
    for org in org_ids:
        if user_id is not None:
            jobs.append(("users", org, f"org {org}", _users(client, user_id, org)))
        jobs.append(("cameras", org, f"org {org}", _cameras(client, org)))
        jobs.append(("controller_values", org, f"org {org}", _controller_values(client, org)))
    # Table after table (the pool takes jobs in order), so that tables finish, and get written, one by one.
    jobs += [("sensors", rid, f"panel {rid}", _sensors(client, rid, org)) for rid, org in panels]
    jobs += [("controllers", rid, f"panel {rid}", _controllers(client, rid, org)) for rid, org in panels]
    for table in cursors:
        for rid, org in panels:
            cursor = cursors[table].get(rid)
            start = None if cursor is None else max(0, cursor - overlap_ms)
            jobs.append((table, rid, f"panel {rid}", _activities(client, table, rid, org, start, started_at)))
    return jobs


def _users(client: SamClient, user_id: int, org: int) -> Callable[[], tuple[list[Any], None]]:
    return lambda: ([writes.user_row(u, org) for u in client.list_organization_users(user_id, org=org)], None)


def _cameras(client: SamClient, org: int) -> Callable[[], tuple[list[Any], None]]:
    return lambda: ([writes.camera_row(c, org) for c in client.list_cameras(org=org)], None)


def _controller_values(client: SamClient, org: int) -> Callable[[], tuple[list[Any], None]]:
    def fetch() -> tuple[list[Any], None]:
        entries = [writes.controller_value_row(e, None) for e in client.list_controller_data_log(org=org)]
        # Several entries of one controller: the latest wins, as it is upserted last.
        entries.sort(key=lambda r: r["last_update"] or 0)
        return entries, None

    return fetch


def _sensors(client: SamClient, rid: int, org: int | None) -> Callable[[], tuple[list[Any], None]]:
    return lambda: (writes.sensor_rows(client.list_panel_sensors(rid, org=org), rid), None)


def _controllers(client: SamClient, rid: int, org: int | None) -> Callable[[], tuple[list[Any], None]]:
    return lambda: (
        [writes.controller_row(c, rid) for c in client.list_panel_controllers(rid, org=org)],
        None,
    )


def _activities(
    client: SamClient, table: str, rid: int, org: int | None, start: int | None, started_at: int
) -> Callable[[], tuple[list[Any], int]]:
    def fetch() -> tuple[list[Any], int]:
        if table == "activities":
            items = client.iter_activities([rid], start_time=start, org=org)
        else:
            items = client.iter_push_history(rid, start_time=start, org=org)
        rows = [writes.activity_row(a, rid, org) for a in items]
        # The next run asks from this run's start (minus the overlap): later events are not missed.
        return [r for r in rows if r[0] is not None], started_at

    return fetch


def _fetch_all(
    jobs: list[Job],
    fetched: dict[str, _Fetched],
    concurrency: int,
    progress: Progress | None,
    table_done: Callable[[str], None],
) -> None:
    remaining = Counter(table for table, _, _, _ in jobs)
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="sync") as pool:
        futures: dict[Future[tuple[list[Any], int | None]], tuple[str, int, str]] = {
            pool.submit(fn): (table, scope, label) for table, scope, label, fn in jobs
        }
        for done, future in enumerate(as_completed(futures), start=1):
            table, scope, label = futures[future]
            into = fetched[table]
            try:
                rows, cursor = future.result()
            except Exception as exc:  # noqa: BLE001  # one table of one scope failing must not stop the others
                message = f"{table} of {label}: {exc}"
                into.failed_scopes.add(scope)
                into.errors.append(message)
            else:
                into.by_scope[scope] = rows
                if cursor is not None:
                    into.cursors[scope] = cursor
            if progress:
                progress(done, len(futures), f"{table} of {label}")
            remaining[table] -= 1
            if not remaining[table]:
                table_done(table)


def _write_table(
    db: sqlite_utils.Database, table: str, data: _Fetched, full: bool, report: SyncReport
) -> None:
    pk = PKS[table]
    if data.by_scope:
        # Fetches finish in any order; a record that two scopes share (a user of two organizations) must
        # not depend on which came back last. Written last, the lowest scope wins.
        data.rows = [row for s in sorted(data.by_scope, reverse=True) for row in data.by_scope[s]]
    with write_transaction(db):
        if table in CURSOR_TABLES:
            # Seen now: an activity the notifier watches is stamped as it would be by the poller (seen.py).
            count = writes.upsert_activities(db, table, data.rows, seen_at=now_ms())
            save_cursors(db, table, data.cursors.items())
        else:
            rows = [r for r in data.rows if r.get(pk) is not None]
            if table == "cameras":  # a camera going down is evidence of a site incident (core/incidents.py)
                incidents.note_camera_changes(db, rows, now_ms())
            count = writes.upsert_dicts(db, table, rows, pk) if rows else 0
        if table in tiers.TIERED:
            tiers.mark_refreshed(db, table, data.by_scope, report.started_at)
        if table == "panels":  # the fleet as this login listed it, for the alarm poller
            tiers.mark_listed(db, (r[pk] for r in data.rows if r.get(pk) is not None), report.started_at)
        if full:
            spare_column = "org_id" if table in ("users", "cameras") else "resource_id"
            spare = data.failed_scopes
            if table == "controller_values" and spare:
                spare = _panels_of_orgs(db, data.failed_scopes)
            keep = (r[0] for r in data.rows) if table in CURSOR_TABLES else (r[pk] for r in data.rows)
            report.deleted[table] = writes.delete_missing(db, table, pk, keep, spare, spare_column)
        cursor = report.started_at if table in CURSOR_TABLES and not data.errors else None
        _record_state(db, table, report.started_at, data.errors, cursor)
    report.rows[table] = count
    report.errors.extend(data.errors)


def _panels_of_orgs(db: sqlite_utils.Database, orgs: Iterable[int]) -> set[int]:
    return read_panels.panels_of_orgs(db, orgs)


def _record_state(
    db: sqlite_utils.Database, table: str, at: int, errors: list[str], cursor: int | None
) -> None:
    """sync_state of `table`: last_success only when nothing failed; the first error, with how many more."""
    error = None
    if errors:
        error = errors[0] + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")
    sync_state.record_table_state(db, table, at, error, cursor)
