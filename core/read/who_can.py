"""Who may operate a panel at a moment: its authorized users (`panel_access`, filled by
`core.panel_access`) with their privilege groups, judged by `core.access_windows` in the organization's zone.

A user counts as able to operate the panel when they hold an authorization on it, at least one privilege group
is granted to them, and their validity (start, expiration, day-of-week windows) includes the moment.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast
from zoneinfo import ZoneInfo

from core.access_windows import Access, DayWindow, Validity, access_at
from core.cache.writes import as_list
from core.read.rows import query
from core.sqlite_lib import sqlite_utils


@dataclass(frozen=True)
class PanelUser:
    resource_id: int
    user_id: int
    org_id: int | None
    name: str
    groups: tuple[str, ...]  # privilege groups granted
    validity: Validity | None  # None: the service has no privilege record for the user
    fetched_at: int


@dataclass(frozen=True)
class WhoCanEntry:
    user: PanelUser
    access: Access


@dataclass(frozen=True)
class WhoCan:
    resource_id: int
    at: int
    can: tuple[WhoCanEntry, ...]  # by name
    cannot: tuple[WhoCanEntry, ...]  # authorized on the panel, but not at this moment (access.reason: why)
    fetched_at: int | None  # when the authorizations were read from the service (None: never)


def panel_users(db: sqlite_utils.Database, resource_id: int) -> list[PanelUser]:
    """The users authorized on `resource_id`, as last fetched, by name."""
    sql = (
        "SELECT resource_id, user_id, org_id, name, groups, validity, fetched_at FROM panel_access"
        " WHERE resource_id = ? ORDER BY name COLLATE NOCASE, user_id"
    )
    return [_user(row) for row in query(db, sql, [resource_id])]


def who_can(db: sqlite_utils.Database, resource_id: int, at: int, zone: ZoneInfo) -> WhoCan:
    return evaluate(resource_id, panel_users(db, resource_id), at, zone)


def evaluate(resource_id: int, users: list[PanelUser], at: int, zone: ZoneInfo) -> WhoCan:
    can: list[WhoCanEntry] = []
    cannot: list[WhoCanEntry] = []
    for user in users:
        access = _access(user, at, zone)
        (can if access.allowed else cannot).append(WhoCanEntry(user, access))
    fetched = min((u.fetched_at for u in users), default=None)
    return WhoCan(resource_id, at, tuple(can), tuple(cannot), fetched)


def _access(user: PanelUser, at: int, zone: ZoneInfo) -> Access:
    if user.validity is None:
        return Access(False, reason="no privilege record")
    if not user.groups:
        return Access(False, reason="no privilege group granted")
    return access_at(user.validity, at, zone)


def _user(row: dict[str, Any]) -> PanelUser:
    return PanelUser(
        resource_id=int(row["resource_id"]),
        user_id=int(row["user_id"]),
        org_id=row["org_id"],
        name=str(row["name"] or f"user {row['user_id']}"),
        groups=tuple(g for g in as_list(_json(row["groups"])) if isinstance(g, str)),
        validity=_validity(_json(row["validity"])),
        fetched_at=int(row["fetched_at"] or 0),
    )


def _json(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


def _validity(data: Any) -> Validity | None:
    if not isinstance(data, dict):
        return None
    fields = cast("dict[str, Any]", data)  # JSON: string keys
    raw = fields.get("windows")
    listed = as_list(raw)
    triples = [as_list(w) for w in listed]
    windows = tuple(
        DayWindow(int(w[0]), int(w[1]), int(w[2]))
        for w in triples
        if len(w) == 3 and all(isinstance(x, int) for x in w)
    )
    start, expiration = fields.get("start"), fields.get("expiration")
    return Validity(
        start=start if isinstance(start, int) else None,
        expiration=expiration if isinstance(expiration, int) else None,
        windows=windows,
        # windows that are not all readable, or not a list at all, are not to be trusted as "no windows"
        unusable_windows=bool(fields.get("unusable"))
        or len(windows) < len(listed)
        or (bool(raw) and not listed),
    )
