"""Typed records of the service (spec "Resources and their fields"), as pydantic v2 models.

Attributes are the snake_case of the spec's JSON names, which stay the aliases (odd spellings such as
`childrenCoeffiecientSum` and `boolenValue` included). Every field is optional, since the spec does not
say which are present, and unknown fields are kept. Enumerations stay plain strings so that a value the
spec does not list is kept rather than rejected.

Secrets (`token`, `mqPassword`, `pinCode`, `securityCode`, `ncCode`) are `SecretStr`: `repr()` and
`str()` never show them, and dumping gives `***` unless the context says `{"show_secrets": True}`.

What is read is also checked, in this one place, so that nothing downstream (SQLite, datetime) meets a
value it cannot hold: every int fits in 64 bits (`Int64`), every epoch-ms time is sane (`EpochMs`, see
core.timefmt), every float is finite. A record that breaks a rule is rejected as a whole; in a list of
records (`Records[...]`) only that record is dropped, and the rest kept. Each dropped record is reported
as a `Rejection` into the validation context's `REJECTED` list (the client counts them per operation),
or, validated without that context, logged.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Annotated, Any, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    SecretStr,
    SerializationInfo,
    StrictBool,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)
from pydantic.alias_generators import to_camel

from core.timefmt import EARLIEST_MS, LATEST_MS

log = logging.getLogger("samops.models")

MASK = "***"
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
REJECTED = "rejected"  # validation-context key of the list that collects Rejections

Int64 = Annotated[int, Field(ge=INT64_MIN, le=INT64_MAX)]
EpochMs = Annotated[int, Field(ge=EARLIEST_MS, le=LATEST_MS)]
Float = Annotated[float, Field(allow_inf_nan=False)]


def context_of(context: object) -> dict[str, Any]:
    """A validation or serialization context as a dict: pydantic hands on whatever the caller gave."""
    return cast("dict[str, Any]", context) if isinstance(context, dict) else {}


def _dump_secret(value: SecretStr, info: SerializationInfo) -> str:
    context = context_of(info.context)
    return value.get_secret_value() if context.get("show_secrets") else MASK


Secret = Annotated[SecretStr, PlainSerializer(_dump_secret, return_type=str)]
# The spec's ids are ints, but login shows organization ids as strings: keep ints where they parse.
IntOrStr = Annotated[Int64 | str, Field(union_mode="left_to_right")]
# Timestamps the service formats its own way are kept as given rather than failing the whole record.
DateTime = Annotated[datetime | str, Field(union_mode="left_to_right")]
Date = Annotated[date | str, Field(union_mode="left_to_right")]


@dataclass(frozen=True)
class Rejection:
    """A record dropped from a list: its type, the field at fault (spec names) and why. Never the value,
    which could be a secret."""

    record: str
    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.record}: {self.field} {self.reason}"


_RANGE_ERRORS = frozenset(
    {"greater_than", "greater_than_equal", "less_than", "less_than_equal", "finite_number"}
)


def rejection(record: str, error: Any) -> Rejection:
    """The Rejection for one pydantic error (a dict of `ValidationError.errors()`) of a `record`."""
    # List indexes and union members ("int", "str", "constrained-int"...) are not field names.
    parts = [str(p) for p in error["loc"] if isinstance(p, str) and p[:1].islower() and "-" not in p]
    parts = [p for p in parts if p not in {"int", "str", "float", "bool", "datetime", "date", "list", "dict"}]
    kind = error["type"]
    if kind in _RANGE_ERRORS:
        reason = "out of range"
    elif kind.endswith(("_type", "_parsing")) or kind.startswith("union"):
        reason = "of the wrong type"
    else:
        reason = "invalid"
    return Rejection(record, ".".join(parts) or "record", reason)


class _KeepValid:
    """The wrap validator of `Records[T]`: validate the list whole (the common case, at full speed); when
    that fails, item by item, dropping and reporting the items that fail."""

    def __init__(self, record: str) -> None:
        self.record = record

    def __call__(self, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        if not isinstance(value, list):
            return handler(value)  # not a list at all: the parent record is what is wrong
        sink: list[Rejection] | None = context_of(info.context).get(REJECTED)
        mark = len(sink) if sink is not None else 0
        try:
            return handler(value)
        except ValidationError:
            if sink is not None:
                del sink[mark:]  # nested lists reported during the failed attempt report again below
        kept: list[Any] = []
        for item in cast("list[Any]", value):
            try:
                kept.extend(handler([item]))
            except ValidationError as exc:
                dropped = rejection(self.record, exc.errors(include_url=False, include_input=False)[0])
                if sink is None:
                    log.warning("dropped a record: %s", dropped)
                else:
                    sink.append(dropped)
        return kept


if TYPE_CHECKING:
    # To a type checker `Records[T]` is what it validates into: a list of T.
    Records = list
else:

    class Records:
        """`Records[T]`: a list of T in which an invalid item is dropped (and reported), not fatal."""

        def __class_getitem__(cls, item: Any) -> Any:
            name = getattr(item, "__name__", None) or str(item)
            return Annotated[list[item], WrapValidator(_KeepValid(name))]


class SamModel(BaseModel):
    """Base of every record: camelCase aliases, population by name too, unknown fields kept."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    def to_json_dict(self, *, show_secrets: bool = False) -> dict[str, Any]:
        """What the service sent (fields it left out stay out), with the spec's names, JSON-ready;
        secrets as `***` unless `show_secrets`."""
        return self.model_dump(
            mode="json", by_alias=True, exclude_unset=True, context={"show_secrets": show_secrets}
        )


