"""The service's 21 operations, described once: used by `SamClient` to send them and by `samops call`
to accept and explain them. Numbers, methods, paths and field names are the spec's."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, Generic, TypeVar
from urllib.parse import quote

from pydantic import Field, TypeAdapter

from core import models as m


@dataclass(frozen=True)
class Param:
    """A path or query parameter: its spec name and type (int or str)."""

    name: str
    type: type = int
    required: bool = True

    def convert(self, text: str) -> int | str:
        """The command-line text as this parameter's type; ValueError naming the parameter if it is not."""
        if self.type is int:
            try:
                return int(text)
            except ValueError:
                raise ValueError(f"{self.name} must be an integer, not {text!r}") from None
        return text


R = TypeVar("R")


@dataclass(frozen=True)
class Operation(Generic[R]):
    """One operation of the spec; `R` is what its answer parses into, so each client method's return type
    is checked against it."""

    number: int
    name: str
    method: str
    path: str  # template relative to the base URL, e.g. "/user/email/{emailAddress}"
    summary: str
    result: Any  # the type the answer parses into (R, perhaps Annotated with constraints)
    path_params: tuple[Param, ...] = ()
    query: tuple[Param, ...] = ()
    body: tuple[str, ...] = ()  # JSON field names of the body; empty: the request has no body
    required: tuple[str, ...] = ()  # body fields the spec or the service insists on
    auth: bool = True
    write: bool = False  # changes something: an answer we cannot read means the outcome is unknown
    # Its answer grows with the fleet (every panel, camera or user in one unpaged answer): read up to
    # SAM_MAX_FLEET_RESPONSE_BYTES rather than SAM_MAX_RESPONSE_BYTES.
    fleet: bool = False

    @property
    def has_body(self) -> bool:
        return bool(self.body)

    @property
    def result_name(self) -> str:
        """The spec's name of what the operation answers, for messages."""
        return _RESULT_NAMES.get(self.name, "the record the spec promises")

    @cached_property
    def adapter(self) -> TypeAdapter[R]:
        return TypeAdapter(self.result)

    def render_path(self, values: dict[str, Any] | None = None) -> str:
        """The path with its parameters filled in and percent-encoded (every reserved character, so
        that `@` or `/` in an e-mail address cannot change the path); KeyError for a missing one."""
        values = values or {}
        filled = {p.name: quote(str(values[p.name]), safe="") for p in self.path_params}
        return self.path.format(**filled)

    def arguments(self) -> list[str]:
        """Human-readable argument list, for `samops call --list` and usage messages."""
        parts = [f"--param {p.name}=<{p.type.__name__}>" for p in self.path_params]
        parts += [f"[--param {p.name}=<{p.type.__name__}>]" for p in self.query]
        if self.body:
            fields = ", ".join(f"{name}{'*' if name in self.required else ''}" for name in self.body)
            parts.append(f"--data '{{{fields}}}'")
        return parts


_PAGE_FIELDS = ("page", "pageSize", "startTime", "endTime")
_RESULT_NAMES = {
    "set_user_privileges": "an array of Operation results",
    "add_camera": "a Camera record",
    **dict.fromkeys(
        ("update_schedule_task", "update_sensor_description", "delete_resource_user", "delete_user"),
        "an Operation result",
    ),
    "register_device_token": "an Operation result",
}
# Operation 4's answer: every result counts, so none may be dropped, and an empty array says nothing.
_OPERATION_RESULTS = Annotated[list[m.OperationResult], Field(min_length=1)]

LOGIN: Operation[m.LoginResult] = Operation(
    1,
    "login",
    "POST",
    "/auth/login",
    "authenticate a user",
    m.LoginResult,
    body=("screenName", "password", "rememberMe"),
    required=("screenName", "password"),
    auth=False,
    fleet=True,
)

