"""Request bodies of the operations, as the spec lists them. Strict types: "5" is not an int."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Body(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class Login(Body):
    screenName: str
    password: str
    rememberMe: bool | None = None


class ActivityQuery(Body):
    resourceIds: list[int] | None = None
    page: int | None = None
    pageSize: int | None = Field(default=None, ge=1, le=1000)
    startTime: int | None = Field(default=None, ge=0)
    endTime: int | None = Field(default=None, ge=0)
    startSec: int | None = Field(default=None, ge=0, le=86399)
    finishSec: int | None = Field(default=None, ge=0, le=86399)
    types: int | None = Field(default=None, ge=0, le=3)
    groupIds: list[int] | None = None


class PrivilegeGroupChoice(Body):
    privilegeGroupId: int
    authorized: bool


class Period(Body):
    dayOfWeek: int = Field(ge=1, le=7)
    start: int
    end: int


class PrivilegeUpdate(Body):
    userId: int
    authorizedResourceIds: list[int]
    privilegeGroups: list[PrivilegeGroupChoice]
    organizationId: int
    expirationTime: int | None = None
    period: list[Period] | None = None
    validityStart: int | None = None


class NotificationOptions(Body):
    channels: list[str] | None = None
    audience: list[str] | None = None
    userId: int | None = None


class TaskUpdate(Body):
    taskId: int
    taskName: str | None = None
    taskType: int | None = None
    taskDates: list[str] | None = None
    notificationOptions: NotificationOptions | None = None
    selection: str | None = None
    resources: list[int] | None = None
    users: list[int] | None = None
    combinedData: list[str] | None = None
    userType: str | None = None


class CameraAdd(Body):
    brand: str | None = None
    deviceSerial: str = Field(min_length=1, max_length=64)
    name: str = Field(min_length=1, max_length=128)
    organizationId: int | None = None
    securityCode: str | None = None
    ncCode: str | None = None
    subscriptionId: int | None = None


class BillQuery(Body):
    organizationId: int | None = None
    subscriptionId: int
    billId: int | None = None
    monthFilter: str | None = Field(default=None, pattern=r"^\d{4}(-\d{2})?$")


class CustomerQuery(Body):
    phoneNumber: str | None = None
    identityNumber: str | None = None


class SensorDescription(Body):
    locale: str | None = None
    description: str = Field(max_length=255)


class ResourceUserDelete(Body):
    resourceId: int
    userId: int


class UserDelete(Body):
    userId: int


class PushHistoryQuery(Body):
    resourceId: int
    page: int | None = None
    pageSize: int | None = Field(default=None, ge=1, le=1000)
    startTime: int | None = Field(default=None, ge=0)
    endTime: int | None = Field(default=None, ge=0)


class DeviceToken(Body):
    userId: int
    requestToken: str = Field(min_length=1)
    appId: str = Field(min_length=1)


class Injection(Body):
    resourceId: int
    count: int = Field(default=1, ge=1, le=1000)
    violationType: str | None = Field(default="alarm", pattern="^(alarm|warning|error|event)$")


class FaultSettings(Body):
    model_config = ConfigDict(strict=False, extra="ignore")
    errorRate: float | None = Field(default=None, ge=0, le=1)
    throttleRate: float | None = Field(default=None, ge=0, le=1)
    latencyMs: int | None = Field(default=None, ge=0, le=60_000)
