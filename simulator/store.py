"""In-memory state of the simulated service: sessions, scoped reads and real mutations, behind one lock.

Every read and write takes the caller's organization (the `OrganizationId` header, already checked to be
one of the caller's) and answers 404 for anything outside it, as if it did not exist.
"""

from __future__ import annotations

import bisect
import copy
import hashlib
import operator
import random
import secrets
import threading
import time
from typing import Any

from simulator.data import (
    PRIVILEGE_GROUPS,
    Record,
    Scale,
    World,
    activities_of,
    build,
    mask_name,
    new_activity,
)
from simulator.errors import ApiError, not_found
from simulator.extensions import ACTIVITY_RESOURCE_ID, CAMERA_FIELDS

SECRET_CAMERA_FIELDS = ("ncCode", "securityCode")
INTERNAL_USER_FIELDS = ("password", "orgIds", "roleIds")


def now_ms() -> int:
    return int(time.time() * 1000)


class Store:
    def __init__(
        self, scale: Scale, token_ttl: float, first_page: int = 1, extensions: frozenset[str] = frozenset()
    ) -> None:
        self.scale = scale
        self.extensions = extensions
        self.token_ttl_ms = int(token_ttl * 1000)
        self.first_page = first_page
        self.lock = threading.RLock()
        self.world: World = build(scale, now_ms())
        self.rng = random.Random(scale.seed + 1)
        self.sessions: dict[str, tuple[int, int]] = {}  # token -> (userId, expires epoch-ms)
        self.silenced: set[int] = set()  # panels whose communicator is down (/_sim/panels/{id}/silence)
        self.refusing_logins = False  # /_sim/logins: the account's password changed under its clients

    # --- auth -------------------------------------------------------------------------------------------
    def login(self, screen_name: str, password: str) -> Record:
        with self.lock:
            user = next((u for u in self.world.users.values() if u["screenName"] == screen_name), None)
            # As bytes: compare_digest refuses str with non-ASCII characters.
            given = password.encode("utf-8", "surrogatepass")
            known = user is not None and secrets.compare_digest(user["password"].encode(), given)
            if user is None or not known or self.refusing_logins:
                raise ApiError(401, "invalid screenName or password")
            token = secrets.token_urlsafe(32)
            now = now_ms()
            self.sessions = {t: (u, exp) for t, (u, exp) in self.sessions.items() if exp > now}
            self.sessions[token] = (user["userId"], now_ms() + self.token_ttl_ms)
            orgs = user["orgIds"]
            return {
                "token": token,
                "mqUser": f"mq-{user['screenName']}",
                "mqPassword": secrets.token_urlsafe(16),
                "userId": user["userId"],
                "emailAddress": user["emailAddress"],
                "screenName": user["screenName"],
                "localeId": user["localeId"],
                "roles": self._roles(user, orgs),
                "organizations": [{"name": self.world.orgs[o]["name"], "id": str(o)} for o in orgs],
                "organizationIds": list(orgs),
                # Not copied (20,000 panels take seconds to copy): the route serializes the answer at once.
                "resources": [p for p in self.world.panels.values() if p["orgId"] in orgs],
            }

    def refuse_logins(self, refuse: bool) -> Record:
        """From now on refuse every login (and end every session), or accept them again."""
        with self.lock:
            self.refusing_logins = refuse
            if refuse:
                self.sessions.clear()
            return {"refuse": refuse}

    def authenticate(self, token: str) -> Record:
        """The user behind a bearer token, or 401 for an unknown or expired one."""
        with self.lock:
            session = self.sessions.get(token)
            if session is None:
                raise ApiError(401, "Authorization: invalid access token")
            user_id, expires = session
            if now_ms() >= expires:
                # Kept (login prunes): a request is authenticated twice, for the replay scope and the route.
                raise ApiError(401, "Authorization: access token expired")
            user = self.world.users.get(user_id)
            if user is None:
                raise ApiError(401, "Authorization: the user of this token no longer exists")
            return user

    # --- views ------------------------------------------------------------------------------------------
    def _roles(self, user: Record, orgs: list[int]) -> list[Record]:
        roles = [self.world.roles[r] for r in user["roleIds"] if r in self.world.roles]
        return [{k: v for k, v in r.items() if k != "orgId"} for r in roles if r["orgId"] in orgs]

    def _user_view(self, user: Record, caller_orgs: list[int], with_resources: bool, org: int) -> Record:
        view = {k: copy.deepcopy(v) for k, v in user.items() if k not in INTERNAL_USER_FIELDS}
        orgs = [o for o in user["orgIds"] if o in caller_orgs]
        view["organizations"] = [{"name": self.world.orgs[o]["name"], "id": o} for o in orgs]
        view["organizationIds"] = orgs
        view["roles"] = self._roles(user, orgs)
        if with_resources:
            rids = {
                pu["resourceId"]
                for pus in self.world.panel_users.values()
                for pu in pus
                if pu["userId"] == user["userId"]
            }
            view["resources"] = [
                copy.deepcopy(self.world.panels[r])
                for r in sorted(rids)
                if self.world.panels[r]["orgId"] == org
            ]
        return view

    def _panel(self, org: int, rid: int) -> Record:
        panel = self.world.panels.get(rid)
        if panel is None or panel["orgId"] != org:
            raise not_found(f"resourceId {rid}")
        return panel

    def _member(self, org: int, user_id: int, field: str = "userId") -> Record:
        user = self.world.users.get(user_id)
        if user is None or org not in user["orgIds"]:
            raise not_found(f"{field} {user_id}")
        return user

    def _org_user(self, user: Record, org: int) -> Record:
        """The long Organization user shape of the bulk listing (nested records kept shallow)."""
        roles = [
            self.world.roles[r] for r in user["roleIds"] if self.world.roles.get(r, {}).get("orgId") == org
        ]
        privileges = self.world.privileges[user["userId"]]
        validity = privileges["userPrivilegeValidity"]
        return {
            "emailAddress": user["emailAddress"],
            "emailAddressVerified": user["emailAddressVerified"],
            "extendedRoles": [
                {k: r[k] for k in ("inherited", "roleId", "roleName", "type", "typeName", "typePK")}
                for r in roles
            ],
            "firstName": user["firstName"],
            "instanceId": user["instanceId"],
            "instanceName": user["instanceName"],
            "lastName": user["lastName"],
            "localeId": user["localeId"],
            "middleName": user["middleName"],
            "organizationIds": [org],
            "resourceGroups": [],
            "resources": [],
            "roles": [
                {
                    "instanceId": user["instanceId"],
                    "localization": r["roleName"],
                    "name": r["roleName"],
                    "roleId": r["roleId"],
                    "rolePrivilegeGroups": [],
                    "type": r["type"],
                }
                for r in roles
            ],
            "screenName": user["screenName"],
            "status": user["status"],
            "timeZoneId": user["timeZoneId"],
            "userId": user["userId"],
            "userPrivilegeGroups": [
                {
                    "authority": g["authority"],
                    "id": g["id"],
                    "scopePk": g["scopePk"],
                    "privilegeGroup": {
                        "id": g["privilegeGroupId"],
                        "name": PRIVILEGE_GROUPS[g["privilegeGroupId"] - 1]["name"],
                    },
                }
                for g in privileges["userPrivilegeGroups"]
            ],
            "userPrivilegeValidities": [
                {
                    "expiration": validity["expiration"],
                    "id": validity["id"],
                    "period": ",".join(str(d["dayOfWeek"]) for d in validity["accessibleDays"]),
                    "scopePk": org,
                    "validityStart": validity["validityStart"],
                }
            ],
        }

    # --- reads ------------------------------------------------------------------------------------------
    def bulk_org_users(self, org: int) -> list[Record]:
        with self.lock:
            out = []
            for rid, panel in self.world.panels.items():
                if panel["orgId"] != org:
                    continue
                pus = self.world.panel_users.get(rid, [])
                users = [self.world.users[pu["userId"]] for pu in pus if pu["userId"] in self.world.users]
                out.append(
                    {
                        "resourceId": rid,
                        "resourceModel": panel["modelName"],
                        "resourceUserResponseList": copy.deepcopy(pus),
                        "organizationUserList": [self._org_user(u, org) for u in users],
                    }
                )
            return out

    def activities(self, org: int, q: Any) -> Record:
        with self.lock:
            rids = q.resourceIds or [rid for rid, p in self.world.panels.items() if p["orgId"] == org]
            for rid in rids:
                self._panel(org, rid)
            selected = [
                a
                for rid in dict.fromkeys(rids)
                for a in _window(activities_of(self.world, rid), q.startTime, q.endTime)
                if _matches(a, q)
            ]
        return self._page(selected, q.page, q.pageSize)

    def _page(self, selected: list[Record], page: int | None, size: int | None) -> Record:
        page = self.first_page if page is None else page
        size = 20 if size is None else size
        selected.sort(key=lambda a: (a["activityTime"], a["eventId"]), reverse=True)
        start = (page - self.first_page) * size
        return {
            "totalRecords": len(selected),
            "page": page,
            "pageSize": size,
            "activities": [self._activity_view(a) for a in selected[start : start + size]],
        }

    def _activity_view(self, activity: Record) -> Record:
        """The spec's Activity record; the panel id only with the activity-resource-id extension."""
        if ACTIVITY_RESOURCE_ID in self.extensions:
            return dict(activity)
        return {k: v for k, v in activity.items() if k != "resourceId"}

    def push_history(self, org: int, q: Any) -> list[Record]:
        """Push notifications of a panel = its violations and errors (events are not pushed)."""
        with self.lock:
            self._panel(org, q.resourceId)
            selected = [
                a
                for a in _window(activities_of(self.world, q.resourceId), q.startTime, q.endTime)
                if a["eventType"] != "event"
            ]
        return [self._page(selected, q.page, q.pageSize)]

    def org_users(self, org: int, user_id: int, caller: Record) -> list[Record]:
        with self.lock:
            self._member(org, user_id)
            return [
                self._user_view(u, caller["orgIds"], False, org)
                for u in self.world.users.values()
                if org in u["orgIds"]
            ]

    def user_by_email(self, org: int, email: str, caller: Record) -> Record:
        with self.lock:
            for user in self.world.users.values():
                if user["emailAddress"].lower() == email.lower() and org in user["orgIds"]:
                    return self._user_view(user, caller["orgIds"], True, org)
            raise not_found(f"emailAddress {email}")

    def controllers(self, org: int, rid: int) -> list[Record]:
        with self.lock:
            return copy.deepcopy(self._panel(org, rid)["resourceControllers"])

    def sensors(self, org: int, rid: int) -> Record:
        with self.lock:
            return copy.deepcopy(self._panel(org, rid)["resourceSensors"][0])

    def user_privileges(self, org: int, user_id: int) -> Record:
        with self.lock:
            self._member(org, user_id)
            result = copy.deepcopy(self.world.privileges[user_id])
            del result["authorizedResourceIds"]
            return result

    def role_privileges(self, org: int, role_id: int) -> list[Record]:
        with self.lock:
            role = self.world.roles.get(role_id)
            if role is None or role["orgId"] != org:
                raise not_found(f"roleId {role_id}")
            return copy.deepcopy(self.world.role_privileges[role_id])

    def cameras(self, org: int) -> list[Record]:
        with self.lock:
            extended = CAMERA_FIELDS in self.extensions
            return [
                camera_summary(c, extended) for c in self.world.cameras.values() if c["organizationId"] == org
            ]

    def controller_log(self, org: int, rid: int | None, start: int | None, end: int | None) -> list[Record]:
        with self.lock:
            if rid is not None:
                self._panel(org, rid)
            panels = (
                {rid} if rid is not None else {r for r, p in self.world.panels.items() if p["orgId"] == org}
            )
            out = [
                e
                for e in self.world.controller_log.values()
                if e["resourceId"] in panels and _in_range(e["lastUpdate"], start, end)
            ]
            return copy.deepcopy(sorted(out, key=lambda e: (e["resourceId"], e["orderNo"])))

    def bills(self, org: int, q: Any) -> list[Record]:
        with self.lock:
            if q.organizationId is not None and q.organizationId != org:
                raise not_found(f"organizationId {q.organizationId}")
            sub = self.world.subscriptions.get(q.subscriptionId)
            if sub is None or sub["orgId"] != org:
                raise not_found(f"subscriptionId {q.subscriptionId}")
            bills = sub["bills"]
            if q.billId:
                bills = [b for b in bills if b["id"] == str(q.billId)]
                if not bills:
                    raise not_found(f"billId {q.billId}")
            if q.monthFilter:
                bills = [b for b in bills if b["billDate"].startswith(q.monthFilter)]
            return copy.deepcopy(bills)

    def customers(self, org: int, phone: str | None, identity: str | None) -> list[Record]:
        digits = "".join(ch for ch in phone or "" if ch.isdigit())
        with self.lock:
            out = []
            for c in self.world.customers.get(org, []):
                c_digits = "".join(
                    ch for ch in c["contactMedium"][0]["characteristic"]["phoneNumber"] if ch.isdigit()
                )
                by_phone = len(digits) >= 7 and (c_digits.endswith(digits) or digits.endswith(c_digits))
                if by_phone or (identity and identity == c["identityNumber"]):
                    view = {
                        k: copy.deepcopy(v) for k, v in c.items() if k not in ("clearName", "identityNumber")
                    }
                    view["name"] = mask_name(c["clearName"])
                    out.append(view)
            return out

    # --- writes -----------------------------------------------------------------------------------------
    def set_privileges(self, org: int, body: Any) -> list[Record]:
        with self.lock:
            if body.organizationId != org:
                raise not_found(f"organizationId {body.organizationId}")
            self._member(org, body.userId)
            for rid in body.authorizedResourceIds:
                self._panel(org, rid)  # 404 for a panel outside the organization
            known = {pg["id"] for pg in PRIVILEGE_GROUPS}
            for i, pg in enumerate(body.privilegeGroups):
                if pg.privilegeGroupId not in known:
                    raise ApiError(
                        400,
                        f"privilegeGroups[{i}].privilegeGroupId: unknown privilege group "
                        f"{pg.privilegeGroupId}",
                    )
            missing = sorted(known - {pg.privilegeGroupId for pg in body.privilegeGroups})
            if missing:
                raise ApiError(
                    400,
                    "privilegeGroups: must list all privilege groups; missing "
                    + ", ".join(map(str, missing)),
                )
            current = self.world.privileges[body.userId]
            validity = current["userPrivilegeValidity"]
            if body.period is not None:
                validity["accessibleDays"] = [p.model_dump() for p in body.period]
            if body.expirationTime is not None:
                validity["expiration"] = body.expirationTime
            if body.validityStart is not None:
                validity["validityStart"] = body.validityStart
            current["userPrivilegeGroups"] = [
                {
                    "id": body.userId * 10 + pg.privilegeGroupId,
                    "privilegeGroupId": pg.privilegeGroupId,
                    "authority": pg.authorized,
                    "scopePk": org,
                }
                for pg in sorted(body.privilegeGroups, key=lambda p: p.privilegeGroupId)
            ]
            current["authorizedResourceIds"] = list(body.authorizedResourceIds)
            return [{"message": f"privileges of user {body.userId} updated", "success": True}]

    def update_task(self, org: int, body: Any) -> Record:
        with self.lock:
            task = self.world.tasks.get(body.taskId)
            if task is None or task["orgId"] != org:
                raise not_found(f"taskId {body.taskId}")
            for i, rid in enumerate(body.resources or []):
                if self.world.panels.get(rid, {}).get("orgId") != org:
                    raise not_found(f"resources[{i}] {rid}")
            for i, uid in enumerate(body.users or []):
                self._member(org, uid, f"users[{i}]")
            # Partial update (simulator/README.md, operation 5): a field left out, or sent as null, keeps
            # what is stored, inside notificationOptions too; a field sent (an empty list included) replaces.
            changes = body.model_dump(exclude_unset=True, exclude_none=True)
            options = changes.pop("notificationOptions", None)
            if options is not None:
                uid = options.get("userId")
                if uid is not None:
                    self._member(org, uid, "notificationOptions.userId")
                task["notificationOptions"] = {**(task.get("notificationOptions") or {}), **options}
            task.update(changes)
            return {"message": f"task {body.taskId} updated", "success": True}

    def set_camera(self, rid: int, status: str | None, enabled: bool | None, name: str | None) -> Record:
        """Test control: a camera's stored status, whether it is in service (bound), and its name."""
        with self.lock:
            camera = self.world.cameras.get(rid)
            if camera is None:
                raise not_found(f"camera {rid}")
            if status is not None:
                camera["status"] = status
            if enabled is not None:
                camera["bindStatus"] = "bound" if enabled else "unbound"
            if name is not None:
                camera["name"] = name
            return camera_summary(camera, extended=True)

    def add_camera(self, org: int, body: Any) -> Record:
        with self.lock:
            target = body.organizationId if body.organizationId is not None else org
            if target != org:
                raise not_found(f"organizationId {target}")
            if body.subscriptionId is not None:
                sub = self.world.subscriptions.get(body.subscriptionId)
                if sub is None or sub["orgId"] != org:
                    raise not_found(f"subscriptionId {body.subscriptionId}")
            if any(c.get("deviceSerial") == body.deviceSerial for c in self.world.cameras.values()):
                raise ApiError(409, f"deviceSerial {body.deviceSerial} is already registered", "CONFLICT")
            rid = self.world.next_camera_id
            self.world.next_camera_id += 1
            brand = body.brand or "Hikvision"
            camera = {
                "resourceId": rid,
                "networkId": f"CAM-{rid:X}",
                "organizationId": org,
                "name": body.name,
                "brand": brand,
                "deviceType": "IPC",
                "httpPort": "80",
                "rtspPort": "554",
                "deviceModelName": "",
                "channelNum": "1",
                "privateMediaPort": "8000",
                "port": "8000",
                "deviceModel": "",
                "ability": "motion",
                "bindStatus": "bound",
                "status": "online",
                "sdCardStatus": "none",
                "permission": "owner",
                "version": "",
                "ncCode": body.ncCode or "",
                "securityCode": body.securityCode or "",
                "deviceSerial": body.deviceSerial,
                "subscriptionId": body.subscriptionId or org * 10 + 1,
            }
            self.world.cameras[rid] = camera
            return camera_record(camera)

    def update_sensor(self, org: int, sensor_id: int, description: str) -> Record:
        with self.lock:
            sensor = self.world.sensors.get(sensor_id)
            if sensor is None or self.world.panels[sensor["resourceId"]]["orgId"] != org:
                raise not_found(f"resourceSensorId {sensor_id}")
            sensor["description"] = description
            return {"message": f"description of sensor {sensor_id} updated", "success": True}

    def delete_resource_user(self, org: int, rid: int, user_id: int) -> Record:
        with self.lock:
            self._panel(org, rid)
            pus = self.world.panel_users.get(rid, [])
            kept = [pu for pu in pus if pu["userId"] != user_id]
            if len(kept) == len(pus):
                raise not_found(f"userId {user_id} on resourceId {rid}")
            self.world.panel_users[rid] = kept
            return {"message": f"user {user_id} removed from resource {rid}", "success": True}

    def delete_user(self, org: int, user_id: int, caller: Record) -> Record:
        with self.lock:
            self._member(org, user_id)
            if user_id == caller["userId"]:
                raise ApiError(400, "userId: a user cannot delete itself")
            del self.world.users[user_id]
            for rid, pus in self.world.panel_users.items():
                self.world.panel_users[rid] = [pu for pu in pus if pu["userId"] != user_id]
            self.sessions = {t: s for t, s in self.sessions.items() if s[0] != user_id}
            return {"message": f"user {user_id} deleted", "success": True}

    def device_token(self, org: int, body: Any) -> Record:
        with self.lock:
            self._member(org, body.userId)
            key = (body.userId, body.appId)
            existed = key in self.world.device_tokens
            self.world.device_tokens[key] = {
                "userId": body.userId,
                "appId": body.appId,
                "requestToken": body.requestToken,
                "orgId": org,
                "at": now_ms(),
            }
            return {"message": "device token " + ("updated" if existed else "added"), "success": True}

    # --- live activity and test control ------------------------------------------------------------------
    def add_activities(
        self, rid: int, count: int, kind: str | None, at: int | None = None, name: str | None = None
    ) -> list[Record]:
        """New activities of panel `rid` stamped now (or back-dated to `at`, kept in time order so that
        they arrive out of order), named `name` if given; each also moves one controller's logged value."""
        with self.lock:
            if rid not in self.world.panels:
                raise not_found(f"resourceId {rid}")
            if rid in self.silenced:
                raise ApiError(
                    409, f"panel {rid} is silenced: POST /_sim/panels/{rid}/report first", "CONFLICT"
                )
            created = []
            base = now_ms() if at is None else at
            sensors = self.world.panels[rid]["resourceSensors"][0]["sensors"]
            for i in range(count):
                # Each names a sensor of its panel, as the history's do ("<name> on <panel> - <sensor>": the
                # card's "Sensor / zone"); taken in turn, not drawn, so the seed's draws stay as they were.
                turn = self.world.event_seq.get(rid, 0)
                sensor = sensors[turn % len(sensors)]["sensorName"] if sensors else None
                activity = new_activity(self.world, self.rng, rid, base + i, kind, sensor, live=True)
                if name is not None:
                    where = f" - {sensor}" if sensor else ""
                    activity["violationName"] = name
                    activity["description"] = f"{name} on {self.world.panels[rid]['resourceName']}{where}"
                bisect.insort_right(activities_of(self.world, rid), activity, key=_TIME)
                created.append(copy.deepcopy(activity))
                self._touch_controller(rid, base + i)
            return created

    def _touch_controller(self, rid: int, at_ms: int) -> None:
        controllers = self.world.panels[rid]["resourceControllers"]
        if not controllers:
            return
        ctl = self.rng.choice(controllers)
        entry = self.world.controller_log[ctl["id"]]
        entry["value"] = ctl["trueValue"] if entry["value"] == ctl["falseValue"] else ctl["falseValue"]
        entry["lastUpdate"] = at_ms

    def live_tick(self) -> None:
        with self.lock:
            talking = [rid for rid in self.world.panels if rid not in self.silenced]
            if not talking:
                return
            rid = self.rng.choice(talking)
        self.add_activities(rid, 1, None)

    def silence(self, rid: int) -> Record:
        """The panel's communicator goes down: no activity reaches the service and its controllers'
        lastUpdate stays where it is, until `report`."""
        with self.lock:
            if rid not in self.world.panels:
                raise not_found(f"resourceId {rid}")
            self.silenced.add(rid)
            return self._silence_state(rid)

    def report(self, rid: int) -> list[Record]:
        """The panel talks again: it reports one event now (which moves one controller's lastUpdate too)."""
        with self.lock:
            if rid not in self.world.panels:
                raise not_found(f"resourceId {rid}")
            self.silenced.discard(rid)
            return self.add_activities(rid, 1, "event", name="Communication restored")

    def _silence_state(self, rid: int) -> Record:
        updates = [e["lastUpdate"] for e in self.world.controller_log.values() if e["resourceId"] == rid]
        acts = activities_of(self.world, rid)
        return {
            "resourceId": rid,
            "silenced": rid in self.silenced,
            "lastActivity": acts[-1]["activityTime"] if acts else None,
            "lastUpdate": max(updates) if updates else None,
        }

    def all_activities(self, since: int) -> list[Record]:
        with self.lock:
            out = []
            for rid, panel in self.world.panels.items():
                acts = activities_of(self.world, rid)
                org = panel["orgId"]
                out += [{**a, "resourceId": rid, "orgId": org} for a in acts if a["activityTime"] >= since]
        return sorted(out, key=lambda a: (a["activityTime"], a["eventId"]))

    def all_customers(self) -> list[Record]:
        """Customers with their org and clear phone numbers (names stay masked), for tests to look up."""
        with self.lock:
            return [
                {
                    **{k: copy.deepcopy(v) for k, v in c.items() if k not in ("clearName", "identityNumber")},
                    "name": mask_name(c["clearName"]),
                    "orgId": org,
                }
                for org, customers in self.world.customers.items()
                for c in customers
            ]

    def tasks(self) -> list[Record]:
        with self.lock:
            return copy.deepcopy(list(self.world.tasks.values()))

    def held(self, kind: str, key: int) -> Record:
        """Test control (read-only): everything the simulator holds for one record that a write operation
        changes, as stored (extras included; a secret as a digest: `_masked`), for tests that compare before
        and after a write. `kind`: task (5), privileges (4: a user's), camera (6), sensor (9), panel-users
        (10: a panel's), user (11)."""
        with self.lock:
            found: object = {
                "task": self.world.tasks,
                "privileges": self.world.privileges,
                "camera": self.world.cameras,
                "sensor": self.world.sensors,
                "panel-users": self.world.panel_users,
                "user": self.world.users,
            }[kind].get(key)
            if found is None:
                raise not_found(f"{kind} {key}")
            return {"kind": kind, "id": key, "record": _masked(copy.deepcopy(found))}

    def device_tokens(self) -> list[Record]:
        with self.lock:
            return copy.deepcopy(list(self.world.device_tokens.values()))