GET_ORGANIZATION_USERS: Operation[list[m.PanelUserPair]] = Operation(
    2,
    "get_organization_users",
    "GET",
    "/enterprise/bulk/get-organization-users",
    "panel users and organization users",
    m.Records[m.PanelUserPair],
    fleet=True,
)

LIST_ACTIVITIES: Operation[m.ActivityPage] = Operation(
    3,
    "list_activities",
    "POST",
    "/activities",
    "activities of resources in a period",
    m.ActivityPage,
    body=("resourceIds", *_PAGE_FIELDS, "startSec", "finishSec", "types", "groupIds"),
)

SET_USER_PRIVILEGES: Operation[list[m.OperationResult]] = Operation(
    4,
    "set_user_privileges",
    "POST",
    "/user/privilege-groups-and-resources/add-or-update",
    "set a user's privilege groups and authorized resources",
    _OPERATION_RESULTS,
    body=(
        "userId",
        "authorizedResourceIds",
        "privilegeGroups",
        "organizationId",
        "expirationTime",
        "period",
        "validityStart",
    ),
    required=("userId", "authorizedResourceIds", "privilegeGroups", "organizationId"),
    write=True,
)

UPDATE_SCHEDULE_TASK: Operation[m.OperationResult] = Operation(
    5,
    "update_schedule_task",
    "POST",
    "/enterprise/schedule/tasks/update",
    "update a scheduled task",
    m.OperationResult,
    body=(
        "taskId",
        "taskName",
        "taskType",
        "taskDates",
        "notificationOptions",
        "selection",
        "resources",
        "users",
        "combinedData",
        "userType",
    ),
    required=("taskId",),
    write=True,
)

ADD_CAMERA: Operation[m.Camera] = Operation(
    6,
    "add_camera",
    "POST",
    "/camera/add",
    "add a camera",
    m.Camera,
    body=(
        "brand",
        "deviceSerial",
        "name",
        "organizationId",
        "securityCode",
        "ncCode",
        "subscriptionId",
    ),
    required=("deviceSerial", "name"),
    write=True,
)

LIST_BILLS: Operation[list[m.Bill]] = Operation(
    7,
    "list_bills",
    "POST",
    "/subscription/bill",
    "list bills of a subscription",
    m.Records[m.Bill],
    body=("organizationId", "subscriptionId", "billId", "monthFilter"),
    required=("subscriptionId",),
)

FIND_CUSTOMERS: Operation[list[m.Customer]] = Operation(
    8,
    "find_customers",
    "POST",
    "/customer/phone",
    "find customers by phone number",
    m.Records[m.Customer],
    body=("phoneNumber", "identityNumber"),
)

UPDATE_SENSOR_DESCRIPTION: Operation[m.OperationResult] = Operation(
    9,
    "update_sensor_description",
    "PUT",
    "/panel/sensor/{resourceSensorId}/update-description",
    "change a sensor description",
    m.OperationResult,
    path_params=(Param("resourceSensorId"),),
    body=("locale", "description"),
    required=("description",),
    write=True,
)

DELETE_RESOURCE_USER: Operation[m.OperationResult] = Operation(
    10,
    "delete_resource_user",
    "DELETE",
    "/resource/user/delete",
    "remove a user's authorization on a resource",
    m.OperationResult,
    body=("resourceId", "userId"),
    required=("resourceId", "userId"),
    write=True,
)

DELETE_USER: Operation[m.OperationResult] = Operation(
    11,
    "delete_user",
    "DELETE",
    "/user/delete",
    "delete a user",
    m.OperationResult,
    body=("userId",),
    required=("userId",),
    write=True,
)

LIST_ORGANIZATION_USERS: Operation[list[m.User]] = Operation(
    12,
    "list_organization_users",
    "GET",
    "/user/{userId}/organization-users",
    "users of the organizations of a user",
    m.Records[m.User],
    path_params=(Param("userId"),),
    fleet=True,
)

GET_USER_BY_EMAIL: Operation[m.User] = Operation(
    13,
    "get_user_by_email",
    "GET",
    "/user/email/{emailAddress}",
    "find a user by e-mail address",
    m.User,
    path_params=(Param("emailAddress", str),),
)

