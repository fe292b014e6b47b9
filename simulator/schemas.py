"""Request bodies of the operations, as the spec lists them. Strict types: "5" is not an int."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

# The spec's int is an int64 unless stated: bigger numbers are refused naming the field, never stored.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _int64(value: int) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError("must be an int64 (between -2^63 and 2^63 - 1)")
    return value


# A validator rather than ge/le: a field's own Field(ge=..., le=...) must not replace these bounds.
Int64 = Annotated[int, AfterValidator(_int64)]


class Body(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class Login(Body):
    screenName: str
    password: str
    rememberMe: bool | None = None


class ActivityQuery(Body):
    resourceIds: list[Int64] | None = None
    page: Int64 | None = None
    pageSize: Int64 | None = Field(default=None, ge=1, le=1000)
    startTime: Int64 | None = Field(default=None, ge=0)
    endTime: Int64 | None = Field(default=None, ge=0)
    startSec: Int64 | None = Field(default=None, ge=0, le=86399)
    finishSec: Int64 | None = Field(default=None, ge=0, le=86399)
    types: Int64 | None = Field(default=None, ge=0, le=3)
    groupIds: list[Int64] | None = None


class PrivilegeGroupChoice(Body):
    privilegeGroupId: Int64
    authorized: bool


class Period(Body):
    dayOfWeek: Int64 = Field(ge=1, le=7)
    start: Int64
    end: Int64


class PrivilegeUpdate(Body):
    userId: Int64
    authorizedResourceIds: list[Int64]
    privilegeGroups: list[PrivilegeGroupChoice]
    organizationId: Int64
    expirationTime: Int64 | None = None
    period: list[Period] | None = None
    validityStart: Int64 | None = None


class NotificationOptions(Body):
    channels: list[str] | None = None
    audience: list[str] | None = None
    userId: Int64 | None = None


class TaskUpdate(Body):
    taskId: Int64
    taskName: str | None = None
    taskType: Int64 | None = None
    taskDates: list[str] | None = None
    notificationOptions: NotificationOptions | None = None
    selection: str | None = None
    resources: list[Int64] | None = None
    users: list[Int64] | None = None
    combinedData: list[str] | None = None
    userType: str | None = None


class CameraAdd(Body):
    brand: str | None = None
    deviceSerial: str = Field(min_length=1, max_length=64)
    name: str = Field(min_length=1, max_length=128)
    organizationId: Int64 | None = None
    securityCode: str | None = None
    ncCode: str | None = None
    subscriptionId: Int64 | None = None


class BillQuery(Body):
    organizationId: Int64 | None = None
    subscriptionId: Int64
    billId: Int64 | None = None
    monthFilter: str | None = Field(default=None, pattern=r"^\d{4}(-\d{2})?$")


class CustomerQuery(Body):
    phoneNumber: str | None = None
    identityNumber: str | None = None


class SensorDescription(Body):
    locale: str | None = None
    description: str = Field(max_length=255)


class ResourceUserDelete(Body):
    resourceId: Int64
    userId: Int64


class UserDelete(Body):
    userId: Int64


class PushHistoryQuery(Body):
    resourceId: Int64
    page: Int64 | None = None
    pageSize: Int64 | None = Field(default=None, ge=1, le=1000)
    startTime: Int64 | None = Field(default=None, ge=0)
    endTime: Int64 | None = Field(default=None, ge=0)


class DeviceToken(Body):
    userId: Int64
    requestToken: str = Field(min_length=1)
    appId: str = Field(min_length=1)


class Injection(Body):
    resourceId: Int64
    count: Int64 = Field(default=1, ge=1, le=1000)
    violationType: str | None = Field(default="alarm", pattern="^(alarm|warning|error|event)$")
    activityTime: Int64 | None = Field(default=None, ge=0)  # back-dated: arrives out of order
    violationName: str | None = Field(default=None, min_length=1, max_length=100)


class CameraControl(Body):
    status: str | None = Field(default=None, min_length=1, max_length=40)
    enabled: bool | None = None
    name: str | None = Field(default=None, min_length=1, max_length=200)


class LoginControl(Body):
    model_config = ConfigDict(strict=True, extra="forbid")
    refuse: bool


class FaultSettings(Body):
    model_config = ConfigDict(strict=False, extra="ignore")
    errorRate: float | None = Field(default=None, ge=0, le=1)
    throttleRate: float | None = Field(default=None, ge=0, le=1)
    latencyMs: Int64 | None = Field(default=None, ge=0, le=60_000)
