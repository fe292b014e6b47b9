"""The service at risk, per organization (issue 24 item 3): what the cache says about authorizations about
to expire, overdue bills, silent panels, the noisiest panels and cameras down. Every section carries the
age of the data it was read from. Cache only: the refreshes that keep it are core/bills.py (operation 7),
core/panel_access.py (operations 2 and 15), the poller, the tiered sync and supervision.

How samops reads an unpaid bill: the spec's `state` has only `paid` and `settled`, so the state is not
consulted; a bill is overdue when its `paymentDueDate` is past and it has no `paymentDate`
(docs/at_risk.md). A due date in a form samops cannot read is never called overdue.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import cast

from core.alarms import SUPERVISION_PREFIX, silent_since
from core.cache.alarm_sql import alarm_sql, service_event_sql
from core.cache.supervision import open_episodes
from core.cameras import camera_down
from core.clock import DAY_MS, WEEK_MS
from core.read.cameras import camera_summary
from core.read.cursors import cursors
from core.read.false_alarms import Grouping, rates
from core.read.keyholders import access_reads
from core.read.rows import first, query, scalar, tuples
from core.read.subscriptions import subscriptions_by_org
from core.sqlite_lib import sqlite_utils

EXPIRING_WITHIN_MS = 7 * DAY_MS
TOP_PANELS = 5


@dataclass(frozen=True)
class Expiring:
    user_id: int
    name: str
    resource_id: int
    panel: str | None
    expires_at: int


@dataclass(frozen=True)
class Overdue:
    subscription_id: int
    bill_no: str | None
    due_at: int
    amount: float | None
    unit: str | None


@dataclass(frozen=True)
class Silent:
    resource_id: int
    panel: str | None
    since: int  # silent since
    now: bool  # still silent (else it reported again)


@dataclass(frozen=True)
class Noisy:
    resource_id: int
    panel: str | None
    alarms: int


@dataclass(frozen=True)
class CameraDown:
    resource_id: int
    name: str | None
    why: str  # core.cameras.OFFLINE or DISABLED


@dataclass(frozen=True)
class AtRisk:
    """One organization's list; each `*_read` is when that section's data was read (None: never)."""

    org_id: int
    at: int
    expiring: tuple[Expiring, ...]
    authorizations_read: int | None  # the oldest read of the organization's authorizations
    authorized_panels: int  # panels whose authorizations were ever read
    panels: int  # the organization's panels (operation 2 lists each, in service or not)
    overdue: tuple[Overdue, ...]
    bills_read: int | None  # the oldest read among the organization's subscriptions
    subscriptions: int
    subscriptions_read: int
    silent: tuple[Silent, ...]
    noisy: tuple[Noisy, ...]  # the most false alarms when `noisy_false`, else the most alarms
    noisy_false: bool  # alarms resolved as false this week exist (core/read/false_alarms.py): ranked by them
    alarms_read: int | None  # the poller's last successful poll
    cameras_down: tuple[CameraDown, ...]
    cameras_read: int | None


def at_risk(db: sqlite_utils.Database, org: int, now: int) -> AtRisk:
    expiring, auth_read, auth_panels = _expiring(db, org, now)
    overdue, bills_read, subs, subs_read = _overdue(db, org, now)
    false = _false_alarms(db, org, now)
    return AtRisk(
        org_id=org,
        at=now,
        expiring=expiring,
        authorizations_read=auth_read,
        authorized_panels=auth_panels,
        panels=int(scalar(db, "SELECT count(*) FROM panels WHERE org_id = ?", [org]) or 0),
        overdue=overdue,
        bills_read=bills_read,
        subscriptions=subs,
        subscriptions_read=subs_read,
        silent=_silent(db, org, now),
        noisy=false or _noisy(db, org, now),
        noisy_false=bool(false),
        alarms_read=_table_read(db, "activities"),
        cameras_down=_cameras_down(db, org),
        cameras_read=_table_read(db, "cameras"),
    )


def _expiring(db: sqlite_utils.Database, org: int, now: int) -> tuple[tuple[Expiring, ...], int | None, int]:
    rows = query(
        db,
        "SELECT a.resource_id, a.user_id, a.name, a.validity, a.fetched_at, p.name AS panel"
        " FROM panel_access a LEFT JOIN panels p ON p.resource_id = a.resource_id WHERE a.org_id = ?",
        [org],
    )
    found: list[Expiring] = []
    for row in rows:
        expires = _expiration(row["validity"])
        if expires is not None and now <= expires <= now + EXPIRING_WITHIN_MS:
            found.append(Expiring(row["user_id"], row["name"], row["resource_id"], row["panel"], expires))
    found.sort(key=lambda e: (e.expires_at, e.name.lower(), e.resource_id))
    # Which panels were read and when (core/keyholder_reads.py, /sam who-can record each read, a panel with
    # nobody on it too); a panel read before reads were recorded counts by its rows' time.
    panels = _panels(db, org)
    read_at = {r.resource_id: r.read_at for r in access_reads(db, panels).values() if r.read_at}
    for r in rows:
        if r["fetched_at"] is not None and r["resource_id"] in panels:
            read_at.setdefault(r["resource_id"], int(r["fetched_at"]))
    return tuple(found), min(read_at.values(), default=None), len(read_at)


def _panels(db: sqlite_utils.Database, org: int) -> set[int]:
    return {int(r[0]) for r in tuples(db, "SELECT resource_id FROM panels WHERE org_id = ?", [org])}


def _expiration(validity: str | None) -> int | None:
    """Operation 15's `expiration` as `core.panel_access` keeps it; 0 and none: it never expires."""
    try:
        record: object = json.loads(validity) if validity else None
    except ValueError:
        return None
    value = cast("dict[str, object]", record).get("expiration") if isinstance(record, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _overdue(
    db: sqlite_utils.Database, org: int, now: int
) -> tuple[tuple[Overdue, ...], int | None, int, int]:
    rows = query(
        db,
        "SELECT subscription_id, bill_no, due_at, amount, unit FROM bills"
        " WHERE org_id = ? AND paid_at IS NULL AND due_at IS NOT NULL AND due_at < ?"
        " ORDER BY due_at, bill_no",
        [org, now],
    )
    overdue = tuple(
        Overdue(r["subscription_id"], r["bill_no"], r["due_at"], r["amount"], r["unit"]) for r in rows
    )
    subs = set(subscriptions_by_org(db).get(org, []))
    # When core/bills.py last read each subscription (core.tiers' scope cursors of its table `bills`).
    reads = {sub: at for sub, at in cursors(db, "refreshed:bills").items() if sub in subs}
    read = min(reads.values()) if reads and len(reads) == len(subs) else None
    return overdue, read, len(subs), len(reads)


def _silent(db: sqlite_utils.Database, org: int, now: int) -> tuple[Silent, ...]:
    found: dict[int, Silent] = {}
    rows = query(
        db,
        "SELECT a.resource_id, a.event_id, a.activity_time, p.name AS panel FROM activities a"
        " LEFT JOIN panels p ON p.resource_id = a.resource_id"
        " WHERE a.org_id = ? AND a.event_id LIKE ? AND a.activity_time >= ? ORDER BY a.activity_time",
        [org, SUPERVISION_PREFIX + "%", now - WEEK_MS],
    )
    for row in rows:
        since = silent_since(row["event_id"]) or row["activity_time"]
        found[row["resource_id"]] = Silent(row["resource_id"], row["panel"], since, False)
    names = {
        int(r[0]): r[1] for r in tuples(db, "SELECT resource_id, name FROM panels WHERE org_id = ?", [org])
    }
    for episode in open_episodes(db).values():
        if episode.org_id == org:
            found[episode.resource_id] = Silent(
                episode.resource_id, names.get(episode.resource_id), episode.since, True
            )
    return tuple(sorted(found.values(), key=lambda s: (not s.now, s.since, s.resource_id)))


def _noisy(db: sqlite_utils.Database, org: int, now: int) -> tuple[Noisy, ...]:
    rows = query(
        db,
        "SELECT a.resource_id, count(*) AS n, p.name AS panel FROM activities a"
        " LEFT JOIN panels p ON p.resource_id = a.resource_id"
        f" WHERE a.org_id = ? AND a.activity_time >= ? AND {alarm_sql('a')} AND {service_event_sql('a')}"
        " GROUP BY a.resource_id ORDER BY n DESC, a.resource_id LIMIT ?",
        [org, now - WEEK_MS, TOP_PANELS],
    )
    return tuple(Noisy(r["resource_id"], r["panel"], r["n"]) for r in rows)


def _false_alarms(db: sqlite_utils.Database, org: int, now: int) -> tuple[Noisy, ...]:
    """The panels with the most alarms resolved as false this week (none when no disposition says so)."""
    week = WEEK_MS // DAY_MS
    ranked = rates(db, Grouping.PANEL, now, org_id=org, periods=(week,))
    found = [(r, r.period(week).false_alarms) for r in ranked]
    return tuple(Noisy(int(r.key), r.name, n) for r, n in found if n > 0)[:TOP_PANELS]


def _cameras_down(db: sqlite_utils.Database, org: int) -> tuple[CameraDown, ...]:
    down: list[CameraDown] = []
    for camera in camera_summary(db, org_id=org, problems_only=True):
        why = camera_down(camera.problems)
        if why is not None:
            down.append(CameraDown(camera.resource_id, camera.name, why))
    return tuple(down)


def _table_read(db: sqlite_utils.Database, table: str) -> int | None:
    row = first(db, "SELECT last_success FROM sync_state WHERE table_name = ?", [table])
    return None if row is None or row[0] is None else int(row[0])


def authorizations_due(
    db: sqlite_utils.Database, read_before: int, retry_before: int, limit: int = 500
) -> dict[int, list[int]]:
    """Every panel (alarms or not) whose authorizations were never read, last read before `read_before`, or
    last failed before `retry_before`, by organization, the longest unread first: what the at-risk list's
    whole-fleet reads take up when the keyholder reads and the backfill have nothing to do."""
    rows = query(
        db,
        "SELECT p.resource_id AS rid, p.org_id AS org FROM panels p"
        " LEFT JOIN panel_access_reads r ON r.resource_id = p.resource_id"
        " WHERE p.org_id IS NOT NULL AND (r.resource_id IS NULL OR (r.error IS NULL AND r.tried_at <= ?)"
        " OR (r.error IS NOT NULL AND r.tried_at <= ?))"
        " ORDER BY coalesce(r.tried_at, 0), p.resource_id LIMIT ?",
        [read_before, retry_before, limit],
    )
    due: dict[int, list[int]] = {}
    for r in rows:
        due.setdefault(int(r["org"]), []).append(int(r["rid"]))
    return due
