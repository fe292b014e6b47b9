"""Every one of the 21 operations, built from the spec with the test-side client, against a real simulator.

Reads use the shared session simulator; writes use this module's own simulator, so that other tests
never see them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.processes import Simulator, run_simulator
from tests.support.spec_client import SpecClient

SENSOR_FIELDS = {
    "id",
    "resourceId",
    "orderNo",
    "ioType",
    "ioDirection",
    "trueValue",
    "falseValue",
    "partitions",
    "sensorId",
    "description",
    "hardwareSerialNumber",
    "sensorName",
}
CONTROLLER_FIELDS = {
    "hardwareSerialNumber",
    "id",
    "resourceId",
    "orderNo",
    "ioType",
    "ioDirection",
    "trueValue",
    "falseValue",
    "description",
    "controllerName",
    "controllerId",
    "partitions",
}
ACTIVITY_FIELDS = {
    "eventId",
    "activityTime",
    "description",
    "eventType",
    "violationName",
    "violationType",
    "msgType",
    "vioType",
    "group",
}
IO_TYPES = {
    "Digital",
    "Analog",
    "AnalogDigital",
    "SerialUSART",
    "SerialRS232",
    "SerialRS485",
    "SerialCAN",
    "SerialEthernet",
    "SerialI2C",
    "SerialSPI",
    "SerialOneWire",
    "User",
    "SerialMdb",
    "SerialWireless",
}


@pytest.fixture(scope="module")
def api(simulator: Simulator) -> Iterator[tuple[SpecClient, dict[str, Any]]]:
    with SpecClient(simulator.base_url) as client:
        yield client, client.login()


@pytest.fixture(scope="module")
def own() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", seed=7) as sim:
        yield sim


@pytest.fixture
def writer(own: Simulator) -> Iterator[tuple[SpecClient, dict[str, Any]]]:
    with SpecClient(own.base_url) as client:
        yield client, client.login()


def panels_of(login: dict[str, Any], org: int) -> list[dict[str, Any]]:
    return [p for p in login["resources"] if p["orgId"] == org]


# --- 1 ---------------------------------------------------------------------------------------------------
def test_login_returns_the_whole_login_result(api: tuple[SpecClient, dict]) -> None:
    _, login = api
    assert {
        "token",
        "mqUser",
        "mqPassword",
        "userId",
        "emailAddress",
        "screenName",
        "localeId",
        "roles",
        "organizations",
        "organizationIds",
        "resources",
    } <= login.keys()
    assert login["screenName"] == "demo"
    assert login["organizationIds"] == [1001, 1002]
    assert login["organizations"][0] == {"name": login["organizations"][0]["name"], "id": "1001"}
    assert {r["roleId"] for r in login["roles"]} and all(
        {"roleId", "roleName", "type", "inherited", "typePK", "typeName"} <= r.keys() for r in login["roles"]
    )
    assert {p["orgId"] for p in login["resources"]} == {1001, 1002}
    panel = login["resources"][0]
    assert panel["resourceType"] in {"Device", "ThirdParty", "Virtual", "Gateway"}
    assert panel["resourceSensors"][0]["sensors"][0].keys() >= SENSOR_FIELDS
    assert panel["resourceControllers"][0].keys() >= CONTROLLER_FIELDS


def test_login_is_deterministic_for_a_seed(simulator: Simulator) -> None:
    with SpecClient(simulator.base_url) as a, SpecClient(simulator.base_url) as b:
        first, second = a.login(), b.login()
    assert first["resources"] == second["resources"]
    assert first["token"] != second["token"]


def test_login_with_a_wrong_password_is_401(api: tuple[SpecClient, dict]) -> None:
    client, _ = api
    response = client.call(
        "POST", "/auth/login", {"screenName": "demo", "password": "nope", "rememberMe": False}, auth=False
    )
    assert response.status_code == 401
    assert response.json()["error"] == "UNAUTHORIZED"
    assert "nope" not in response.text


# --- 2 ---------------------------------------------------------------------------------------------------
def test_bulk_organization_users_pairs_panels_with_their_users(api: tuple[SpecClient, dict]) -> None:
    client, login = api
    pairs = client.ok("GET", "/enterprise/bulk/get-organization-users")
    assert {p["resourceId"] for p in pairs} == {p["resourceId"] for p in panels_of(login, 1001)}
    pair = pairs[0]
    assert pair["resourceModel"]
    resource_user = pair["resourceUserResponseList"][0]
    assert {
        "id",
        "resourceId",
        "userId",
        "partitionNo",
        "slotNo",
        "pinCode",
        "userName",
    } <= resource_user.keys()
    assert resource_user["pinCode"].isdigit()
    org_users = {u["userId"]: u for u in pair["organizationUserList"]}
    assert resource_user["userId"] in org_users
    assert org_users[resource_user["userId"]]["organizationIds"] == [1001]


# --- 3 ---------------------------------------------------------------------------------------------------
def test_activities_are_paged_newest_first_with_a_correct_total(api: tuple[SpecClient, dict]) -> None:
    client, login = api
    rid = panels_of(login, 1001)[0]["resourceId"]
    first = client.ok("POST", "/activities", {"resourceIds": [rid], "page": 1, "pageSize": 5})
    assert first["page"] == 1 and first["pageSize"] == 5 and len(first["activities"]) == 5
    total = first["totalRecords"]
    seen = []
    for page in range(1, (total + 4) // 5 + 1):
        body = client.ok("POST", "/activities", {"resourceIds": [rid], "page": page, "pageSize": 5})
        assert body["totalRecords"] == total
        seen += body["activities"]
    assert len(seen) == total == len({a["eventId"] for a in seen})
    times = [a["activityTime"] for a in seen]
    assert times == sorted(times, reverse=True)
    assert seen[0].keys() >= ACTIVITY_FIELDS
    assert all(a["resourceId"] == rid for a in seen)


def test_activities_filter_by_type_time_and_group(api: tuple[SpecClient, dict]) -> None:
    client, login = api
    rids = [p["resourceId"] for p in panels_of(login, 1001)]
    everything = client.ok("POST", "/activities", {"resourceIds": rids, "page": 1, "pageSize": 1000})
    acts = everything["activities"]
    assert {a["eventType"] for a in acts} == {"event", "violation", "error"}
    assert {a["violationType"] for a in acts if a["eventType"] != "event"} == {"alarm", "warning", "error"}
    for types, kind in ((1, "event"), (2, "violation"), (3, "error")):
        page = client.ok("POST", "/activities", {"resourceIds": rids, "pageSize": 1000, "types": types})
        assert page["totalRecords"] == sum(a["eventType"] == kind for a in acts) > 0
        assert {a["eventType"] for a in page["activities"]} == {kind}
    middle = sorted(a["activityTime"] for a in acts)[len(acts) // 2]
    recent = client.ok("POST", "/activities", {"resourceIds": rids, "pageSize": 1000, "startTime": middle})
    assert recent["totalRecords"] == sum(a["activityTime"] >= middle for a in acts)
    group = acts[0]["group"]
    grouped = client.ok("POST", "/activities", {"resourceIds": rids, "pageSize": 1000, "groupIds": [group]})
    assert grouped["totalRecords"] == sum(a["group"] == group for a in acts)
    morning = client.ok(
        "POST", "/activities", {"resourceIds": rids, "pageSize": 1000, "startSec": 0, "finishSec": 43199}
    )
    assert morning["totalRecords"] == sum(a["activityTime"] // 1000 % 86400 < 43200 for a in acts)
    assert client.ok("POST", "/activities", {"resourceIds": rids, "groupIds": []})["totalRecords"] == len(
        acts
    )


def test_activities_pages_start_where_first_page_says() -> None:
    with run_simulator("--alarm-rate", "0", "--first-page", "0") as sim, SpecClient(sim.base_url) as client:
        rid = client.login()["resources"][0]["resourceId"]
        zero = client.ok("POST", "/activities", {"resourceIds": [rid], "page": 0, "pageSize": 2})
        one = client.ok("POST", "/activities", {"resourceIds": [rid], "page": 1, "pageSize": 2})
        assert (
            zero["page"] == 0
            and zero["activities"][0]["activityTime"] >= one["activities"][0]["activityTime"]
        )
        assert client.call("POST", "/activities", {"resourceIds": [rid], "page": -1}).status_code == 400


# --- 4 and 15 --------------------------------------------------------------------------------------------
def all_groups(authorized: set[int]) -> list[dict[str, Any]]:
    return [{"privilegeGroupId": g, "authorized": g in authorized} for g in range(1, 7)]


def test_privilege_groups_set_by_4_come_back_from_15(writer: tuple[SpecClient, dict]) -> None:
    client, login = writer
    user_id = next(
        u["userId"]
        for u in client.ok("GET", f"/user/{login['userId']}/organization-users")
        if u["userId"] != login["userId"]
    )
    rid = panels_of(login, 1001)[0]["resourceId"]
    body = {
        "userId": user_id,
        "authorizedResourceIds": [rid],
        "privilegeGroups": all_groups({2, 5}),
        "organizationId": 1001,
        "expirationTime": 1893456000000,
        "period": [{"dayOfWeek": 1, "start": 0, "end": 3600000}, {"dayOfWeek": 7, "start": 0, "end": 60000}],
        "validityStart": 1700000000000,
    }
    results = client.ok("POST", "/user/privilege-groups-and-resources/add-or-update", body)
    assert results and all(r["success"] is True and isinstance(r["message"], str) for r in results)
    got = client.ok("GET", f"/role/user/{user_id}/privilege-groups")
    assert got["userId"] == user_id
    assert {g["privilegeGroupId"]: g["authority"] for g in got["userPrivilegeGroups"]} == {
        g: g in {2, 5} for g in range(1, 7)
    }
    validity = got["userPrivilegeValidity"]
    assert validity["accessibleDays"] == body["period"]
    assert validity["expiration"] == 1893456000000 and validity["validityStart"] == 1700000000000


def test_privilege_groups_must_list_every_group(writer: tuple[SpecClient, dict]) -> None:
    client, login = writer
    body = {
        "userId": login["userId"],
        "authorizedResourceIds": [],
        "privilegeGroups": all_groups({1})[:4],
        "organizationId": 1001,
    }
    response = client.call("POST", "/user/privilege-groups-and-resources/add-or-update", body)
    assert response.status_code == 400
    assert response.json()["message"].startswith("privilegeGroups:")


# --- 5 ---------------------------------------------------------------------------------------------------
def test_task_update_is_stored(writer: tuple[SpecClient, dict], own: Simulator) -> None:
    client, login = writer
    task = next(t for t in httpx.get(f"{own.root_url}/_sim/tasks").json() if t["orgId"] == 1001)
    rid = panels_of(login, 1001)[1]["resourceId"]
    body = {
        "taskId": task["taskId"],
        "taskName": "Renamed check",
        "taskType": 2,
        "taskDates": ["2030-01-02"],
        "notificationOptions": {"channels": ["email"], "audience": ["owners"], "userId": login["userId"]},
        "selection": "resources",
        "resources": [rid],
        "users": [login["userId"]],
        "combinedData": ["x"],
        "userType": "organization",
    }
    result = client.ok("POST", "/enterprise/schedule/tasks/update", body)
    assert result["success"] is True
    stored = next(t for t in httpx.get(f"{own.root_url}/_sim/tasks").json() if t["taskId"] == task["taskId"])
    assert stored["taskName"] == "Renamed check" and stored["resources"] == [rid]
    assert stored["notificationOptions"]["channels"] == ["email"]
    missing = client.call("POST", "/enterprise/schedule/tasks/update", {"taskId": 1})
    assert missing.status_code == 404 and "taskId" in missing.json()["message"]


# --- 6 and 17 --------------------------------------------------------------------------------------------
def test_added_camera_appears_in_the_camera_list(writer: tuple[SpecClient, dict]) -> None:
    client, _ = writer
    body = {
        "brand": "Hikvision",
        "deviceSerial": "E2E123456",
        "name": "Lobby cam",
        "organizationId": 1001,
        "securityCode": "ABCDEF",
        "ncCode": "NC-1",
        "subscriptionId": 10011,
    }
    camera = client.ok("POST", "/camera/add", body)
    assert {
        "resourceId",
        "networkId",
        "organizationId",
        "name",
        "brand",
        "deviceType",
        "httpPort",
        "rtspPort",
        "deviceModelName",
        "channelNum",
        "privateMediaPort",
        "port",
        "deviceModel",
        "ability",
        "bindStatus",
        "status",
        "sdCardStatus",
        "permission",
        "version",
        "ncCode",
        "securityCode",
    } <= camera.keys()
    assert camera["name"] == "Lobby cam" and camera["organizationId"] == 1001
    listed = {c["resourceId"]: c for c in client.ok("GET", "/camera/list")}
    assert listed[camera["resourceId"]]["name"] == "Lobby cam"
    assert client.call("POST", "/camera/add", body).status_code == 409


def test_camera_list_is_summaries_with_camera_fields_and_no_secrets(api: tuple[SpecClient, dict]) -> None:
    client, _ = api
    cameras = client.ok("GET", "/camera/list")
    assert cameras and all(c["orgId"] == 1001 for c in cameras)
    for camera in cameras:
        assert {
            "resourceId",
            "resourceName",
            "name",
            "brand",
            "status",
            "bindStatus",
            "sdCardStatus",
        } <= camera.keys()
        assert "securityCode" not in camera and "ncCode" not in camera
    other = SpecClient(client.base_url, org=1002, token=client.token)
    assert {c["orgId"] for c in other.ok("GET", "/camera/list")} == {1002}


def test_camera_statuses_vary() -> None:
    with run_simulator("--alarm-rate", "0", "--panels", "120") as sim, SpecClient(sim.base_url) as client:
        client.login()
        cameras = client.ok("GET", "/camera/list")
    assert {c["status"] for c in cameras} == {"online", "offline"}
    assert {c["bindStatus"] for c in cameras} == {"bound", "unbound"}
    assert {c["sdCardStatus"] for c in cameras} == {"normal", "error", "none", "full"}


# --- 7 ---------------------------------------------------------------------------------------------------
def test_bills_of_a_subscription(api: tuple[SpecClient, dict]) -> None:
    client, login = api
    sub = panels_of(login, 1001)[0]["resourceSubscriptionId"]
    bills = client.ok("POST", "/subscription/bill", {"organizationId": 1001, "subscriptionId": sub})
    assert len(bills) >= 2 and {b["state"] for b in bills} <= {"paid", "settled"}
    assert {
        "id",
        "href",
        "billDate",
        "billNo",
        "paymentDueDate",
        "paymentDate",
        "amountDue",
        "state",
    } <= bills[0].keys()
    assert {"unit", "value"} == bills[0]["amountDue"].keys()
    one = client.ok(
        "POST",
        "/subscription/bill",
        {"organizationId": 1001, "subscriptionId": sub, "billId": int(bills[0]["id"])},
    )
    assert one == [bills[0]]
    month = bills[-1]["billDate"][:7]
    assert client.ok("POST", "/subscription/bill", {"subscriptionId": sub, "monthFilter": month}) == [
        bills[-1]
    ]
    assert client.call("POST", "/subscription/bill", {"subscriptionId": 999}).status_code == 404


# --- 8 ---------------------------------------------------------------------------------------------------
def test_customer_lookup_by_phone_masks_names(api: tuple[SpecClient, dict], simulator: Simulator) -> None:
    client, _ = api
    known = [c for c in httpx.get(f"{simulator.root_url}/_sim/customers").json() if c["orgId"] == 1001]
    phone = known[0]["contactMedium"][0]["characteristic"]["phoneNumber"]
    found = client.ok("POST", "/customer/phone", {"phoneNumber": phone, "identityNumber": ""})
    assert [c["id"] for c in found] == [known[0]["id"]]
    customer = found[0]
    assert {"id", "name", "contactMedium", "engagedParty"} <= customer.keys()
    assert "*" in customer["name"] and "clearName" not in customer
    digits_only = "".join(ch for ch in phone if ch.isdigit())
    assert client.ok("POST", "/customer/phone", {"phoneNumber": digits_only}) == found
    assert client.ok("POST", "/customer/phone", {"phoneNumber": "000000000"}) == []
    other_org = [c for c in httpx.get(f"{simulator.root_url}/_sim/customers").json() if c["orgId"] == 1003]
    other_phone = other_org[0]["contactMedium"][0]["characteristic"]["phoneNumber"]
    assert client.ok("POST", "/customer/phone", {"phoneNumber": other_phone}) == []