# --- login, roles, organizations -------------------------------------------------------------------


class RoleSummary(SamModel):
    role_id: Int64 | None = None
    role_name: str | None = None
    type: Int64 | None = None
    inherited: bool | None = None
    type_pk: Int64 | None = Field(default=None, alias="typePK")
    type_name: str | None = None


class Organization(SamModel):
    """{name, id}: login shows the id as a string, user listings as an int; both parse to int."""

    name: str | None = None
    id: IntOrStr | None = None


# --- panels: resources, sensors, controllers --------------------------------------------------------


class Partition(SamModel):
    name: str | None = None
    no: Int64 | None = None


class Sensor(SamModel):
    id: Int64 | None = None
    resource_id: Int64 | None = None
    order_no: Int64 | None = None
    io_type: str | None = None
    io_direction: str | None = None
    true_value: str | None = None
    false_value: str | None = None
    partitions: Records[Partition] | None = None
    sensor_id: Int64 | None = None
    description: str | None = None
    hardware_serial_number: str | None = None
    sensor_name: str | None = None


class SensorGroup(SamModel):
    """{type, sensors}: an entry of `resourceSensors`, and the answer of operation 18."""

    type: str | None = None
    sensors: Records[Sensor] | None = None


class Controller(SamModel):
    hardware_serial_number: str | None = None
    id: Int64 | None = None
    resource_id: Int64 | None = None
    order_no: Int64 | None = None
    io_type: str | None = None
    io_direction: str | None = None
    true_value: str | None = None
    false_value: str | None = None
    description: str | None = None
    controller_name: str | None = None
    controller_id: Int64 | None = None
    partitions: Records[Partition] | None = None


class ResourceSummary(SamModel):
    resource_id: Int64 | None = None
    network_id: str | None = None
    resource_name: str | None = None
    enabled: bool | None = None
    model_name: str | None = None
    brand_name: str | None = None
    tree_path: str | None = None
    org_id: Int64 | None = None
    resource_sensors: Records[SensorGroup] | None = None
    resource_controllers: Records[Controller] | None = None
    resource_subscription_id: Int64 | None = None
    subscription_document_no: str | None = None
    resource_type: str | None = None
    device_sub_type: str | None = None


