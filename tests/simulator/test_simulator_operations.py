"""Every one of the 21 operations, built from the spec with the test-side client, against a real simulator.

Reads use the shared session simulator; writes use this module's own simulator, so that other tests
never see them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.processes import Simulator, run_simulator
from tests.support.spec_client import SpecClient
from tests.support.spec_endpoints import ENDPOINTS, field_names

# The spec's sensor and controller records share the fields of an I/O point.
IO_POINT_FIELDS = {
    "id",
    "resourceId",
    "orderNo",
    "ioType",
    "ioDirection",
    "trueValue",
    "falseValue",
    "partitions",
    "description",
    "hardwareSerialNumber",
}
SENSOR_FIELDS = IO_POINT_FIELDS | {"sensorId", "sensorName"}
CONTROLLER_FIELDS = IO_POINT_FIELDS | {"controllerId", "controllerName"}
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
    with run_simulator("--alarm-rate", "0", "--first-page", "0", seed=7) as sim:
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
    assert seen[0].keys() == ACTIVITY_FIELDS  # spec-exact: no panel id on the record
    assert all(a["eventId"].startswith(f"EV-{rid}-") for a in seen)  # yet all of them are that panel's


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


def test_activities_pages_start_where_first_page_says(writer: tuple[SpecClient, dict]) -> None:
    client, login = writer  # this module's own simulator runs with --first-page 0
    rid = panels_of(login, 1001)[5]["resourceId"]
    zero = client.ok("POST", "/activities", {"resourceIds": [rid], "page": 0, "pageSize": 2})
    one = client.ok("POST", "/activities", {"resourceIds": [rid], "page": 1, "pageSize": 2})
    assert (
        zero["page"] == 0 and zero["activities"][-1]["activityTime"] >= one["activities"][0]["activityTime"]
    )
    assert client.ok("POST", "/activities", {"resourceIds": [rid], "pageSize": 2})["page"] == 0
    response = client.call("POST", "/activities", {"resourceIds": [rid], "page": -1})
    assert response.status_code == 400 and response.json()["message"].startswith("page:")
    history = client.ok("POST", "/resource/pushnotification/history", {"resourceId": rid, "page": 0})
    assert history[0]["page"] == 0


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


def test_task_update_is_partial_a_field_left_out_or_null_stays(
    writer: tuple[SpecClient, dict], own: Simulator
) -> None:
    """The simulator's reading of operation 5 (docs/spec-readings.md): left out or null = unchanged, member
    by member inside notificationOptions; a field sent replaces, an empty list included."""
    client, _ = writer
    task_id = 100102

    def held() -> dict[str, Any]:
        answer = httpx.get(f"{own.root_url}/_sim/held/task/{task_id}")
        assert answer.status_code == 200
        return answer.json()["record"]

    before = held()
    body = {
        "taskId": task_id,
        "taskDates": ["2030-02-03"],
        "taskName": None,
        "notificationOptions": {"channels": ["sms"]},
    }
    client.ok("POST", "/enterprise/schedule/tasks/update", body)
    options = {**before["notificationOptions"], "channels": ["sms"]}
    assert held() == {**before, "taskDates": ["2030-02-03"], "notificationOptions": options}
    client.ok("POST", "/enterprise/schedule/tasks/update", {"taskId": task_id, "users": []})
    assert held() == {**before, "taskDates": ["2030-02-03"], "notificationOptions": options, "users": []}
    assert httpx.get(f"{own.root_url}/_sim/held/task/1").status_code == 404
    assert httpx.get(f"{own.root_url}/_sim/held/tasks/{task_id}").status_code == 400
    user = httpx.get(f"{own.root_url}/_sim/held/user/7101").json()["record"]
    assert user["password"].startswith("***")  # a secret is shown as a digest only


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
    assert listed[camera["resourceId"]]["resourceName"] == "Lobby cam"
    assert client.call("POST", "/camera/add", body).status_code == 409


def test_camera_list_is_resource_summaries_without_camera_fields(api: tuple[SpecClient, dict]) -> None:
    client, _ = api
    cameras = client.ok("GET", "/camera/list")
    assert cameras and all(c["orgId"] == 1001 for c in cameras)
    for camera in cameras:
        assert camera["resourceType"] == "ThirdParty" and camera["deviceSubType"] == "Camera"
        assert not {"name", "status", "bindStatus", "sdCardStatus", "securityCode", "ncCode"} & camera.keys()
    assert {c["enabled"] for c in cameras} == {True, False}
    other = SpecClient(client.base_url, org=1002, token=client.token)
    assert {c["orgId"] for c in other.ok("GET", "/camera/list")} == {1002}


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


# --- 9 and 18 --------------------------------------------------------------------------------------------
def test_sensor_list_and_description_update(writer: tuple[SpecClient, dict]) -> None:
    client, login = writer
    rid = panels_of(login, 1001)[2]["resourceId"]
    group = client.ok("GET", f"/panel/{rid}/sensor/list")
    assert isinstance(group["type"], str) and group["sensors"]
    sensor = group["sensors"][0]
    assert sensor.keys() >= SENSOR_FIELDS and sensor["resourceId"] == rid
    assert {s["ioType"] for s in group["sensors"]} <= IO_TYPES
    assert {s["ioDirection"] for s in group["sensors"]} <= {"Input", "Output", "InputOutput"}
    text = "Kapı sensörü İç Şube (ş ğ ü)"
    result = client.ok(
        "PUT", f"/panel/sensor/{sensor['id']}/update-description", {"locale": "tr", "description": text}
    )
    assert result["success"] is True
    again = client.ok("GET", f"/panel/{rid}/sensor/list")
    assert next(s for s in again["sensors"] if s["id"] == sensor["id"])["description"] == text
    assert client.call("PUT", "/panel/sensor/1/update-description", {"description": "x"}).status_code == 404


def test_sensor_types_and_directions_vary(api: tuple[SpecClient, dict]) -> None:
    _, login = api
    sensors = [s for p in login["resources"] for g in p["resourceSensors"] for s in g["sensors"]]
    assert len({s["ioType"] for s in sensors}) >= 4
    assert {s["ioDirection"] for s in sensors} >= {"Input", "InputOutput"}


# --- 10 --------------------------------------------------------------------------------------------------
def test_removed_panel_user_disappears_from_the_bulk_listing(writer: tuple[SpecClient, dict]) -> None:
    client, _ = writer
    pair = client.ok("GET", "/enterprise/bulk/get-organization-users")[3]
    victim = pair["resourceUserResponseList"][0]["userId"]
    body = {"resourceId": pair["resourceId"], "userId": victim}
    result = client.ok("DELETE", "/resource/user/delete", body, headers={"Content-Type": "text/plain"})
    assert result["success"] is True
    after = next(
        p
        for p in client.ok("GET", "/enterprise/bulk/get-organization-users")
        if p["resourceId"] == pair["resourceId"]
    )
    assert victim not in {u["userId"] for u in after["resourceUserResponseList"]}
    assert client.call("DELETE", "/resource/user/delete", body).status_code == 404


# --- 11, 12, 13 ------------------------------------------------------------------------------------------
def test_deleted_user_is_gone(writer: tuple[SpecClient, dict]) -> None:
    client, login = writer
    users = client.ok("GET", f"/user/{login['userId']}/organization-users")
    victim = next(u for u in users if u["userId"] != login["userId"] and 1001 in u["organizationIds"])
    found = client.ok("GET", f"/user/email/{victim['emailAddress']}")
    assert found["userId"] == victim["userId"]
    assert client.ok("DELETE", "/user/delete", {"userId": victim["userId"]})["success"] is True
    lookup = client.call("GET", f"/user/email/{victim['emailAddress']}")
    assert lookup.status_code == 404 and lookup.json()["error"] == "NOT_FOUND"
    assert victim["userId"] not in {
        u["userId"] for u in client.ok("GET", f"/user/{login['userId']}/organization-users")
    }
    assert client.call("GET", f"/role/user/{victim['userId']}/privilege-groups").status_code == 404
    assert client.call("DELETE", "/user/delete", {"userId": victim["userId"]}).status_code == 404


def test_organization_users_and_lookup_by_email(api: tuple[SpecClient, dict]) -> None:
    client, login = api
    users = client.ok("GET", f"/user/{login['userId']}/organization-users")
    assert login["userId"] in {u["userId"] for u in users}
    fields = {
        "userId",
        "instanceId",
        "instanceName",
        "firstName",
        "middleName",
        "lastName",
        "emailAddressVerified",
        "status",
        "nationalId",
        "screenName",
        "emailAddress",
        "timeZoneId",
        "localeId",
        "organizations",
        "organizationIds",
        "roles",
    }
    assert all(fields <= u.keys() for u in users)
    assert all(1001 in u["organizationIds"] for u in users)
    assert all(isinstance(o["id"], int) for u in users for o in u["organizations"])
    me = client.ok("GET", "/user/email/demo%40example.com")
    assert me["userId"] == login["userId"] and isinstance(me["resources"], list)
    assert client.ok("GET", "/user/email/demo@example.com")["userId"] == login["userId"]
    assert client.call("GET", "/user/email/nobody%40example.com").status_code == 404


# --- 14 and 19 -------------------------------------------------------------------------------------------
def test_controllers_and_their_data_log(api: tuple[SpecClient, dict]) -> None:
    client, login = api
    rid = panels_of(login, 1001)[0]["resourceId"]
    controllers = client.ok("GET", f"/panel/{rid}/controller/list")
    assert controllers and all(c.keys() >= CONTROLLER_FIELDS and c["resourceId"] == rid for c in controllers)
    log = client.ok("GET", "/activities/controller/list", params={"resourceId": rid})
    assert {e["resourceControllerId"] for e in log} == {c["id"] for c in controllers}
    assert all(
        {"lastUpdate", "orderNo", "resourceControllerId", "resourceId", "value"} == e.keys() for e in log
    )
    whole = client.ok("GET", "/activities/controller/list")
    org_panels = {p["resourceId"] for p in panels_of(login, 1001)}
    assert {e["resourceId"] for e in whole} == org_panels
    newest = max(e["lastUpdate"] for e in whole)
    assert client.ok("GET", "/activities/controller/list", params={"startTime": newest}) == [
        e for e in whole if e["lastUpdate"] == newest
    ]


def test_controller_log_changes_with_live_activity(writer: tuple[SpecClient, dict], own: Simulator) -> None:
    client, login = writer
    rid = panels_of(login, 1001)[4]["resourceId"]
    before = client.ok("GET", "/activities/controller/list", params={"resourceId": rid})
    created = httpx.post(f"{own.root_url}/_sim/activities", json={"resourceId": rid, "count": 3}).json()
    after = client.ok("GET", "/activities/controller/list", params={"resourceId": rid})
    assert after != before
    assert max(e["lastUpdate"] for e in after) >= created[0]["activityTime"]


# --- 16 --------------------------------------------------------------------------------------------------
def test_role_privilege_groups(api: tuple[SpecClient, dict]) -> None:
    client, login = api
    role = next(r for r in login["roles"] if r["typePK"] == 1001)
    groups = client.ok("GET", f"/role/{role['roleId']}/privilege-groups")
    assert groups and all(
        {"id", "roleId", "privilegeGroupId", "defaultAuthority"} == g.keys() for g in groups
    )
    assert {g["roleId"] for g in groups} == {role["roleId"]}
    assert client.call("GET", "/role/99999/privilege-groups").status_code == 404


# --- 20 --------------------------------------------------------------------------------------------------
def test_push_notification_history(api: tuple[SpecClient, dict]) -> None:
    client, login = api
    rid = panels_of(login, 1001)[0]["resourceId"]
    pages = client.ok(
        "POST", "/resource/pushnotification/history", {"resourceId": rid, "page": 1, "pageSize": 2}
    )
    assert isinstance(pages, list) and len(pages) == 1
    page = pages[0]
    assert page["page"] == 1 and page["pageSize"] == 2 and page["totalRecords"] >= len(page["activities"])
    assert all(a.keys() >= ACTIVITY_FIELDS for a in page["activities"])
    everything = client.ok(
        "POST", "/resource/pushnotification/history", {"resourceId": rid, "pageSize": 1000}
    )[0]
    assert everything["totalRecords"] == page["totalRecords"] == len(everything["activities"])
    cut = everything["activities"][0]["activityTime"]
    newest = client.ok(
        "POST",
        "/resource/pushnotification/history",
        {"resourceId": rid, "pageSize": 1000, "startTime": cut, "endTime": cut},
    )[0]
    assert [a["eventId"] for a in newest["activities"]] == [everything["activities"][0]["eventId"]]


# --- 21 --------------------------------------------------------------------------------------------------
def test_device_token_is_stored(writer: tuple[SpecClient, dict], own: Simulator) -> None:
    client, login = writer
    body = {"userId": login["userId"], "requestToken": "push-token-1", "appId": "device-A"}
    assert client.ok("POST", "/devicetoken/addorupdate", body)["success"] is True
    client.ok("POST", "/devicetoken/addorupdate", {**body, "requestToken": "push-token-2"})
    stored = [t for t in httpx.get(f"{own.root_url}/_sim/device-tokens").json() if t["appId"] == "device-A"]
    assert [(t["userId"], t["requestToken"]) for t in stored] == [(login["userId"], "push-token-2")]
    assert client.call("POST", "/devicetoken/addorupdate", {**body, "userId": 1}).status_code == 404


# --- no input makes a 500 -------------------------------------------------------------------------------
FIELDS = field_names()
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=12,
)
# Every operation with a body or a path parameter: what arbitrary input can reach.
BODY_OPERATIONS = [(e.method, e.blank_path) for e in ENDPOINTS.values() if e.body or e.has_path_param]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operation=st.sampled_from(BODY_OPERATIONS), body=JSON_VALUES, segment=st.text(min_size=1, max_size=12))
def test_arbitrary_input_never_makes_a_500(
    writer: tuple[SpecClient, dict], operation: tuple[str, str], body: Any, segment: str
) -> None:
    client, _ = writer
    method, path = operation
    response = client.call(method, path.format(quote(segment, safe="")), body)
    assert response.status_code in {200, 400, 401, 404, 405, 409}, response.text
    if response.status_code != 200:
        error = response.json()
        assert set(error) == {"statusCode", "error", "message", "path"}
        assert error["statusCode"] == response.status_code and error["error"].isupper()


def test_deeply_nested_json_is_a_400(writer: tuple[SpecClient, dict]) -> None:
    client, _ = writer
    response = client.call("POST", "/activities", raw=b"[" * 100_000 + b"]" * 100_000)
    assert response.status_code == 400 and response.json()["message"] == "body: malformed JSON"
