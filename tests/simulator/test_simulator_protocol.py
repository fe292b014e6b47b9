"""Authentication, organization scoping, error bodies and request recording, built from the spec.

Scoping reading (documented in simulator/README.md): an OrganizationId that is not one of the caller's
is answered 404, as if the organization did not exist; so is every record of another organization.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.narrow import known
from tests.support.processes import Simulator
from tests.support.spec_client import SpecClient


@pytest.fixture(scope="module")
def demo(simulator: Simulator) -> Iterator[SpecClient]:
    with SpecClient(simulator.base_url) as client:
        client.login()
        yield client


@pytest.fixture(scope="module")
def other_org(simulator: Simulator) -> dict[str, Any]:
    """Data of organization 1003, which belongs to another user ('other'/'other')."""
    with SpecClient(simulator.base_url, org=1003) as client:
        login = client.login("other", "other")
        panel = login["resources"][0]
        users = client.ok("GET", f"/user/{login['userId']}/organization-users")
        return {
            "login": login,
            "panel": panel,
            "user": next(u for u in users if u["userId"] != login["userId"]),
        }


def assert_error(response: httpx.Response, status: int, error: str, mentions: str = "") -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"statusCode", "error", "message", "path"}
    assert body["statusCode"] == status and body["error"] == error
    assert body["path"].startswith("/api") or body["path"].startswith("/")
    assert mentions in body["message"], body["message"]
    assert "Traceback" not in response.text
    return body


# --- auth ------------------------------------------------------------------------------------------------
def test_missing_token_is_401(demo: SpecClient) -> None:
    anonymous = SpecClient(demo.base_url)
    body = assert_error(anonymous.call("GET", "/camera/list"), 401, "UNAUTHORIZED", "Authorization")
    assert body["path"] == "/api/camera/list"


@pytest.mark.parametrize("value", ["Bearer not-a-token", "Basic ZGVtbzpkZW1v", "Bearer", "garbage"])
def test_invalid_token_is_401(demo: SpecClient, value: str) -> None:
    assert_error(demo.call("GET", "/camera/list", headers={"Authorization": value}), 401, "UNAUTHORIZED")


def test_organization_header_is_required_and_numeric(demo: SpecClient) -> None:
    no_org = SpecClient(demo.base_url, org=None, token=demo.token)
    assert_error(no_org.call("GET", "/camera/list"), 400, "VALIDATION_FAILED", "OrganizationId")
    assert_error(
        demo.call("GET", "/camera/list", headers={"OrganizationId": "abc"}),
        400,
        "VALIDATION_FAILED",
        "OrganizationId",
    )


# --- scoping ---------------------------------------------------------------------------------------------
def test_an_organization_of_someone_else_is_404(demo: SpecClient) -> None:
    assert_error(
        demo.call("GET", "/camera/list", headers={"OrganizationId": "1003"}), 404, "NOT_FOUND", "1003"
    )
    assert_error(demo.call("GET", "/camera/list", headers={"OrganizationId": "424242"}), 404, "NOT_FOUND")


def test_records_of_another_organization_are_404(demo: SpecClient, other_org: dict[str, Any]) -> None:
    rid = other_org["panel"]["resourceId"]
    sensor_id = other_org["panel"]["resourceSensors"][0]["sensors"][0]["id"]
    user = other_org["user"]
    role_id = other_org["login"]["roles"][0]["roleId"]
    calls: list[tuple[str, str, Any]] = [
        ("GET", f"/panel/{rid}/controller/list", None),
        ("GET", f"/panel/{rid}/sensor/list", None),
        ("POST", "/activities", {"resourceIds": [rid], "page": 1, "pageSize": 10}),
        ("POST", "/resource/pushnotification/history", {"resourceId": rid, "page": 1, "pageSize": 10}),
        ("PUT", f"/panel/sensor/{sensor_id}/update-description", {"locale": "en", "description": "hijack"}),
        ("DELETE", "/resource/user/delete", {"resourceId": rid, "userId": user["userId"]}),
        ("DELETE", "/user/delete", {"userId": user["userId"]}),
        ("GET", f"/user/{user['userId']}/organization-users", None),
        ("GET", f"/user/email/{user['emailAddress']}", None),
        ("GET", f"/role/user/{user['userId']}/privilege-groups", None),
        ("GET", f"/role/{role_id}/privilege-groups", None),
        ("POST", "/subscription/bill", {"organizationId": 1003, "subscriptionId": 10031}),
        ("POST", "/subscription/bill", {"organizationId": 1001, "subscriptionId": 10031}),
        ("POST", "/devicetoken/addorupdate", {"userId": user["userId"], "requestToken": "t", "appId": "a"}),
        ("POST", "/camera/add", {"deviceSerial": "X1", "name": "intruder", "organizationId": 1003}),
    ]
    for method, path, body in calls:
        assert_error(demo.call(method, path, body), 404, "NOT_FOUND")
    response = demo.call("GET", "/activities/controller/list", params={"resourceId": rid})
    assert_error(response, 404, "NOT_FOUND", "resourceId")
    # nothing was changed: the other owner still sees the sensor description and the user
    with SpecClient(demo.base_url, org=1003) as owner:
        owner.login("other", "other")
        sensors = owner.ok("GET", f"/panel/{rid}/sensor/list")["sensors"]
        assert "hijack" not in {s["description"] for s in sensors}
        assert owner.ok("GET", f"/role/user/{user['userId']}/privilege-groups")["userId"] == user["userId"]


def test_the_organization_header_scopes_between_the_callers_own_organizations(demo: SpecClient) -> None:
    login = demo.login()
    panel_1002 = next(p for p in login["resources"] if p["orgId"] == 1002)["resourceId"]
    assert_error(demo.call("GET", f"/panel/{panel_1002}/sensor/list"), 404, "NOT_FOUND", str(panel_1002))
    in_1002 = SpecClient(demo.base_url, org=1002, token=demo.token)
    assert in_1002.ok("GET", f"/panel/{panel_1002}/sensor/list")["sensors"]
    assert not {p["orgId"] for p in login["resources"]} & {1003}


# --- error bodies ----------------------------------------------------------------------------------------
PRIVILEGES = "/user/privilege-groups-and-resources/add-or-update"


def privilege_body(**changes: Any) -> dict[str, Any]:
    body = {
        "userId": 7001,
        "authorizedResourceIds": [],
        "organizationId": 1001,
        "privilegeGroups": [{"privilegeGroupId": g, "authorized": True} for g in range(1, 7)],
    }
    body.update(changes)
    return body


def test_malformed_json_is_400(demo: SpecClient) -> None:
    assert_error(
        demo.call("POST", "/activities", raw=b'{"resourceIds": [1,'), 400, "VALIDATION_FAILED", "JSON"
    )
    assert_error(demo.call("POST", "/activities", raw=b"[1, 2]"), 400, "VALIDATION_FAILED", "body")
    assert_error(demo.call("POST", "/activities", raw=b"\xff\xfe"), 400, "VALIDATION_FAILED", "body")
    assert_error(demo.call("POST", "/devicetoken/addorupdate"), 400, "VALIDATION_FAILED", "body")


def test_wrong_types_name_the_field(demo: SpecClient) -> None:
    assert_error(
        demo.call("POST", "/activities", {"resourceIds": "all"}), 400, "VALIDATION_FAILED", "resourceIds"
    )
    assert_error(demo.call("POST", "/activities", {"pageSize": "10"}), 400, "VALIDATION_FAILED", "pageSize")
    assert_error(
        demo.call("POST", PRIVILEGES, privilege_body(userId="abc")), 400, "VALIDATION_FAILED", "userId"
    )
    assert_error(demo.call("GET", "/user/abc/organization-users"), 400, "VALIDATION_FAILED", "userId")
    assert_error(demo.call("GET", "/panel/1.5/sensor/list"), 400, "VALIDATION_FAILED", "resourceId")
    response = demo.call("GET", "/activities/controller/list", params={"startTime": "yesterday"})
    assert_error(response, 400, "VALIDATION_FAILED", "startTime")


def test_missing_fields_name_the_field(demo: SpecClient) -> None:
    body = privilege_body()
    del body["privilegeGroups"][0]["privilegeGroupId"]
    assert_error(
        demo.call("POST", PRIVILEGES, body),
        400,
        "VALIDATION_FAILED",
        "privilegeGroups[0].privilegeGroupId: field required",
    )
    body = privilege_body()
    del body["userId"]
    assert_error(demo.call("POST", PRIVILEGES, body), 400, "VALIDATION_FAILED", "userId: field required")
    assert_error(demo.call("POST", "/camera/add", {"name": "x"}), 400, "VALIDATION_FAILED", "deviceSerial")
    assert_error(demo.call("POST", "/subscription/bill", {}), 400, "VALIDATION_FAILED", "subscriptionId")
    assert_error(demo.call("POST", "/customer/phone", {}), 400, "VALIDATION_FAILED", "phoneNumber")


@pytest.mark.parametrize("day", [0, 8, -1])
def test_day_of_week_outside_1_to_7_is_400(demo: SpecClient, day: int) -> None:
    period = [{"dayOfWeek": 3, "start": 0, "end": 1}, {"dayOfWeek": day, "start": 0, "end": 1}]
    assert_error(
        demo.call("POST", PRIVILEGES, privilege_body(period=period)),
        400,
        "VALIDATION_FAILED",
        "period[1].dayOfWeek",
    )


def test_unknown_ids_are_404(demo: SpecClient) -> None:
    assert_error(demo.call("GET", "/panel/1/controller/list"), 404, "NOT_FOUND", "resourceId 1")
    assert_error(demo.call("GET", "/user/1/organization-users"), 404, "NOT_FOUND", "userId 1")
    assert_error(demo.call("POST", "/activities", {"resourceIds": [5]}), 404, "NOT_FOUND", "resourceId 5")
    assert_error(
        demo.call("POST", PRIVILEGES, privilege_body(authorizedResourceIds=[77])), 404, "NOT_FOUND", "77"
    )
    groups = [{"privilegeGroupId": g, "authorized": True} for g in (*range(1, 7), 99)]
    assert_error(
        demo.call("POST", PRIVILEGES, privilege_body(privilegeGroups=groups)),
        400,
        "VALIDATION_FAILED",
        "privilegeGroups[6].privilegeGroupId",
    )


def test_unknown_paths_and_wrong_methods_get_the_error_body(demo: SpecClient, simulator: Simulator) -> None:
    assert_error(demo.call("GET", "/no/such/operation"), 404, "NOT_FOUND")
    assert_error(demo.call("DELETE", "/camera/list"), 405, "METHOD_NOT_ALLOWED")
    assert_error(demo.call("GET", "/camera/list/"), 404, "NOT_FOUND")  # no redirect to the slash-less path
    assert_error(httpx.get(f"{simulator.root_url}/nothing-here"), 404, "NOT_FOUND")


# --- request recording -----------------------------------------------------------------------------------
def test_requests_are_recorded_raw_with_secrets_masked(simulator: Simulator) -> None:
    with SpecClient(simulator.base_url) as client:
        client.login()
        client.call("GET", "/user/email/demo%40example.com")
        recorded = httpx.get(f"{simulator.root_url}/_sim/requests").json()
    login = next(r for r in reversed(recorded) if r["path"] == "/api/auth/login")
    assert '"password":"***"' in login["body"] and '"screenName":"demo"' in login["body"]
    lookup = recorded[-1]
    assert lookup["method"] == "GET" and lookup["path"] == "/api/user/email/demo%40example.com"
    assert lookup["headers"]["authorization"] == "Bearer ***"
    assert lookup["headers"]["organizationid"] == "1001"
    assert len(lookup["headers"]["idempotency-key"]) % 16 == 0
    assert known(client.token) not in str(recorded)