class LoginResult(SamModel):
    token: Secret | None = None
    mq_user: str | None = None
    mq_password: Secret | None = None
    user_id: Int64 | None = None
    email_address: str | None = None
    screen_name: str | None = None
    locale_id: str | None = None
    roles: Records[RoleSummary] | None = None
    organizations: Records[Organization] | None = None
    organization_ids: Records[Int64] | None = None
    resources: Records[ResourceSummary] | None = None

    @property
    def panels(self) -> list[ResourceSummary]:
        """The alarm panels of the caller's organizations (the login's `resources`)."""
        return self.resources or []

    def organization_id_list(self) -> list[int]:
        """The caller's organization ids, from `organizations` or else `organizationIds`."""
        ids = [org.id for org in self.organizations or [] if isinstance(org.id, int)]
        return ids or list(self.organization_ids or [])


# --- users ------------------------------------------------------------------------------------------


class User(SamModel):
    user_id: Int64 | None = None
    instance_id: Int64 | None = None
    instance_name: str | None = None
    first_name: str | None = None
    middle_name: str | None = None
    last_name: str | None = None
    email_address_verified: bool | None = None
    status: Int64 | None = None
    national_id: Int64 | None = None
    screen_name: str | None = None
    email_address: str | None = None
    time_zone_id: str | None = None
    locale_id: str | None = None
    organizations: Records[Organization] | None = None
    organization_ids: Records[Int64] | None = None
    roles: Records[RoleSummary] | None = None
    resources: Records[ResourceSummary] | None = None


# --- activities -------------------------------------------------------------------------------------


class Activity(SamModel):
    event_id: str | None = None
    activity_time: EpochMs | None = None
    description: str | None = None
    event_type: str | None = None
    violation_name: str | None = None
    violation_type: str | None = None
    msg_type: Int64 | None = None
    vio_type: Int64 | None = None
    group: Int64 | None = None
    resource_id: Int64 | None = None  # not in the spec; the simulator adds the panel (docs/architecture.md)


class ActivityPage(SamModel):
    total_records: Int64 | None = None
    page: Int64 | None = None
    page_size: Int64 | None = None
    activities: Records[Activity] | None = None


# --- cameras ----------------------------------------------------------------------------------------


class Camera(SamModel):
    resource_id: Int64 | None = None
    network_id: str | None = None
    organization_id: Int64 | None = None
    name: str | None = None
    brand: str | None = None
    device_type: str | None = None
    http_port: str | None = None
    rtsp_port: str | None = None
    device_model_name: str | None = None
    channel_num: str | None = None
    private_media_port: str | None = None
    port: str | None = None
    device_model: str | None = None
    ability: str | None = None  # comma-separated capabilities
    bind_status: str | None = None
    status: str | None = None
    sd_card_status: str | None = None
    permission: str | None = None
    version: str | None = None
    nc_code: Secret | None = None
    security_code: Secret | None = None


class CameraSummary(ResourceSummary):
    """An item of operation 17: a Resource summary plus the Camera record's non-secret fields."""

    organization_id: Int64 | None = None
    name: str | None = None
    brand: str | None = None
    device_type: str | None = None
    http_port: str | None = None
    rtsp_port: str | None = None
    device_model_name: str | None = None
    channel_num: str | None = None
    private_media_port: str | None = None
    port: str | None = None
    device_model: str | None = None
    ability: str | None = None
    bind_status: str | None = None
    status: str | None = None
    sd_card_status: str | None = None
    permission: str | None = None
    version: str | None = None
    # Not expected here, but masked all the same should a service send them.
    nc_code: Secret | None = None
    security_code: Secret | None = None


# --- bills and customers ----------------------------------------------------------------------------


class Amount(SamModel):
    unit: str | None = None
    value: Float | None = None


class Bill(SamModel):
    id: str | None = None
    href: str | None = None
    bill_date: DateTime | None = None
    bill_no: str | None = None
    payment_due_date: DateTime | None = None
    payment_date: DateTime | None = None
    amount_due: Amount | None = None
    state: str | None = None  # paid, settled


