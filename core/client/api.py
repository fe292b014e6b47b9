"""`SamClient`: one typed method per operation of the service, grouped by what they manage.

Every method takes keyword `org` (default: SAM_ORGANIZATION_ID, else the login's first organization)
and returns the spec's records as models (core.models). Arguments are snake_case; the JSON sent uses
the spec's names. Arguments left as None are not sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypedDict, Unpack, cast

from core.client import operations as ops
from core.client.base import BaseClient
from core.client.operations import OPERATIONS
from core.models import (
    AccessPeriod,
    Activity,
    ActivityPage,
    Bill,
    Camera,
    CameraSummary,
    Controller,
    ControllerDataLogEntry,
    Customer,
    NotificationOptions,
    OperationResult,
    PanelUserPair,
    PrivilegeGroupGrant,
    RolePrivilegeGroup,
    SamModel,
    SensorGroup,
    User,
    UserPrivileges,
)


def _json(value: Any) -> Any:
    """Request parts given as models become the spec's JSON, any sequence an array; the rest as it is."""
    if isinstance(value, SamModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [_json(v) for v in cast("Sequence[object]", value)]
    return value


def _body(**fields: Any) -> dict[str, Any]:
    return {name: _json(value) for name, value in fields.items() if value is not None}


class Period(TypedDict, total=False):
    """The period filter of operations 3 and 20 (epoch milliseconds)."""

    start_time: int | None
    end_time: int | None


class ActivityFilter(Period, total=False):
    """Operation 3's filters, taken alike by `list_activities` and `iter_activities`."""

    start_sec: int | None
    finish_sec: int | None
    types: int | None
    group_ids: Sequence[int] | None


def _filters(declared: type, given: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword filters (snake_case, as the TypedDict `declared` lists them) under the spec's camelCase
    names; TypeError for one it does not list, as a misspelt keyword argument would raise."""
    unknown = sorted(given.keys() - declared.__annotations__.keys())
    if unknown:
        raise TypeError(f"unexpected keyword argument {unknown[0]!r}")
    return {re.sub(r"_([a-z])", lambda m: m[1].upper(), name): value for name, value in given.items()}


class SamClient(BaseClient):
    """The service's 21 operations. Use as a context manager, or call `close()`."""

    def call(
        self,
        operation: str,
        *,
        body: Mapping[str, Any] | None = None,
        path_params: Mapping[str, Any] | None = None,
        query: Mapping[str, Any] | None = None,
        org: int | None = None,
    ) -> Any:
        """Any operation by its name (see core.client.operations), with the spec's JSON names; what
        `samops call` uses. `login` without a body logs in with the configured credentials."""
        op = OPERATIONS[operation]
        if op.name == "login" and body is None:
            return self.login()
        return self._call(op, body=body or {}, path_params=path_params, query=query, org=org)

    # --- users and privileges (2, 4, 11, 12, 13, 15, 16, 21) ------------------------------------------

    def get_organization_users(self, *, org: int | None = None) -> list[PanelUserPair]:
        """(2) Panel users and organization users of the organization, panel by panel."""
        return self._call(ops.GET_ORGANIZATION_USERS, org=org)

    def list_organization_users(self, user_id: int, *, org: int | None = None) -> list[User]:
        """(12) Users of the organizations of a user."""
        return self._call(ops.LIST_ORGANIZATION_USERS, path_params={"userId": user_id}, org=org)

    def get_user_by_email(self, email_address: str, *, org: int | None = None) -> User:
        """(13) A user by e-mail address (percent-encoded in the path)."""
        return self._call(ops.GET_USER_BY_EMAIL, path_params={"emailAddress": email_address}, org=org)

    def delete_user(self, user_id: int, *, org: int | None = None) -> OperationResult:
        """(11) Delete a user."""
        return self._call(ops.DELETE_USER, body=_body(userId=user_id), org=org)

    def set_user_privileges(
        self,
        *,
        user_id: int,
        authorized_resource_ids: Sequence[int],
        privilege_groups: Sequence[PrivilegeGroupGrant | Mapping[str, Any]],
        organization_id: int,
        expiration_time: int | None = None,
        period: Sequence[AccessPeriod | Mapping[str, Any]] | None = None,
        validity_start: int | None = None,
        org: int | None = None,
    ) -> list[OperationResult]:
        """(4) Set a user's privilege groups (all of them must be listed) and authorized panels."""
        body = _body(
            userId=user_id,
            authorizedResourceIds=authorized_resource_ids,
            privilegeGroups=privilege_groups,
            organizationId=organization_id,
            expirationTime=expiration_time,
            period=period,
            validityStart=validity_start,
        )
        return self._call(ops.SET_USER_PRIVILEGES, body=body, org=org)

    def get_user_privilege_groups(self, user_id: int, *, org: int | None = None) -> UserPrivileges:
        """(15) Privilege groups and validity of a user."""
        return self._call(ops.GET_USER_PRIVILEGE_GROUPS, path_params={"userId": user_id}, org=org)

    def get_role_privilege_groups(self, role_id: int, *, org: int | None = None) -> list[RolePrivilegeGroup]:
        """(16) Privilege groups of a role."""
        return self._call(ops.GET_ROLE_PRIVILEGE_GROUPS, path_params={"roleId": role_id}, org=org)

    def register_device_token(
        self, *, user_id: int, request_token: str, app_id: str, org: int | None = None
    ) -> OperationResult:
        """(21) Register or update a device's push token."""
        body = _body(userId=user_id, requestToken=request_token, appId=app_id)
        return self._call(ops.REGISTER_DEVICE_TOKEN, body=body, org=org)

    # --- panels: sensors, controllers, panel users (9, 10, 14, 18, 19) ---------------------------------

    def list_panel_sensors(self, resource_id: int, *, org: int | None = None) -> SensorGroup:
        """(18) Sensors of a panel."""
        return self._call(ops.LIST_PANEL_SENSORS, path_params={"resourceId": resource_id}, org=org)

    def list_panel_controllers(self, resource_id: int, *, org: int | None = None) -> list[Controller]:
        """(14) Controllers of a panel."""
        return self._call(ops.LIST_PANEL_CONTROLLERS, path_params={"resourceId": resource_id}, org=org)

    def update_sensor_description(
        self, resource_sensor_id: int, description: str, *, locale: str | None = None, org: int | None = None
    ) -> OperationResult:
        """(9) Change a sensor's description."""
        return self._call(
            ops.UPDATE_SENSOR_DESCRIPTION,
            path_params={"resourceSensorId": resource_sensor_id},
            body=_body(locale=locale, description=description),
            org=org,
        )

    def delete_resource_user(
        self, *, resource_id: int, user_id: int, org: int | None = None
    ) -> OperationResult:
        """(10) Remove a user's authorization on a panel."""
        body = _body(resourceId=resource_id, userId=user_id)
        return self._call(ops.DELETE_RESOURCE_USER, body=body, org=org)

    def list_controller_data_log(
        self,
        *,
        resource_id: int | None = None,
        start_time: int | None = None,
        end_time: int | None = None,
        org: int | None = None,
    ) -> list[ControllerDataLogEntry]:
        """(19) The controller data log (last values), optionally of one panel and a period."""
        query = {"resourceId": resource_id, "startTime": start_time, "endTime": end_time}
        return self._call(ops.LIST_CONTROLLER_DATA_LOG, query=query, org=org)

    # --- activities and push history (3, 20) -----------------------------------------------------------

    def list_activities(
        self,
        resource_ids: Iterable[int],
        *,
        page: int | None = None,
        page_size: int | None = None,
        org: int | None = None,
        **filters: Unpack[ActivityFilter],
    ) -> ActivityPage:
        """(3) One page of activities of panels (page defaults to the first, SAM_FIRST_PAGE), filtered by
        `start_time`, `end_time`, `start_sec`, `finish_sec`, `types` and `group_ids`."""
        body = self._page(page, page_size) | _filters(ActivityFilter, filters)
        return self._call(ops.LIST_ACTIVITIES, body=_body(resourceIds=list(resource_ids), **body), org=org)

    def iter_activities(
        self,
        resource_ids: Iterable[int],
        *,
        page_size: int | None = None,
        org: int | None = None,
        **filters: Unpack[ActivityFilter],
    ) -> Iterator[Activity]:
        """Every activity of operation 3, page after page."""
        ids = list(resource_ids)

        def fetch(page: int, size: int) -> list[ActivityPage]:
            return [self.list_activities(ids, page=page, page_size=size, org=org, **filters)]

        return self._walk(fetch, page_size)

    def get_push_history(
        self,
        resource_id: int,
        *,
        page: int | None = None,
        page_size: int | None = None,
        org: int | None = None,
        **period: Unpack[Period],
    ) -> list[ActivityPage]:
        """(20) Push notification history of a panel in a period (`start_time`, `end_time`): one page, as
        the spec's array of page objects."""
        body = self._page(page, page_size) | _filters(Period, period)
        return self._call(ops.GET_PUSH_HISTORY, body=_body(resourceId=resource_id, **body), org=org)

    def iter_push_history(
        self,
        resource_id: int,
        *,
        page_size: int | None = None,
        org: int | None = None,
        **period: Unpack[Period],
    ) -> Iterator[Activity]:
        """Every push notification of operation 20, page after page."""

        def fetch(page: int, size: int) -> list[ActivityPage]:
            return self.get_push_history(resource_id, page=page, page_size=size, org=org, **period)

        return self._walk(fetch, page_size)

    def _page(self, page: int | None, page_size: int | None) -> dict[str, int]:
        """`page` and `pageSize` of a paged operation, the configured defaults where not given."""
        return {
            "page": self.settings.first_page if page is None else page,
            "pageSize": page_size or self.settings.page_size,
        }

    def _walk(
        self, fetch: Callable[[int, int], list[ActivityPage]], page_size: int | None
    ) -> Iterator[Activity]:
        """Pages from the first (SAM_FIRST_PAGE) until a short or empty page or `totalRecords` is reached.
        New activities arriving meanwhile can shift pages; an event already yielded is not yielded again."""
        size = page_size or self.settings.page_size
        page, seen = self.settings.first_page, set[str | None]()
        while True:
            pages: list[ActivityPage] = fetch(page, size)
            items = [a for p in pages for a in p.activities or []]
            total = next((p.total_records for p in pages if p.total_records is not None), None)
            for activity in items:
                key = activity.event_id
                if key is None or key not in seen:
                    seen.add(key)
                    yield activity
            page += 1
            if len(items) < size or (total is not None and (page - self.settings.first_page) * size >= total):
                return

    # --- cameras (6, 17) -------------------------------------------------------------------------------

    def list_cameras(self, *, org: int | None = None) -> list[CameraSummary]:
        """(17) Cameras of the caller: resource summaries with the camera's non-secret fields."""
        return self._call(ops.LIST_CAMERAS, org=org)

    def add_camera(
        self,
        *,
        device_serial: str,
        name: str,
        brand: str | None = None,
        organization_id: int | None = None,
        security_code: str | None = None,
        nc_code: str | None = None,
        subscription_id: int | None = None,
        org: int | None = None,
    ) -> Camera:
        """(6) Add a camera; the answer's securityCode and ncCode are SecretStr."""
        body = _body(
            brand=brand,
            deviceSerial=device_serial,
            name=name,
            organizationId=organization_id,
            securityCode=security_code,
            ncCode=nc_code,
            subscriptionId=subscription_id,
        )
        return self._call(ops.ADD_CAMERA, body=body, org=org)

    # --- scheduling, billing, customers (5, 7, 8) ------------------------------------------------------

    def update_schedule_task(
        self,
        task_id: int,
        *,
        task_name: str | None = None,
        task_type: int | None = None,
        task_dates: Sequence[str] | None = None,
        notification_options: NotificationOptions | Mapping[str, Any] | None = None,
        selection: str | None = None,
        resources: Sequence[int] | None = None,
        users: Sequence[int] | None = None,
        combined_data: Sequence[str] | None = None,
        user_type: str | None = None,
        org: int | None = None,
    ) -> OperationResult:
        """(5) Update a scheduled task."""
        body = _body(
            taskId=task_id,
            taskName=task_name,
            taskType=task_type,
            taskDates=task_dates,
            notificationOptions=notification_options,
            selection=selection,
            resources=resources,
            users=users,
            combinedData=combined_data,
            userType=user_type,
        )
        return self._call(ops.UPDATE_SCHEDULE_TASK, body=body, org=org)

    def list_bills(
        self,
        subscription_id: int,
        *,
        organization_id: int | None = None,
        bill_id: int | None = None,
        month_filter: str | None = None,
        org: int | None = None,
    ) -> list[Bill]:
        """(7) Bills of a subscription, optionally one bill or one month ("YYYY-MM")."""
        body = _body(
            organizationId=organization_id,
            subscriptionId=subscription_id,
            billId=bill_id,
            monthFilter=month_filter,
        )
        return self._call(ops.LIST_BILLS, body=body, org=org)

    def find_customers(
        self, *, phone_number: str | None = None, identity_number: str | None = None, org: int | None = None
    ) -> list[Customer]:
        """(8) Customers by phone number or identity number (names come masked)."""
        body = _body(phoneNumber=phone_number, identityNumber=identity_number)
        return self._call(ops.FIND_CUSTOMERS, body=body, org=org)