HELD_SECRETS = frozenset({"password", "mqPassword", "pinCode", "securityCode", "ncCode"})


def _masked(value: Any) -> Any:
    """`value` with each secret replaced by `***` and a digest of it: never shown, yet a changed secret
    still compares unequal."""
    if isinstance(value, dict):
        return {
            k: f"***{hashlib.sha256(str(v).encode()).hexdigest()[:12]}" if k in HELD_SECRETS else _masked(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


def camera_record(camera: Record) -> Record:
    """The spec's Camera record (secrets included: operation 6 answers the full record)."""
    return {k: v for k, v in camera.items() if k not in ("deviceSerial", "subscriptionId")}


def camera_summary(camera: Record, extended: bool = False) -> Record:
    """Operation 17's item: a Resource summary; `extended` (the camera-fields extension) adds the Camera
    record's non-secret fields."""
    fields = {k: v for k, v in camera_record(camera).items() if k not in SECRET_CAMERA_FIELDS}
    summary = {
        "resourceId": camera["resourceId"],
        "networkId": camera["networkId"],
        "resourceName": camera["name"],
        "enabled": camera["bindStatus"] == "bound",  # an unbound camera is not in service
        "modelName": camera["deviceModelName"],
        "brandName": camera["brand"],
        "treePath": f"/{camera['organizationId']}/cameras",
        "orgId": camera["organizationId"],
        "resourceSensors": [],
        "resourceControllers": [],
        "resourceSubscriptionId": camera["subscriptionId"],
        "subscriptionDocumentNo": f"SUB-{camera['subscriptionId']}",
        "resourceType": "ThirdParty",
        "deviceSubType": "Camera",
    }
    return {**summary, **fields} if extended else summary


def _window(acts: list[Record], start: int | None, end: int | None) -> list[Record]:
    """The activities (oldest first) with start <= activityTime <= end, found by bisection: a poll over
    thousands of panels must not read every panel's whole history."""
    lo = bisect.bisect_left(acts, start, key=_TIME) if start else 0
    hi = bisect.bisect_right(acts, end, key=_TIME) if end else len(acts)
    return acts[lo:hi]


_TIME = operator.itemgetter("activityTime")


def _in_range(t: int, start: int | None, end: int | None) -> bool:
    return (not start or t >= start) and (not end or t <= end)


def _matches(a: Record, q: Any) -> bool:
    if not _in_range(a["activityTime"], q.startTime, q.endTime):
        return False
    if q.types and a["msgType"] != q.types:
        return False
    if q.groupIds and a["group"] not in q.groupIds:
        return False
    if q.startSec is not None or q.finishSec is not None:
        sec = a["activityTime"] // 1000 % 86400  # time of day in UTC
        lo = q.startSec if q.startSec is not None else 0
        hi = q.finishSec if q.finishSec is not None else 86399
        inside = lo <= sec <= hi if lo <= hi else sec >= lo or sec <= hi
        if not inside:
            return False
    return True