LIST_PANEL_CONTROLLERS: Operation[list[m.Controller]] = Operation(
    14,
    "list_panel_controllers",
    "GET",
    "/panel/{resourceId}/controller/list",
    "controllers of a panel",
    m.Records[m.Controller],
    path_params=(Param("resourceId"),),
)

GET_USER_PRIVILEGE_GROUPS: Operation[m.UserPrivileges] = Operation(
    15,
    "get_user_privilege_groups",
    "GET",
    "/role/user/{userId}/privilege-groups",
    "privilege groups of a user",
    m.UserPrivileges,
    path_params=(Param("userId"),),
)

GET_ROLE_PRIVILEGE_GROUPS: Operation[list[m.RolePrivilegeGroup]] = Operation(
    16,
    "get_role_privilege_groups",
    "GET",
    "/role/{roleId}/privilege-groups",
    "privilege groups of a role",
    m.Records[m.RolePrivilegeGroup],
    path_params=(Param("roleId"),),
)

LIST_CAMERAS: Operation[list[m.CameraSummary]] = Operation(
    17,
    "list_cameras",
    "GET",
    "/camera/list",
    "cameras of the caller",
    m.Records[m.CameraSummary],
    fleet=True,
)

LIST_PANEL_SENSORS: Operation[m.SensorGroup] = Operation(
    18,
    "list_panel_sensors",
    "GET",
    "/panel/{resourceId}/sensor/list",
    "sensors of a panel",
    m.SensorGroup,
    path_params=(Param("resourceId"),),
)

LIST_CONTROLLER_DATA_LOG: Operation[list[m.ControllerDataLogEntry]] = Operation(
    19,
    "list_controller_data_log",
    "GET",
    "/activities/controller/list",
    "controller data log",
    m.Records[m.ControllerDataLogEntry],
    # The spec shows no query parameters; these are the simulator's filters (docs/architecture.md).
    query=(
        Param("resourceId", required=False),
        Param("startTime", required=False),
        Param("endTime", required=False),
    ),
    fleet=True,
)

GET_PUSH_HISTORY: Operation[list[m.ActivityPage]] = Operation(
    20,
    "get_push_history",
    "POST",
    "/resource/pushnotification/history",
    "push notification history of a resource",
    m.Records[m.ActivityPage],
    body=("resourceId", *_PAGE_FIELDS),
    required=("resourceId",),
)

REGISTER_DEVICE_TOKEN: Operation[m.OperationResult] = Operation(
    21,
    "register_device_token",
    "POST",
    "/devicetoken/addorupdate",
    "register or update a device token",
    m.OperationResult,
    body=("userId", "requestToken", "appId"),
    required=("userId", "requestToken", "appId"),
    write=True,
)

# Every operation by its name (the spec's operation, snake_case), for `samops call` and lookups.
OPERATIONS: dict[str, Operation[Any]] = {
    op.name: op
    for op in (
        LOGIN,
        GET_ORGANIZATION_USERS,
        LIST_ACTIVITIES,
        SET_USER_PRIVILEGES,
        UPDATE_SCHEDULE_TASK,
        ADD_CAMERA,
        LIST_BILLS,
        FIND_CUSTOMERS,
        UPDATE_SENSOR_DESCRIPTION,
        DELETE_RESOURCE_USER,
        DELETE_USER,
        LIST_ORGANIZATION_USERS,
        GET_USER_BY_EMAIL,
        LIST_PANEL_CONTROLLERS,
        GET_USER_PRIVILEGE_GROUPS,
        GET_ROLE_PRIVILEGE_GROUPS,
        LIST_CAMERAS,
        LIST_PANEL_SENSORS,
        LIST_CONTROLLER_DATA_LOG,
        GET_PUSH_HISTORY,
        REGISTER_DEVICE_TOKEN,
    )
}
