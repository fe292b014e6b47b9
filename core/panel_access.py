"""Who is authorized on which panel, fetched from the service into the cache's `panel_access` table.

Operation 2 (the bulk listing) says which users hold an authorization on each panel of an organization and
their names; operation 15 gives each user's privilege groups and validity windows (operation 2's `period`
is a string whose form the spec does not give, so the structured `accessibleDays` of operation 15 are what
count). Pin codes and the rest of the bulk listing are not kept. `core.read.who_can` reads the table.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from core.access_windows import Validity, validity_of
from core.cache.panel_access import record_reads, replace_panel_access
from core.cache.transactions import write_transaction
from core.client import SamClient
from core.clock import now_ms
from core.errors import NotFoundError
from core.models import OrganizationUser, UserPrivileges
from core.sqlite_lib import sqlite_utils

log = logging.getLogger(__name__)

_POOL_SIZE = 8  # operation 15 is asked once per user; a few at a time

# Called before each request to the service (the keyholder reads' pace: core/keyholder_reads.py);
# None: unpaced.
Pace = Callable[[], None] | None


def refresh_panel_access(
    db: sqlite_utils.Database,
    client: SamClient,
    org: int | None,
    resource_ids: Collection[int] | None = None,
    pace: Pace = None,
) -> int:
    """Fetch the authorizations of `resource_ids` (every panel of the organization when None) and replace
    what the cache held for them, in one transaction that also records them read (`panel_access_reads`);
    returns the rows written. NotFoundError when a panel asked about is not in the organization's listing."""
    rows, listed = fetch_panel_access(client, org, resource_ids, pace)
    if missing := set(resource_ids or ()) - listed:
        raise NotFoundError(404, "NOT_FOUND", f"panel {min(missing)} is not in the organization's listing")
    panels = set(resource_ids) if resource_ids is not None else None
    with write_transaction(db):
        replace_panel_access(db, org, panels, rows)
        record_reads(db, org, panels if panels is not None else listed, now_ms())
    return len(rows)


def refresh_panel_authorizations(
    db: sqlite_utils.Database, client: SamClient, org: int | None, resource_id: int
) -> int:
    """One panel's authorizations, read live from the service into the cache before `/sam who-can` (or its
    button) judges them; returns the rows written. NotFoundError when the organization does not list the
    panel; any other SamError leaves what the cache held, for an answer from the cache."""
    return refresh_panel_access(db, client, org, [resource_id])


def fetch_panel_access(
    client: SamClient, org: int | None, resource_ids: Collection[int] | None = None, pace: Pace = None
) -> tuple[list[dict[str, Any]], set[int]]:
    """The `panel_access` rows of the panels asked about, from operations 2 and 15, and the panels the
    organization's bulk listing holds of them (it lists every panel, even one nobody is authorized on: one
    asked about and missing from it is not the organization's)."""
    fetched_at = now_ms()
    if pace is not None:
        pace()
    pairs = [
        p
        for p in client.get_organization_users(org=org)
        if p.resource_id is not None and (resource_ids is None or p.resource_id in resource_ids)
    ]
    people: dict[int, OrganizationUser] = {}
    authorized: dict[tuple[int, int], str | None] = {}  # (panel, user) -> the panel's name for the user
    for pair in pairs:
        for person in pair.organization_user_list or []:
            if person.user_id is not None:
                people.setdefault(person.user_id, person)
        for ru in pair.resource_user_response_list or []:
            if ru.user_id is not None and pair.resource_id is not None:
                authorized.setdefault((pair.resource_id, ru.user_id), ru.user_name)
    privileges = _privileges(client, org, {uid for _, uid in authorized}, pace)
    rows: list[dict[str, Any]] = []
    for (rid, uid), panel_name in sorted(authorized.items()):
        person = people.get(uid)
        priv = privileges.get(uid)
        rows.append(
            {
                "resource_id": rid,
                "user_id": uid,
                "org_id": org,
                "name": _name(person, panel_name, uid),
                "groups": json.dumps(_group_names(priv, person)),
                "validity": json.dumps(_validity_record(priv)),
                "fetched_at": fetched_at,
            }
        )
    return rows, {p.resource_id for p in pairs if p.resource_id is not None}