class Characteristic(SamModel):
    city: str | None = None
    country: str | None = None
    phone_number: str | None = None
    social_network_id: str | None = None
    street1: str | None = None


class ContactMedium(SamModel):
    characteristic: Characteristic | None = None


class EngagedParty(SamModel):
    name: str | None = None
    id: str | None = None


class Customer(SamModel):
    id: str | None = None
    name: str | None = None  # masked by the service
    contact_medium: Records[ContactMedium] | None = None
    engaged_party: EngagedParty | None = None


# --- the bulk listing of operation 2: panel user pairs and the full object graph --------------------


class ResourceUser(SamModel):
    id: Int64 | None = None
    resource_id: Int64 | None = None
    user_id: Int64 | None = None
    partition_no: str | None = None
    slot_no: str | None = None
    pin_code: Secret | None = None
    user_name: str | None = None


class ExtendedRole(SamModel):
    inherited: bool | None = None
    role_id: Int64 | None = None
    role_name: str | None = None
    type: Int64 | None = None
    type_name: str | None = None
    type_pk: Int64 | None = Field(default=None, alias="typePK")


class Label(SamModel):
    active: bool | None = None
    label_id: Int64 | None = None
    label_name: str | None = None
    label_user_id: Int64 | None = None


class Role(SamModel):
    """Role (full)."""

    instance_id: Int64 | None = None
    localization: str | None = None
    name: str | None = None
    role_id: Int64 | None = None
    role_privilege_groups: list[Any] | None = None
    type: Int64 | None = None


class DynamicFieldValue(SamModel):
    asset: Any = None
    boolen_value: bool | None = None  # spelled as the spec spells it
    color_value: str | None = None
    date_value: Date | None = None
    datetime_value: DateTime | None = None
    double_value: Float | None = None
    dynamic_field: dict[str, Any] | None = None
    dynamic_location_value: str | None = None
    email_value: str | None = None
    fixed_location_value: str | None = None
    float_value: Float | None = None
    int_value: Int64 | None = None
    long_value: Int64 | None = None
    multiple_selection_value: str | None = None
    number_value: Any = None


class Asset(SamModel):
    active: bool | None = None
    asset_name: str | None = None
    asset_type: dict[str, Any] | None = None
    dynamic_field_values: Records[DynamicFieldValue] | None = None
    id: Int64 | None = None
    labels: Records[Label] | None = None
    model: dict[str, Any] | None = None
    resource: Resource | None = None
    serial_number: str | None = None


class ResourceGroup(SamModel):
    active: bool | None = None
    labels: Records[Label] | None = None
    organization_id: Int64 | None = None
    organization_name: str | None = None
    parent_resource_group: ResourceGroup | None = None
    resource_group_id: Int64 | None = None
    resource_group_name: str | None = None
    roles: Records[Role] | None = None
    tree_path: str | None = None


class Resource(SamModel):
    """Resource (full), as nested in the bulk listing; nested types the spec leaves open stay loose."""

    active: bool | None = None
    assets: Records[Asset] | None = None
    child_resources: Records[Resource] | None = None
    children_coeffiecient_sum: Float | None = None  # spelled as the spec spells it
    coefficient: Float | None = None
    custom_report_order: Int64 | None = None
    disabled_date: DateTime | None = None
    dynamic_field_values: Records[DynamicFieldValue] | None = None
    enabled: bool | None = None
    has_children: bool | None = None
    labels: Records[Label] | None = None
    model: dict[str, Any] | None = None
    network_id: str | None = None
    organization_id: Int64 | None = None
    parent_resource: Resource | None = None
    partitions: list[Any] | None = None
    resource_controllers: list[Any] | None = None
    resource_group: ResourceGroup | None = None
    resource_id: Int64 | None = None
    resource_name: str | None = None
    resource_sensors: list[Any] | None = None
    resource_type: str | None = None
    roles: Records[Role] | None = None
    sub_type: dict[str, Any] | None = None
    tree_path: str | None = None


