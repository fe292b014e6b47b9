"""Seeded, realistic data for the simulator: organizations, users, panels, cameras, activities, bills...

Everything is drawn from `random.Random(seed)`, so a seed always gives the same records; only the
activity times move with the start time (they are offsets back from it). A panel's activity history is
made the first time it is asked for, from a generator of its own (seed and panel id), so that a fleet of
20,000 panels starts in seconds and the history does not depend on which panel is read first.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

Record = dict[str, Any]

ORG_NAMES = ["Anadolu Guvenlik", "Bosphorus Secure", "Cappadocia Alarm", "Delta Protect", "Ege Monitoring"]
CITIES = ["Istanbul", "Ankara", "Izmir", "Bursa", "Antalya", "Konya"]
DISTRICTS = ["Kadikoy", "Besiktas", "Cankaya", "Karsiyaka", "Nilufer", "Muratpasa", "Selcuklu"]
FIRST = [
    "Ayse",
    "Mehmet",
    "Elif",
    "Can",
    "Zeynep",
    "Emre",
    "Deniz",
    "Burak",
    "Selin",
    "Kerem",
    "Ece",
    "Murat",
]
LAST = ["Yilmaz", "Kaya", "Demir", "Sahin", "Celik", "Ozturk", "Aydin", "Arslan", "Dogan", "Kurt"]
PANEL_MODELS = [("Paradox", "SP6000"), ("DSC", "PowerSeries Neo"), ("Ajax", "Hub 2"), ("Teknim", "TSP-5334")]
CAMERA_MODELS = [
    ("Hikvision", "DS-2CD2143G2"),
    ("Dahua", "IPC-HFW2431S"),
    ("EZVIZ", "C6N"),
    ("Hikvision", "DS-7608NI"),
]
CAMERA_STATUS = ["online", "online", "offline"]
BIND_STATUS = ["bound", "bound", "bound", "unbound"]
SD_STATUS = ["normal", "error", "none", "full", "normal", "normal"]
ROLE_NAMES = ["Administrator", "Operator", "Installer", "Viewer"]
PRIVILEGE_GROUPS = [
    {"id": 1, "name": "Arm and disarm"},
    {"id": 2, "name": "Bypass sensors"},
    {"id": 3, "name": "View cameras"},
    {"id": 4, "name": "Manage panel users"},
    {"id": 5, "name": "Receive notifications"},
    {"id": 6, "name": "View reports"},
]
# (name, ioType, ioDirection, trueValue, falseValue)
SENSOR_KINDS = [
    ("Front door", "Digital", "Input", "Open", "Closed"),
    ("Hall PIR", "Digital", "Input", "Motion", "Idle"),
    ("Smoke detector", "SerialWireless", "Input", "Smoke", "Normal"),
    ("Glass break", "AnalogDigital", "Input", "Broken", "Normal"),
    ("Water leak", "SerialRS485", "Input", "Leak", "Dry"),
    ("Temperature", "Analog", "Input", "High", "Normal"),
    ("Keypad", "SerialRS485", "InputOutput", "Tamper", "Normal"),
    ("Back window", "Digital", "Input", "Open", "Closed"),
]
CONTROLLER_KINDS = [
    ("Siren", "Digital", "Output", "ON", "OFF"),
    ("Door relay", "Digital", "Output", "OPEN", "LOCKED"),
    ("Heating", "AnalogDigital", "InputOutput", "ON", "OFF"),
]
# Activity kinds. msgType and vioType double as the `types` filter of operation 3 (1 event, 2 violation,
# 3 error) and the violation code (0 none, 1 alarm, 2 warning, 3 error). group: 1 intrusion, 2 fire,
# 3 technical, 4 system, 5 user.
EVENTS = [("Armed away", 5), ("Disarmed", 5), ("Armed stay", 5), ("Door opened", 1), ("Door closed", 1)]
ALARMS = [
    ("Burglary alarm", 1),
    ("Fire alarm", 2),
    ("Panic alarm", 1),
    ("Tamper alarm", 1),
    ("Water leak alarm", 3),
]
WARNINGS = [("Low battery", 3), ("Sensor bypassed", 1), ("Entry delay expired", 1), ("High temperature", 3)]
ERRORS = [("AC power loss", 4), ("Communication failure", 4), ("Sensor supervision lost", 3)]
VIOLATION_CODE = {None: 0, "alarm": 1, "warning": 2, "error": 3}
EVENT_TYPE_CODE = {"event": 1, "violation": 2, "error": 3}
DAY_MS = 86_400_000


@dataclass
class World:
    """Every record of the simulated service, keyed for direct lookup."""

    orgs: dict[int, Record] = field(default_factory=dict)
    users: dict[int, Record] = field(default_factory=dict)  # userId -> user (+ password, orgIds, roleIds)
    roles: dict[int, Record] = field(default_factory=dict)  # roleId -> role summary + orgId
    role_privileges: dict[int, list[Record]] = field(default_factory=dict)
    privileges: dict[int, Record] = field(default_factory=dict)  # userId -> User privilege result + extras
    panels: dict[int, Record] = field(default_factory=dict)  # resourceId -> Resource summary
    sensors: dict[int, Record] = field(default_factory=dict)  # sensor id -> Sensor (shared with its panel)
    controllers: dict[int, Record] = field(default_factory=dict)
    controller_log: dict[int, Record] = field(default_factory=dict)  # controller id -> log entry
    panel_users: dict[int, list[Record]] = field(default_factory=dict)  # resourceId -> Resource users
    cameras: dict[int, Record] = field(default_factory=dict)  # resourceId -> Camera record
    # resourceId -> oldest first (sorted by activityTime); made on first use, see `activities_of`
    activities: dict[int, list[Record]] = field(default_factory=dict)
    event_seq: dict[int, int] = field(default_factory=dict)  # resourceId -> last event number
    subscriptions: dict[int, Record] = field(default_factory=dict)  # id -> {id, orgId, bills}
    customers: dict[int, list[Record]] = field(default_factory=dict)  # orgId -> customers (+ secrets)
    tasks: dict[int, Record] = field(default_factory=dict)
    device_tokens: dict[tuple[int, str], Record] = field(default_factory=dict)
    next_camera_id: int = 0
    next_id: int = 900_000_000  # ids of records created at run time
    seed: int = 42
    built_at: int = 0  # epoch-ms the history is counted back from
    history_days: int = 7


@dataclass(frozen=True)
class Scale:
    seed: int = 42
    orgs: int = 3
    panels: int = 24
    history_days: int = 7
    demo_screen_name: str = "demo"
    demo_password: str = "demo"


def iso(ts: datetime) -> str:
    return ts.strftime("%Y-%m-%dT%H:%M:%SZ")


def mask_name(name: str) -> str:
    """'Ayse Yilmaz' -> 'Ay** Yi*****': customer names are never answered in clear."""
    return " ".join(word[:2] + "*" * max(len(word) - 2, 1) for word in name.split())


def panel_id(org_id: int, n: int, width: int) -> int:
    return org_id * 10**width + n


def build(scale: Scale, now_ms: int) -> World:
    rng = random.Random(scale.seed)
    world = World(seed=scale.seed, built_at=now_ms, history_days=scale.history_days)
    org_ids = [1001 + i for i in range(scale.orgs)]
    for i, org_id in enumerate(org_ids):
        name = ORG_NAMES[i % len(ORG_NAMES)] + ("" if i < len(ORG_NAMES) else f" {i + 1}")
        world.orgs[org_id] = {"id": org_id, "name": name}
        _roles(world, org_id)
    _users(world, rng, org_ids, scale)
    per_org = [
        scale.panels // scale.orgs + (1 if i < scale.panels % scale.orgs else 0) for i in range(scale.orgs)
    ]
    width = max(2, len(str(max(per_org, default=1))))
    world.next_camera_id = 5_000_001
    for org_id, count in zip(org_ids, per_org, strict=True):
        _subscriptions(world, rng, org_id, now_ms)
        for n in range(1, count + 1):
            _panel(world, rng, org_id, panel_id(org_id, n, width), n, now_ms, scale.history_days)
        for n in range(1, max(2, count // 2) + 1):
            _camera(world, rng, org_id, n)
        _customers(world, rng, org_id)
        _tasks(world, rng, org_id, now_ms)
    _help_examples(world, org_ids[0], width)
    return world


# What `/sam help` and the README use as examples (issue 37), so that each works on the demo as printed:
# a user Ana (ana@example.com, 20001) with access to the first panel, a user to delete (20002), a customer
# whose phone is +90 555 111 22 33, and a panel named "... Warehouse" (the first organization's second).
# Drawn from a generator of their own, after everything else: the seed's other records stay as they were.
HELP_USER, HELP_USER_TO_DELETE = 20001, 20002
HELP_PHONE = "+90 555 111 22 33"


def _help_examples(world: World, org_id: int, width: int) -> None:
    rng = random.Random(f"{world.seed}/help-examples")
    first_panel, second_panel = panel_id(org_id, 1, width), panel_id(org_id, 2, width)
    fixed = {"status": 0, "emailAddressVerified": True, "localeId": "en_US", "roleIds": [org_id * 10 + 2]}
    _user(world, rng, HELP_USER, [org_id], firstName="Ana", lastName="Demir", screenName="ana",
          emailAddress="ana@example.com", **fixed)  # fmt: skip
    _user(world, rng, HELP_USER_TO_DELETE, [org_id], firstName="Deniz", lastName="Ornek", screenName="deniz",
          emailAddress="deniz@example.com", **fixed)  # fmt: skip
    if first_panel in world.panel_users:
        slots = world.panel_users[first_panel]
        slot = len(slots) + 1
        slots.append(
            {
                "id": first_panel * 10 + slot,
                "resourceId": first_panel,
                "userId": HELP_USER,
                "partitionNo": "1",
                "slotNo": str(slot),
                "pinCode": f"{rng.randint(0, 9999):04d}",
                "userName": "Ana",
            }
        )
    if second_panel in world.panels:
        district = world.panels[second_panel]["treePath"].rsplit("/", 1)[-1]
        world.panels[second_panel]["resourceName"] = f"{district} Warehouse"
    customers = world.customers.get(org_id)
    if customers:
        customers[0]["contactMedium"][0]["characteristic"]["phoneNumber"] = HELP_PHONE


def _roles(world: World, org_id: int) -> None:
    for k, name in enumerate(ROLE_NAMES, start=1):
        role_id = org_id * 10 + k
        world.roles[role_id] = {
            "roleId": role_id,
            "roleName": name,
            "type": 2,
            "inherited": False,
            "typePK": org_id,
            "typeName": "Organization",
            "orgId": org_id,
        }
        world.role_privileges[role_id] = [
            {
                "id": role_id * 10 + pg["id"],
                "roleId": role_id,
                "privilegeGroupId": pg["id"],
                "defaultAuthority": k == 1 or (pg["id"] + k) % 2 == 0,
            }
            for pg in PRIVILEGE_GROUPS
        ]


def _user(world: World, rng: random.Random, user_id: int, org_ids: list[int], **fixed: Any) -> Record:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    user = {
        "userId": user_id,
        "instanceId": 10001,
        "instanceName": "sam",
        "firstName": first,
        "middleName": "",
        "lastName": last,
        "emailAddressVerified": rng.random() < 0.8,
        "status": 0 if rng.random() < 0.9 else 5,
        "nationalId": rng.randint(10**10, 10**11 - 1),
        # No dot: "ayse.yilmaz104" reads as a host name to Slack's linker, so samops breaks it with a
        # zero-width space (core.text.unlinked) and a copied name no longer logs in. Plain ASCII, one word.
        "screenName": f"{first}-{last}{user_id % 1000}".lower(),
        "emailAddress": f"{first}.{last}{user_id % 1000}@example.com".lower(),
        "timeZoneId": "Europe/Istanbul",
        "localeId": rng.choice(["tr_TR", "en_US"]),
        "orgIds": list(org_ids),
        "roleIds": [org_id * 10 + rng.randint(2, 4) for org_id in org_ids],
        "password": f"{rng.getrandbits(64):016x}",  # nobody is told it
    }
    user.update(fixed)
    world.users[user_id] = user
    days = sorted(rng.sample(range(1, 8), rng.randint(3, 7)))
    world.privileges[user_id] = {
        "userId": user_id,
        "userPrivilegeValidity": {
            "id": user_id,
            # start/end of a day window are milliseconds after midnight (epoch-ms of 1970-01-01)
            "accessibleDays": [{"dayOfWeek": d, "start": 8 * 3_600_000, "end": 18 * 3_600_000} for d in days],
            "expiration": 0,
            "validityStart": 0,
        },
        "userPrivilegeGroups": [
            {
                "id": user_id * 10 + pg["id"],
                "privilegeGroupId": pg["id"],
                "authority": rng.random() < 0.6,
                "scopePk": org_ids[0],
            }
            for pg in PRIVILEGE_GROUPS
        ],
        "authorizedResourceIds": [],
    }
    return user


def _users(world: World, rng: random.Random, org_ids: list[int], scale: Scale) -> None:
    demo_orgs = org_ids[:2]
    _user(
        world,
        rng,
        7001,
        demo_orgs,
        firstName="Demo",
        lastName="User",
        screenName=scale.demo_screen_name,
        emailAddress="demo@example.com",
        password=scale.demo_password,
        status=0,
        emailAddressVerified=True,
        localeId="en_US",
        roleIds=[org_id * 10 + 1 for org_id in demo_orgs],
    )
    if len(org_ids) > 2:
        _user(
            world,
            rng,
            7002,
            org_ids[2:],
            firstName="Other",
            lastName="Owner",
            screenName="other",
            emailAddress="other@example.com",
            password="other",
            roleIds=[org_id * 10 + 1 for org_id in org_ids[2:]],
        )
    user_id = 7100
    for org_id in org_ids:
        for _ in range(rng.randint(4, 6)):
            user_id += 1
            _user(world, rng, user_id, [org_id])


def _subscriptions(world: World, rng: random.Random, org_id: int, now_ms: int) -> None:
    now = datetime.fromtimestamp(now_ms / 1000, UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    for k in (1, 2):
        sub_id = org_id * 10 + k
        bills = []
        for m in range(6, 0, -1):
            month = (now - timedelta(days=31 * m)).replace(day=1)
            bill_id = f"{sub_id}{m:03d}"
            bills.append(
                {
                    "id": bill_id,
                    "href": f"/subscription/bill/{bill_id}",
                    "billDate": iso(month),
                    "billNo": f"INV-{month:%Y%m}-{sub_id}",
                    "paymentDueDate": iso(month + timedelta(days=14)),
                    "paymentDate": iso(month + timedelta(days=rng.randint(1, 20))),
                    "amountDue": {"unit": "TRY", "value": round(rng.uniform(250, 4000), 2)},
                    "state": "settled" if m > 2 or rng.random() < 0.3 else "paid",
                }
            )
            if k == 2 and m == 1:
                # Last month's bill of each organization's second subscription is overdue: past its due date
                # and never paid (no paymentDate; the spec's state has no value for "unpaid", so it keeps
                # the one drawn). Drawn like the others first, so every later record stays as the seed gave.
                del bills[-1]["paymentDate"]
        world.subscriptions[sub_id] = {
            "id": sub_id,
            "orgId": org_id,
            "documentNo": f"SUB-{sub_id}",
            "bills": bills,
        }


def _panel(world: World, rng: random.Random, org_id: int, rid: int, n: int, now_ms: int, days: int) -> None:
    brand, model = rng.choice(PANEL_MODELS)
    city, district = rng.choice(CITIES), rng.choice(DISTRICTS)
    partitions = [{"name": "Partition 1", "no": 1}]
    if rng.random() < 0.4:
        partitions.append({"name": "Partition 2", "no": 2})
    sensors = []
    for order, kind in enumerate(rng.sample(SENSOR_KINDS, rng.randint(4, 7)), start=1):
        name, io_type, io_dir, true_v, false_v = kind
        sensor = {
            "id": rid * 100 + order,
            "resourceId": rid,
            "orderNo": order,
            "ioType": io_type,
            "ioDirection": io_dir,
            "trueValue": true_v,
            "falseValue": false_v,
            "partitions": [rng.choice(partitions)],
            "sensorId": 1000 + order,
            "description": f"{name} ({district})",
            "hardwareSerialNumber": f"SN{rid:07d}{order:02d}",
            "sensorName": name,
        }
        sensors.append(sensor)
        world.sensors[sensor["id"]] = sensor
    controllers = []
    for order, kind in enumerate(rng.sample(CONTROLLER_KINDS, rng.randint(1, 3)), start=1):
        name, io_type, io_dir, true_v, false_v = kind
        ctl = {
            "hardwareSerialNumber": f"CT{rid:07d}{order:02d}",
            "id": rid * 100 + 50 + order,
            "resourceId": rid,
            "orderNo": order,
            "ioType": io_type,
            "ioDirection": io_dir,
            "trueValue": true_v,
            "falseValue": false_v,
            "description": f"{name} ({district})",
            "controllerName": name,
            "controllerId": 2000 + order,
            "partitions": list(partitions),
        }
        controllers.append(ctl)
        world.controllers[ctl["id"]] = ctl
        world.controller_log[ctl["id"]] = {
            "lastUpdate": now_ms - rng.randint(0, days * DAY_MS),
            "orderNo": order,
            "resourceControllerId": ctl["id"],
            "resourceId": rid,
            "value": rng.choice([true_v, false_v, false_v]),
        }
    sub_id = org_id * 10 + rng.randint(1, 2)
    world.panels[rid] = {
        "resourceId": rid,
        "networkId": f"NET-{rid:X}",
        "resourceName": f"{district} Branch {n}",
        "enabled": rng.random() < 0.92,
        "modelName": model,
        "brandName": brand,
        "treePath": f"/{org_id}/{city}/{district}",
        "orgId": org_id,
        "resourceSensors": [{"type": "Zone", "sensors": sensors}],
        "resourceControllers": controllers,
        "resourceSubscriptionId": sub_id,
        "subscriptionDocumentNo": f"SUB-{sub_id}",
        "resourceType": "Gateway" if rng.random() < 0.1 else "Device",
        "deviceSubType": "AlarmPanel",
    }
    world.panel_users[rid] = [
        {
            "id": rid * 10 + slot,
            "resourceId": rid,
            "userId": uid,
            "partitionNo": str(rng.choice(partitions)["no"]),
            "slotNo": str(slot),
            "pinCode": f"{rng.randint(0, 9999):04d}",
            "userName": world.users[uid]["firstName"],
        }
        for slot, uid in enumerate(_org_user_ids(world, org_id, rng), start=1)
    ]


def _org_user_ids(world: World, org_id: int, rng: random.Random) -> list[int]:
    members = [u["userId"] for u in world.users.values() if org_id in u["orgIds"]]
    return rng.sample(members, min(len(members), rng.randint(2, 4)))


def new_activity(
    world: World,
    rng: random.Random,
    rid: int,
    at_ms: int,
    kind: str | None = None,
    sensor_name: str | None = None,
    live: bool = False,
) -> Record:
    """One activity of panel `rid`; kind None draws one (mostly events, some violations and errors). A live
    one's eventId carries this run's start, so a restarted simulator never reuses an id a client already
    holds (the history's ids are the same on every start, as its records are)."""
    if kind is None:
        roll = rng.random()
        kind = "event" if roll < 0.6 else "alarm" if roll < 0.75 else "warning" if roll < 0.9 else "error"
    table = {"event": EVENTS, "alarm": ALARMS, "warning": WARNINGS, "error": ERRORS}[kind]
    name, group = rng.choice(table)
    event_type = "event" if kind == "event" else "error" if kind == "error" else "violation"
    violation_type = None if kind == "event" else kind
    seq = world.event_seq.get(rid, 0) + 1
    world.event_seq[rid] = seq
    panel_name = world.panels[rid]["resourceName"] if rid in world.panels else str(rid)
    where = f" - {sensor_name}" if sensor_name else ""
    return {
        "eventId": f"EV-{rid}-{world.built_at:x}-{seq:06d}" if live else f"EV-{rid}-{seq:06d}",
        "activityTime": at_ms,
        "description": f"{name} on {panel_name}{where}",
        "eventType": event_type,
        "violationName": name,
        "violationType": violation_type,
        "msgType": EVENT_TYPE_CODE[event_type],
        "vioType": VIOLATION_CODE[violation_type],
        "group": group,
        "resourceId": rid,
    }


def activities_of(world: World, rid: int) -> list[Record]:
    """The activities of panel `rid`, oldest first; its history is made here on first use (the caller
    holds the store's lock). Always before a new activity is added, so event numbers stay in order."""
    acts = world.activities.get(rid)
    if acts is None:
        rng = random.Random(f"{world.seed}/history/{rid}")
        sensors = world.panels[rid]["resourceSensors"][0]["sensors"]
        acts = world.activities[rid] = _history(world, rng, rid, sensors, world.built_at, world.history_days)
    return acts


def _history(
    world: World, rng: random.Random, rid: int, sensors: list[Record], now_ms: int, days: int
) -> list[Record]:
    count = sum(rng.randint(2, 5) for _ in range(days))
    times = sorted(now_ms - rng.randint(60_000, max(days * DAY_MS, 60_001)) for _ in range(count))
    return [new_activity(world, rng, rid, t, sensor_name=rng.choice(sensors)["sensorName"]) for t in times]


def _camera(world: World, rng: random.Random, org_id: int, n: int) -> None:
    brand, model = rng.choice(CAMERA_MODELS)
    rid = world.next_camera_id
    world.next_camera_id += 1
    nvr = model.startswith("DS-76")
    world.cameras[rid] = {
        "resourceId": rid,
        "networkId": f"CAM-{rid:X}",
        "organizationId": org_id,
        "name": f"{rng.choice(DISTRICTS)} Camera {n}",
        "brand": brand,
        "deviceType": "NVR" if nvr else "IPC",
        "httpPort": "80",
        "rtspPort": "554",
        "deviceModelName": model,
        "channelNum": "8" if nvr else "1",
        "privateMediaPort": "8000",
        "port": "8000",
        "deviceModel": model,
        "ability": ",".join(
            rng.sample(["ptz", "audio", "motion", "ir", "sdcard", "talk"], rng.randint(2, 4))
        ),
        # Cycled by position rather than drawn, so that even four cameras show every value.
        "bindStatus": BIND_STATUS[n % len(BIND_STATUS)],
        "status": CAMERA_STATUS[n % len(CAMERA_STATUS)],
        "sdCardStatus": SD_STATUS[(n - 1) % len(SD_STATUS)],
        "permission": rng.choice(["owner", "viewer"]),
        "version": f"V5.{rng.randint(4, 8)}.{rng.randint(0, 9)}",
        "ncCode": f"{rng.getrandbits(32):08X}",
        "securityCode": f"{rng.getrandbits(24):06X}",
        "deviceSerial": f"D{rid}",
        "subscriptionId": org_id * 10 + 1,
    }


def _customers(world: World, rng: random.Random, org_id: int) -> None:
    customers = []
    for k in range(1, 5):
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        phone = (
            f"+90 5{rng.randint(30, 59)} {rng.randint(100, 999)} {rng.randint(10, 99)} {rng.randint(10, 99)}"
        )
        city = rng.choice(CITIES)
        customers.append(
            {
                "id": f"CUST-{org_id}-{k}",
                "clearName": name,
                "identityNumber": str(rng.randint(10**10, 10**11 - 1)),
                "contactMedium": [
                    {
                        "characteristic": {
                            "city": city,
                            "country": "TR",
                            "phoneNumber": phone,
                            "socialNetworkId": "",
                            "street1": f"{rng.choice(DISTRICTS)} Cad. No:{rng.randint(1, 120)}",
                        }
                    }
                ],
                "engagedParty": {"name": world.orgs[org_id]["name"], "id": str(org_id)},
            }
        )
    world.customers[org_id] = customers


def _tasks(world: World, rng: random.Random, org_id: int, now_ms: int) -> None:
    members = [u["userId"] for u in world.users.values() if org_id in u["orgIds"]]
    panels = [rid for rid, p in world.panels.items() if p["orgId"] == org_id]
    for k in range(1, 4):
        task_id = org_id * 100 + k
        day = datetime.fromtimestamp(now_ms / 1000 + k * 86400, UTC)
        world.tasks[task_id] = {
            "taskId": task_id,
            "orgId": org_id,
            "taskName": ["Nightly arm check", "Weekly battery report", "Monthly sensor test"][k - 1],
            "taskType": k,
            "taskDates": [day.strftime("%Y-%m-%d")],
            "notificationOptions": {"channels": ["push"], "audience": ["admins"], "userId": members[0]},
            "selection": "resources",
            "resources": panels[: rng.randint(1, 3)],
            "users": members[:2],
            "combinedData": [],
            "userType": "organization",
        }
