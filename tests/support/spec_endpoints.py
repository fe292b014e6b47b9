"""The spec's 21 endpoints (service-api.md), written from the spec alone, not read from `core` or the
simulator: operation name (as `samops call --list` spells it), method, path template and body fields.

One table for the tests that need it: what the client sends
(tests/core/client/test_spec_client_requests.py) and what the simulator is fuzzed with
(tests/simulator/test_simulator_hostile.py, tests/simulator/test_simulator_operations.py).
tests/support/spec_check.py keeps its own record tables: it is the independent checker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PATH_PARAM = re.compile(r"\{[A-Za-z]+\}")


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str  # the spec's template: "/user/{userId}/organization-users"
    body: tuple[str, ...] = ()  # the JSON body's field names; empty: the request has no body

    @property
    def blank_path(self) -> str:
        """The path with `{}` for each parameter, for `str.format`."""
        return _PATH_PARAM.sub("{}", self.path)

    @property
    def has_path_param(self) -> bool:
        return bool(_PATH_PARAM.search(self.path))


_PAGE = ("page", "pageSize", "startTime", "endTime")

ENDPOINTS: dict[str, Endpoint] = {
    "login": Endpoint("POST", "/auth/login", ("screenName", "password", "rememberMe")),
    "get_organization_users": Endpoint("GET", "/enterprise/bulk/get-organization-users"),
    "list_activities": Endpoint(
        "POST", "/activities", ("resourceIds", *_PAGE, "startSec", "finishSec", "types", "groupIds")
    ),
    "set_user_privileges": Endpoint(
        "POST",
        "/user/privilege-groups-and-resources/add-or-update",
        (
            "userId",
            "authorizedResourceIds",
            "privilegeGroups",
            "organizationId",
            "expirationTime",
            "period",
            "validityStart",
        ),
    ),
    "update_schedule_task": Endpoint(
        "POST",
        "/enterprise/schedule/tasks/update",
        (
            "taskName",
            "taskType",
            "taskDates",
            "notificationOptions",
            "selection",
            "resources",
            "users",
            "combinedData",
            "taskId",
            "userType",
        ),
    ),
    "add_camera": Endpoint(
        "POST",
        "/camera/add",
        ("brand", "deviceSerial", "name", "organizationId", "securityCode", "ncCode", "subscriptionId"),
    ),
    "list_bills": Endpoint(
        "POST", "/subscription/bill", ("organizationId", "subscriptionId", "billId", "monthFilter")
    ),
    "find_customers": Endpoint("POST", "/customer/phone", ("phoneNumber", "identityNumber")),
    "update_sensor_description": Endpoint(
        "PUT", "/panel/sensor/{resourceSensorId}/update-description", ("locale", "description")
    ),
    "delete_resource_user": Endpoint("DELETE", "/resource/user/delete", ("resourceId", "userId")),
    "delete_user": Endpoint("DELETE", "/user/delete", ("userId",)),
    "list_organization_users": Endpoint("GET", "/user/{userId}/organization-users"),
    "get_user_by_email": Endpoint("GET", "/user/email/{emailAddress}"),
    "list_panel_controllers": Endpoint("GET", "/panel/{resourceId}/controller/list"),
    "get_user_privilege_groups": Endpoint("GET", "/role/user/{userId}/privilege-groups"),
    "get_role_privilege_groups": Endpoint("GET", "/role/{roleId}/privilege-groups"),
    "list_cameras": Endpoint("GET", "/camera/list"),
    "list_panel_sensors": Endpoint("GET", "/panel/{resourceId}/sensor/list"),
    "list_controller_data_log": Endpoint("GET", "/activities/controller/list"),
    "get_push_history": Endpoint("POST", "/resource/pushnotification/history", ("resourceId", *_PAGE)),
    "register_device_token": Endpoint(
        "POST", "/devicetoken/addorupdate", ("userId", "requestToken", "appId")
    ),
}

# Field names that stand inside a body's objects (a privilege group, an access period).
NESTED_FIELDS = ("privilegeGroupId", "authorized", "dayOfWeek", "start", "end")


def field_names() -> list[str]:
    """Every field name a request body may carry, top-level or nested, once each: keys for a fuzzer."""
    names = [field for endpoint in ENDPOINTS.values() for field in endpoint.body] + list(NESTED_FIELDS)
    return list(dict.fromkeys(names))