class UserPrivilegeGroup(SamModel):
    authority: bool | None = None
    id: Int64 | None = None
    privilege_group: dict[str, Any] | None = None
    scope_pk: Int64 | None = None
    user: OrganizationUser | None = None


class UserPrivilegeValidity(SamModel):
    expiration: Int64 | None = None
    id: Int64 | None = None
    period: str | None = None
    scope_pk: Int64 | None = None
    user: OrganizationUser | None = None
    validity_start: Int64 | None = None


class OrganizationUser(SamModel):
    email_address: str | None = None
    email_address_verified: bool | None = None
    extended_roles: Records[ExtendedRole] | None = None
    first_name: str | None = None
    instance_id: Int64 | None = None
    instance_name: str | None = None
    last_name: str | None = None
    locale_id: str | None = None
    middle_name: str | None = None
    organization_ids: Records[Int64] | None = None
    resource_groups: Records[ResourceGroup] | None = None
    resources: Records[Resource] | None = None
    roles: Records[Role] | None = None
    screen_name: str | None = None
    status: Int64 | None = None
    time_zone_id: str | None = None
    user_id: Int64 | None = None
    user_privilege_groups: Records[UserPrivilegeGroup] | None = None
    user_privilege_validities: Records[UserPrivilegeValidity] | None = None


class PanelUserPair(SamModel):
    resource_id: Int64 | None = None
    resource_model: str | None = None
    resource_user_response_list: Records[ResourceUser] | None = None
    organization_user_list: Records[OrganizationUser] | None = None


# --- privileges -------------------------------------------------------------------------------------


class AccessibleDay(SamModel):
    day_of_week: Int64 | None = None
    start: Int64 | None = None
    end: Int64 | None = None


class PrivilegeValidity(SamModel):
    id: Int64 | None = None
    accessible_days: Records[AccessibleDay] | None = None
    expiration: Int64 | None = None
    validity_start: Int64 | None = None


class PrivilegeGroupAssignment(SamModel):
    id: Int64 | None = None
    privilege_group_id: Int64 | None = None
    authority: bool | None = None
    scope_pk: Int64 | None = None


class UserPrivileges(SamModel):
    """The answer of operation 15 (User privilege result)."""

    user_id: Int64 | None = None
    user_privilege_validity: PrivilegeValidity | None = None
    user_privilege_groups: Records[PrivilegeGroupAssignment] | None = None


class RolePrivilegeGroup(SamModel):
    id: Int64 | None = None
    role_id: Int64 | None = None
    privilege_group_id: Int64 | None = None
    default_authority: bool | None = None


# --- controller data log and operation results -----------------------------------------------------


class ControllerDataLogEntry(SamModel):
    last_update: EpochMs | None = None
    order_no: Int64 | None = None
    resource_controller_id: Int64 | None = None
    resource_id: Int64 | None = None
    value: str | None = None


class OperationResult(SamModel):
    """{message, success}: the answer of a write. `success` must be there, a JSON boolean: without it the
    answer does not say what happened (the client raises OutcomeUnknownError)."""

    message: str | None = None
    success: StrictBool


# --- request parts (bodies of operations 4 and 5) ---------------------------------------------------


class PrivilegeGroupGrant(SamModel):
    """An entry of operation 4's `privilegeGroups`."""

    privilege_group_id: Int64
    authorized: bool


class AccessPeriod(SamModel):
    """An entry of operation 4's `period`: a weekday (1-7) and a time window."""

    day_of_week: int = Field(ge=1, le=7)
    start: Int64
    end: Int64


class NotificationOptions(SamModel):
    """Operation 5's `notificationOptions`."""

    channels: list[str] | None = None
    audience: list[str] | None = None
    user_id: Int64 | None = None


for _model in (Asset, ResourceGroup, Resource, UserPrivilegeGroup, UserPrivilegeValidity, OrganizationUser):
    _model.model_rebuild()