def _privileges(
    client: SamClient, org: int | None, user_ids: Iterable[int], pace: Pace = None
) -> dict[int, UserPrivileges]:
    def one(uid: int) -> tuple[int, UserPrivileges | None]:
        if pace is not None:
            pace()
        try:
            return uid, client.get_user_privilege_groups(uid, org=org)
        except NotFoundError:  # authorized on a panel, unknown to operation 15: no groups, no hours
            log.info("operation 15 knows no user %s in organization %s", uid, org)
            return uid, None

    ids = sorted(user_ids)
    if not ids:
        return {}
    # Paced, the requests go one after the other anyway: one thread is enough.
    workers = 1 if pace is not None else min(_POOL_SIZE, len(ids))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="access") as pool:
        return {uid: priv for uid, priv in pool.map(one, ids) if priv is not None}


def _name(person: OrganizationUser | None, panel_name: str | None, uid: int) -> str:
    if person is not None:
        full = " ".join(p for p in (person.first_name, person.middle_name, person.last_name) if p)
        if full.strip():
            return full.strip()
        if person.screen_name:
            return person.screen_name
    return (panel_name or "").strip() or f"user {uid}"


def privilege_group_names(client: SamClient, org: int | None) -> dict[int, str]:
    """The privilege groups' names by group id, as operation 2 names them on its people; empty when it names
    none (its `privilegeGroup` object's fields are not in the spec). What `/sam privileges`, `/sam role` and
    the access form show beside each group's id."""
    names: dict[int, str] = {}
    for pair in client.get_organization_users(org=org):
        for person in pair.organization_user_list or []:
            names.update(_names_in(person)[1])
    return names


def _names_in(person: OrganizationUser | None) -> tuple[dict[int, str], dict[int, str]]:
    """The group names operation 2 gives on one person: by the assignment's id, and by the group's id."""
    by_assignment: dict[int, str] = {}
    by_group: dict[int, str] = {}
    for upg in (person.user_privilege_groups or []) if person else []:
        group = upg.privilege_group if isinstance(upg.privilege_group, dict) else {}
        name = group.get("name")
        if not isinstance(name, str) or not name.strip():
            continue
        if upg.id is not None:
            by_assignment[upg.id] = name.strip()
        if isinstance(group.get("id"), int):
            by_group[group["id"]] = name.strip()
    return by_assignment, by_group


def _group_names(priv: UserPrivileges | None, person: OrganizationUser | None) -> list[str]:
    """The privilege groups granted (authority true), by name when operation 2 names them: its
    `privilegeGroup` object's fields are not in the spec, so a name is used only when one is there."""
    if priv is None:
        return []
    by_assignment, by_group = _names_in(person)
    names: list[str] = []
    for g in sorted(priv.user_privilege_groups or [], key=lambda g: g.privilege_group_id or 0):
        if not g.authority:
            continue
        named = by_group.get(g.privilege_group_id or -1) or by_assignment.get(-1 if g.id is None else g.id)
        names.append(named or f"group {g.privilege_group_id}")
    return names


def _validity_record(priv: UserPrivileges | None) -> dict[str, Any] | None:
    if priv is None:
        return None
    v = priv.user_privilege_validity
    days = [(d.day_of_week, d.start, d.end) for d in (v.accessible_days or [])] if v else []
    validity = validity_of(v.validity_start if v else None, v.expiration if v else None, days)
    return validity_to_json(validity)


def validity_to_json(validity: Validity) -> dict[str, Any]:
    return {
        "start": validity.start,
        "expiration": validity.expiration,
        "windows": [[w.day_of_week, w.start, w.end] for w in validity.windows],
        "unusable": validity.unusable_windows,
    }
