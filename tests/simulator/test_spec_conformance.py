"""Request-by-request check of `samops simulator` written from the spec alone (service-api.md, decisions.md,
simulator/README.md): every request is built here by hand, with this module's own Idempotency-Key code."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support import spec_check as S
from tests.support.processes import Simulator, run_simulator

# The shared spec's vectors; the committed copy when the tree is cloned alone.
_SHARED = Path(__file__).resolve().parents[3] / "shared" / "spec" / "idempotency-vectors.json"
VECTORS = (
    _SHARED if _SHARED.exists() else Path(__file__).resolve().parents[1] / "data" / "idempotency-vectors.json"
)


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Api:
    sim: Simulator
    http: httpx.Client
    token: str = ""
    org: int = 0

    def send(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        org: int | None = None,
        key: str | None = None,
        at: int | None = None,
        auth: bool = True,
        params: dict[str, Any] | None = None,
    ) -> httpx.Response:
        """The spec's request: compact JSON bytes sent as hashed, Bearer token, OrganizationId, key."""
        raw = b"" if body is None else json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        payload = raw if raw else S.empty_body_payload(path)
        headers = {"Idempotency-Key": key if key is not None else S.idempotency_key(payload, at or now_ms())}
        if raw:
            headers["Content-Type"] = "application/json"
        if auth:
            headers["Authorization"] = f"Bearer {token if token is not None else self.token}"
            headers["OrganizationId"] = str(org if org is not None else self.org)
        return self.http.request(
            method, self.sim.base_url + path, content=raw, headers=headers, params=params
        )

    def ok(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        response = self.send(method, path, body, **kw)
        assert response.status_code == 200, f"{method} {path}: {response.status_code} {response.text[:400]}"
        return response.json()


def assert_error(response: httpx.Response, status: int, path: str) -> dict[str, Any]:
    assert response.status_code == status, f"{response.status_code} {response.text[:400]}"
    body = response.json()
    S.assert_shape(body, S.ERROR_BODY)
    assert set(body) >= {"statusCode", "error", "message", "path"}
    assert body["statusCode"] == status
    assert body["error"] and body["message"]
    assert body["path"].endswith(path.split("?", 1)[0]), body
    return body


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0") as simulator:
        yield simulator


@pytest.fixture(scope="module")
def login(sim: Simulator) -> dict[str, Any]:
    with httpx.Client(timeout=10) as http:
        return Api(sim, http).ok(
            "POST", "/auth/login", {"screenName": "demo", "password": "demo", "rememberMe": True}, auth=False
        )


@pytest.fixture(scope="module")
def api(sim: Simulator, login: dict[str, Any]) -> Iterator[Api]:
    with httpx.Client(timeout=10) as http:
        yield Api(sim, http, token=login["token"], org=login["organizationIds"][0])


@pytest.fixture(scope="module")
def panel(login: dict[str, Any], api: Api) -> int:
    return next(r["resourceId"] for r in login["resources"] if r["orgId"] == api.org)


@pytest.fixture(scope="module")
def org_users(api: Api, login: dict[str, Any]) -> list[dict[str, Any]]:
    return api.ok("GET", f"/user/{login['userId']}/organization-users")


def test_own_key_code_matches_the_shared_vectors() -> None:
    for vector in json.loads(VECTORS.read_text()):
        payload = (
            vector["body"].encode() if vector["payload_is_body"] else S.empty_body_payload(vector["path"])
        )
        assert S.idempotency_key(payload, vector["epoch_ms"]) == vector["header"], vector["name"]
        assert S.decode_key(payload, vector["header"]) == vector["stamp"], vector["name"]


# --- 1 login ---------------------------------------------------------------------------------------


def test_01_login_result(login: dict[str, Any]) -> None:
    S.assert_shape(login, S.LOGIN)
    assert login["token"] and login["screenName"] == "demo"
    S.assert_each(login["roles"], S.ROLE_SUMMARY, "roles")
    assert len(login["organizations"]) >= 2
    for org in login["organizations"]:
        assert isinstance(org["name"], str) and isinstance(org["id"], str), org
    assert all(isinstance(i, int) and not isinstance(i, bool) for i in login["organizationIds"])
    assert sorted(int(o["id"]) for o in login["organizations"]) == sorted(login["organizationIds"])
    S.assert_each(login["resources"], S.RESOURCE_SUMMARY, "resources")
    for resource in login["resources"]:
        assert resource["resourceType"] in S.RESOURCE_TYPES
        assert resource["orgId"] in login["organizationIds"]
        for group in resource["resourceSensors"]:
            assert isinstance(group["type"], str)
            S.assert_each(group["sensors"], S.SENSOR, "resourceSensors.sensors")
        S.assert_each(resource["resourceControllers"], S.CONTROLLER, "resourceControllers")


def test_01_login_wrong_password_is_an_error_body(api: Api) -> None:
    response = api.send(
        "POST", "/auth/login", {"screenName": "demo", "password": "nope", "rememberMe": False}, auth=False
    )
    assert_error(response, 401, "/auth/login")


# --- auth and error bodies -------------------------------------------------------------------------


def test_401_without_token(api: Api) -> None:
    key = S.idempotency_key(S.empty_body_payload("/camera/list"), now_ms())
    response = api.http.get(
        api.sim.base_url + "/camera/list", headers={"OrganizationId": str(api.org), "Idempotency-Key": key}
    )
    assert_error(response, 401, "/camera/list")


def test_401_with_bad_token(api: Api) -> None:
    assert_error(api.send("GET", "/camera/list", token="not-a-token"), 401, "/camera/list")
    assert_error(
        api.send("GET", "/enterprise/bulk/get-organization-users", token=api.token + "x"),
        401,
        "/enterprise/bulk/get-organization-users",
    )


def test_unknown_id_is_404_error_body(api: Api) -> None:
    assert_error(api.send("GET", "/panel/999999999/sensor/list"), 404, "/panel/999999999/sensor/list")


def test_other_organization_of_the_caller_is_404_for_its_records(api: Api, login: dict[str, Any]) -> None:
    other_org = login["organizationIds"][1]
    panel = next(r["resourceId"] for r in login["resources"] if r["orgId"] == other_org)
    assert_error(api.send("GET", f"/panel/{panel}/sensor/list"), 404, f"/panel/{panel}/sensor/list")
    assert api.ok("GET", f"/panel/{panel}/sensor/list", org=other_org)["sensors"]


def test_malformed_json_is_400_error_body(api: Api) -> None:
    raw = b'{"subscriptionId": '
    key = S.idempotency_key(raw, now_ms())
    headers = {
        "Authorization": f"Bearer {api.token}",
        "OrganizationId": str(api.org),
        "Idempotency-Key": key,
        "Content-Type": "application/json",
    }
    response = api.http.post(api.sim.base_url + "/subscription/bill", content=raw, headers=headers)
    assert_error(response, 400, "/subscription/bill")


# --- operations 2-21 -------------------------------------------------------------------------------


def test_02_bulk_organization_users(api: Api) -> None:
    pairs = api.ok("GET", "/enterprise/bulk/get-organization-users")
    assert pairs
    S.assert_each(pairs, S.PANEL_USER_PAIR, "pairs")
    for pair in pairs:
        S.assert_each(pair["resourceUserResponseList"], S.RESOURCE_USER, "resourceUserResponseList")
        S.assert_each(pair["organizationUserList"], S.ORGANIZATION_USER, "organizationUserList")
    assert any(pair["resourceUserResponseList"] for pair in pairs)


def test_03_activities_page(api: Api, panel: int) -> None:
    end = now_ms()
    start = end - 7 * 86_400_000
    body = {"resourceIds": [panel], "page": 1, "pageSize": 5, "startTime": start, "endTime": end}
    page = api.ok("POST", "/activities", body)
    S.assert_shape(page, S.ACTIVITY_PAGE)
    assert page["page"] == 1 and page["pageSize"] == 5
    assert 0 < len(page["activities"]) <= 5 <= page["totalRecords"]
    S.assert_each(page["activities"], S.ACTIVITY, "activities")
    for activity in page["activities"]:
        assert start <= activity["activityTime"] <= end + 60_000
        assert activity["eventType"] in {"event", "violation", "error"}


def test_03_pages_and_types(api: Api, panel: int) -> None:
    end = now_ms()
    body: dict[str, Any] = {
        "resourceIds": [panel],
        "pageSize": 3,
        "startTime": end - 7 * 86_400_000,
        "endTime": end,
    }
    first = api.ok("POST", "/activities", {**body, "page": 1})
    second = api.ok("POST", "/activities", {**body, "page": 2})
    assert first["totalRecords"] == second["totalRecords"] > 3
    assert second["page"] == 2
    ids_first = {a["eventId"] for a in first["activities"]}
    assert ids_first and ids_first.isdisjoint(a["eventId"] for a in second["activities"])
    # README: newest first; types 2 = violations.
    times = [a["activityTime"] for a in first["activities"] + second["activities"]]
    assert times == sorted(times, reverse=True)
    violations = api.ok("POST", "/activities", {**body, "page": 1, "pageSize": 50, "types": 2})
    assert violations["activities"]
    assert all(a["eventType"] == "violation" for a in violations["activities"])
    assert violations["totalRecords"] < first["totalRecords"]
    error = assert_error(api.send("POST", "/activities", {**body, "page": 0}), 400, "/activities")
    assert "page" in error["message"]


def test_04_set_privileges_then_15_reads_them(api: Api, org_users: list[dict[str, Any]], panel: int) -> None:
    user = next(u for u in org_users if u["screenName"] != "demo")["userId"]
    groups = [{"privilegeGroupId": g, "authorized": g in (1, 3)} for g in range(1, 7)]
    body = {
        "userId": user,
        "authorizedResourceIds": [panel],
        "privilegeGroups": groups,
        "organizationId": api.org,
        "period": [
            {"dayOfWeek": 1, "start": 0, "end": 3_600_000},
            {"dayOfWeek": 7, "start": 0, "end": 60_000},
        ],
    }
    results = api.ok("POST", "/user/privilege-groups-and-resources/add-or-update", body)
    S.assert_each(results, S.OPERATION_RESULT, "results")
    assert results and all(r["success"] is True for r in results)

    result = api.ok("GET", f"/role/user/{user}/privilege-groups")
    S.assert_shape(result, S.USER_PRIVILEGE_RESULT)
    assert result["userId"] == user
    S.assert_shape(result["userPrivilegeValidity"], S.PRIVILEGE_VALIDITY, "userPrivilegeValidity")
    days = result["userPrivilegeValidity"]["accessibleDays"]
    assert sorted(d["dayOfWeek"] for d in days) == [1, 7]
    S.assert_each(result["userPrivilegeGroups"], S.USER_PRIVILEGE_GROUP, "userPrivilegeGroups")
    authorized = {g["privilegeGroupId"] for g in result["userPrivilegeGroups"] if g["authority"]}
    assert authorized == {1, 3}


@pytest.mark.parametrize("day", [0, 8])
def test_04_day_of_week_outside_1_to_7_is_400(
    api: Api, org_users: list[dict[str, Any]], panel: int, day: int
) -> None:
    user = next(u for u in org_users if u["screenName"] != "demo")["userId"]
    body = {
        "userId": user,
        "authorizedResourceIds": [panel],
        "privilegeGroups": [{"privilegeGroupId": g, "authorized": True} for g in range(1, 7)],
        "organizationId": api.org,
        "period": [{"dayOfWeek": day, "start": 0, "end": 60_000}],
    }
    path = "/user/privilege-groups-and-resources/add-or-update"
    error = assert_error(api.send("POST", path, body), 400, path)
    assert "dayOfWeek" in error["message"]


def test_05_update_schedule_task(api: Api, panel: int) -> None:
    body = {
        "taskId": api.org * 100 + 1,
        "taskName": "Spec check",
        "taskType": 1,
        "resources": [panel],
        "notificationOptions": {"channels": ["push"], "audience": ["admins"], "userId": 7001},
    }
    result = api.ok("POST", "/enterprise/schedule/tasks/update", body)
    S.assert_shape(result, S.OPERATION_RESULT)
    assert result["success"] is True
    stored = httpx.get(api.sim.root_url + "/_sim/tasks").json()
    assert "Spec check" in json.dumps(stored)


def test_06_add_camera_then_17_lists_it_once_on_a_replayed_key(api: Api) -> None:
    serial = f"SPEC{now_ms()}"
    body = {
        "brand": "Hikvision",
        "deviceSerial": serial,
        "name": "Spec camera",
        "organizationId": api.org,
        "securityCode": "ABCDEF",
        "ncCode": "NC123",
        "subscriptionId": api.org * 10 + 1,
    }
    raw = json.dumps(body, separators=(",", ":")).encode()
    key = S.idempotency_key(raw, now_ms())
    first = api.send("POST", "/camera/add", body, key=key)
    assert first.status_code == 200, first.text
    camera = first.json()
    S.assert_shape(camera, S.CAMERA)
    assert camera["name"] == "Spec camera" and camera["organizationId"] == api.org
    assert camera["securityCode"] == "ABCDEF" and camera["ncCode"] == "NC123"

    again = api.send("POST", "/camera/add", body, key=key)
    assert again.status_code == 200, again.text
    assert again.content == first.content

    cameras = api.ok("GET", "/camera/list")
    assert sum(1 for c in cameras if c["resourceId"] == camera["resourceId"]) == 1
    assert sum(1 for c in cameras if c.get("resourceName") == "Spec camera") == 1


def test_07_bills(api: Api) -> None:
    bills = api.ok(
        "POST", "/subscription/bill", {"organizationId": api.org, "subscriptionId": api.org * 10 + 1}
    )
    assert bills
    S.assert_each(bills, S.BILL, "bills")
    for bill in bills:
        assert bill["state"] in {"paid", "settled"}
        assert isinstance(bill["amountDue"]["unit"], str)
        assert isinstance(bill["amountDue"]["value"], int | float)


def test_08_customers_by_phone(api: Api) -> None:
    known = httpx.get(api.sim.root_url + "/_sim/customers").json()
    phones = [
        m["characteristic"]["phoneNumber"]
        for c in known
        if "phoneNumber" in json.dumps(c)
        for m in c["contactMedium"]
    ]
    assert phones, known
    found: list[Any] = []
    for phone in phones:
        found = api.ok("POST", "/customer/phone", {"phoneNumber": phone, "identityNumber": ""})
        if found:
            break
    assert found
    S.assert_each(found, S.CUSTOMER, "customers")
    for customer in found:
        assert "*" in customer["name"]
        assert isinstance(customer["engagedParty"]["name"], str) and isinstance(
            customer["engagedParty"]["id"], str
        )
        for medium in customer["contactMedium"]:
            for field in ("city", "country", "phoneNumber", "socialNetworkId", "street1"):
                value = medium["characteristic"].get(field)
                assert value is None or isinstance(value, str)


def test_09_update_sensor_description_then_18_shows_it(api: Api, panel: int) -> None:
    group = api.ok("GET", f"/panel/{panel}/sensor/list")
    sensor_id = group["sensors"][0]["id"]
    result = api.ok(
        "PUT", f"/panel/sensor/{sensor_id}/update-description", {"locale": "tr", "description": "Kapı İç"}
    )
    S.assert_shape(result, S.OPERATION_RESULT)
    assert result["success"] is True
    after = api.ok("GET", f"/panel/{panel}/sensor/list")
    assert next(s for s in after["sensors"] if s["id"] == sensor_id)["description"] == "Kapı İç"


def test_10_delete_resource_user_then_2_no_longer_lists_it(api: Api) -> None:
    pairs = api.ok("GET", "/enterprise/bulk/get-organization-users")
    pair = next(p for p in pairs if p["resourceUserResponseList"])
    target = pair["resourceUserResponseList"][0]
    body = {"resourceId": pair["resourceId"], "userId": target["userId"]}
    result = api.ok("DELETE", "/resource/user/delete", body)
    S.assert_shape(result, S.OPERATION_RESULT)
    assert result["success"] is True
    after = next(
        p
        for p in api.ok("GET", "/enterprise/bulk/get-organization-users")
        if p["resourceId"] == pair["resourceId"]
    )
    assert all(u["userId"] != target["userId"] for u in after["resourceUserResponseList"])


def test_11_delete_user_then_13_is_404(api: Api, org_users: list[dict[str, Any]]) -> None:
    # The last non-demo user, so that the user of operation 4 stays.
    user = [u for u in org_users if u["screenName"] != "demo"][-1]
    result = api.ok("DELETE", "/user/delete", {"userId": user["userId"]})
    S.assert_shape(result, S.OPERATION_RESULT)
    assert result["success"] is True
    path = f"/user/email/{user['emailAddress']}"
    assert_error(api.send("GET", path), 404, path)


def test_12_organization_users(org_users: list[dict[str, Any]]) -> None:
    assert len(org_users) >= 2
    # "array of User (without panels)": the User record less its `resources`.
    without_panels = {name: kind for name, kind in S.USER.items() if name != "resources"}
    S.assert_each(org_users, without_panels, "users")
    for user in org_users:
        for org in user["organizations"]:
            assert (
                isinstance(org["name"], str)
                and isinstance(org["id"], int)
                and not isinstance(org["id"], bool)
            )
        S.assert_each(user["roles"], S.ROLE_SUMMARY, "roles")


def test_13_user_by_email(api: Api, org_users: list[dict[str, Any]]) -> None:
    wanted = org_users[0]
    user = api.ok("GET", f"/user/email/{wanted['emailAddress']}")
    S.assert_shape(user, S.USER)
    assert user["userId"] == wanted["userId"]
    S.assert_each(user["resources"], S.RESOURCE_SUMMARY, "resources")


def test_13_percent_encoded_path_keyed_on_the_raw_path(api: Api, org_users: list[dict[str, Any]]) -> None:
    email = org_users[0]["emailAddress"]
    encoded = email.replace("@", "%40")
    # A key over the decoded path must not verify: the server hashes the raw request line.
    wrong = S.idempotency_key(S.empty_body_payload(f"/user/email/{email}"), now_ms())
    assert_error(api.send("GET", f"/user/email/{encoded}", key=wrong), 400, f"/user/email/{email}")
    user = api.ok("GET", f"/user/email/{encoded}")
    assert user["emailAddress"].lower() == email.lower()


def test_14_panel_controllers(api: Api, panel: int) -> None:
    controllers = api.ok("GET", f"/panel/{panel}/controller/list")
    assert controllers
    S.assert_each(controllers, S.CONTROLLER, "controllers")
    for controller in controllers:
        assert controller["resourceId"] == panel
        assert controller["ioType"] in S.IO_TYPES and controller["ioDirection"] in S.IO_DIRECTIONS
        S.assert_each(controller["partitions"], S.PARTITION, "partitions")


def test_15_user_privilege_groups_is_one_object(api: Api, login: dict[str, Any]) -> None:
    result = api.ok("GET", f"/role/user/{login['userId']}/privilege-groups")
    S.assert_shape(result, S.USER_PRIVILEGE_RESULT)
    S.assert_each(result["userPrivilegeGroups"], S.USER_PRIVILEGE_GROUP, "userPrivilegeGroups")


def test_16_role_privilege_groups(api: Api) -> None:
    role = api.org * 10 + 1
    groups = api.ok("GET", f"/role/{role}/privilege-groups")
    assert groups
    S.assert_each(groups, S.ROLE_PRIVILEGE_GROUP, "groups")
    assert all(g["roleId"] == role for g in groups)


def test_17_cameras(api: Api) -> None:
    cameras = api.ok("GET", "/camera/list")
    assert cameras
    S.assert_each(cameras, S.RESOURCE_SUMMARY, "cameras")
    for camera in cameras:
        assert camera["resourceType"] in S.RESOURCE_TYPES
        assert "securityCode" not in camera and "ncCode" not in camera


def test_18_panel_sensors_is_one_object(api: Api, panel: int) -> None:
    group = api.ok("GET", f"/panel/{panel}/sensor/list")
    assert isinstance(group, dict) and set(group) >= {"type", "sensors"}
    assert isinstance(group["type"], str)
    assert group["sensors"]
    S.assert_each(group["sensors"], S.SENSOR, "sensors")
    for sensor in group["sensors"]:
        assert sensor["ioType"] in S.IO_TYPES and sensor["ioDirection"] in S.IO_DIRECTIONS
        S.assert_each(sensor["partitions"], S.PARTITION, "partitions")


def test_19_controller_data_log(api: Api, panel: int) -> None:
    entries = api.ok("GET", "/activities/controller/list", params={"resourceId": panel})
    assert entries
    S.assert_each(entries, S.DATA_LOG_ENTRY, "entries")
    assert all(e["resourceId"] == panel for e in entries)


def test_20_push_history_is_an_array_of_activity_pages(api: Api, panel: int) -> None:
    end = now_ms()
    body = {"resourceId": panel, "page": 1, "pageSize": 10, "startTime": end - 7 * 86_400_000, "endTime": end}
    pages = api.ok("POST", "/resource/pushnotification/history", body)
    assert isinstance(pages, list) and pages
    S.assert_each(pages, S.ACTIVITY_PAGE, "pages")
    for page in pages:
        S.assert_each(page["activities"], S.ACTIVITY, "activities")


def test_21_register_device_token(api: Api, login: dict[str, Any]) -> None:
    body = {"userId": login["userId"], "requestToken": "push-token-spec", "appId": "device-spec"}
    result = api.ok("POST", "/devicetoken/addorupdate", body)
    S.assert_shape(result, S.OPERATION_RESULT)
    assert result["success"] is True
    assert "push-token-spec" in json.dumps(httpx.get(api.sim.root_url + "/_sim/device-tokens").json())


# --- Idempotency-Key rules (decisions.md item 7) ---------------------------------------------------


@pytest.mark.parametrize(
    "key",
    ["NOT-HEX-AT-ALL!!", "0123456789ABCDE", "0123456789ABCDEF01"],
    ids=["not-hex", "odd-length", "not-multiple-of-16"],
)
def test_malformed_key_is_400(api: Api, key: str) -> None:
    assert_error(api.send("GET", "/camera/list", key=key), 400, "/camera/list")


def test_key_over_another_payload_is_400(api: Api) -> None:
    # Decrypting with the wrong key gives a plaintext that is not all digits.
    key = S.idempotency_key(S.empty_body_payload("/camera/other"), now_ms())
    assert_error(api.send("GET", "/camera/list", key=key), 400, "/camera/list")


@pytest.mark.parametrize("offset_min", [-6, 6])
def test_stale_stamp_is_400(api: Api, offset_min: int) -> None:
    at = now_ms() + offset_min * 60_000
    assert_error(api.send("GET", "/camera/list", at=at), 400, "/camera/list")


def test_stamp_within_five_minutes_is_accepted(api: Api) -> None:
    assert isinstance(api.ok("GET", "/camera/list", at=now_ms() - 4 * 60_000), list)


def test_missing_key_is_accepted(api: Api) -> None:
    headers = {"Authorization": f"Bearer {api.token}", "OrganizationId": str(api.org)}
    response = api.http.get(api.sim.base_url + "/camera/list", headers=headers)
    assert response.status_code == 200, response.text


def test_repeated_key_replays_a_write_and_does_not_execute_it_again(api: Api, panel: int) -> None:
    group = api.ok("GET", f"/panel/{panel}/sensor/list")
    sensor_id = group["sensors"][1]["id"]
    path = f"/panel/sensor/{sensor_id}/update-description"
    first_body = {"locale": "en", "description": "replay one"}
    raw = json.dumps(first_body, separators=(",", ":")).encode()
    key = S.idempotency_key(raw, now_ms())
    first = api.send("PUT", path, first_body, key=key)
    assert first.status_code == 200
    api.ok("PUT", path, {"locale": "en", "description": "replay two"})
    replay = api.send("PUT", path, first_body, key=key)
    assert replay.status_code == 200 and replay.content == first.content
    # Not executed again: the later description stays.
    after = api.ok("GET", f"/panel/{panel}/sensor/list")
    assert next(s for s in after["sensors"] if s["id"] == sensor_id)["description"] == "replay two"


def test_required_key_mode_refuses_a_missing_key_and_tokens_expire() -> None:
    options = ("--require-idempotency-key", "--token-ttl", "1", "--alarm-rate", "0")
    with run_simulator(*options) as strict, httpx.Client(timeout=10) as http:
        body = {"screenName": "demo", "password": "demo", "rememberMe": False}
        raw = json.dumps(body, separators=(",", ":")).encode()
        response = http.post(
            strict.base_url + "/auth/login", content=raw, headers={"Content-Type": "application/json"}
        )
        assert_error(response, 400, "/auth/login")
        login = Api(strict, http).ok("POST", "/auth/login", body, auth=False)
        api = Api(strict, http, token=login["token"], org=login["organizationIds"][0])
        time.sleep(1.5)
        assert_error(api.send("GET", "/camera/list"), 401, "/camera/list")


# --- bad input: 400/404 with a message naming the field --------------------------------------------------


def test_wrong_type_is_400_naming_the_field(api: Api) -> None:
    body = {"organizationId": api.org, "subscriptionId": str(api.org * 10 + 1)}
    error = assert_error(api.send("POST", "/subscription/bill", body), 400, "/subscription/bill")
    assert "subscriptionId" in error["message"]


def test_missing_required_field_is_400_naming_it(api: Api, login: dict[str, Any]) -> None:
    body = {"userId": login["userId"], "requestToken": "t"}
    error = assert_error(api.send("POST", "/devicetoken/addorupdate", body), 400, "/devicetoken/addorupdate")
    assert "appId" in error["message"]


def test_organization_of_someone_else_is_404(api: Api, login: dict[str, Any]) -> None:
    stranger = max(login["organizationIds"]) + 1  # README: organizations beyond the demo user's two
    assert stranger not in login["organizationIds"]
    assert_error(api.send("GET", "/camera/list", org=stranger), 404, "/camera/list")
    # README: its panels are resourceId = orgId * 100 + n; asked under our own organization they do not exist.
    path = f"/panel/{stranger * 100 + 1}/sensor/list"
    assert_error(api.send("GET", path), 404, path)


def test_10_delete_body_with_any_content_type(api: Api) -> None:
    pairs = api.ok("GET", "/enterprise/bulk/get-organization-users")
    pair = next(p for p in reversed(pairs) if p["resourceUserResponseList"])
    target = pair["resourceUserResponseList"][-1]
    raw = json.dumps(
        {"resourceId": pair["resourceId"], "userId": target["userId"]}, separators=(",", ":")
    ).encode()
    headers = {
        "Authorization": f"Bearer {api.token}",
        "OrganizationId": str(api.org),
        "Idempotency-Key": S.idempotency_key(raw, now_ms()),
        "Content-Type": "text/plain",
    }
    response = api.http.request(
        "DELETE", api.sim.base_url + "/resource/user/delete", content=raw, headers=headers
    )
    assert response.status_code == 200, response.text
    S.assert_shape(response.json(), S.OPERATION_RESULT)
