"""Written from the spec alone (service-api.md, decisions.md): the Idempotency-Key and record shapes.

Shares no code with core/ or simulator/, so that a misreading in both shows up in the checks using it.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from Crypto.Cipher import DES


def _des_keys(payload: bytes) -> tuple[bytes, bytes, bytes]:
    # decisions.md item 1: the first 24 bytes of the SHA-256 digest, K1, K2, K3.
    digest = hashlib.sha256(payload).digest()
    return digest[0:8], digest[8:16], digest[16:24]


def _blocks(data: bytes) -> list[bytes]:
    return [data[i : i + 8] for i in range(0, len(data), 8)]


def stamp_for(epoch_ms: int) -> str:
    text = str(epoch_ms)
    return text.zfill(-(-len(text) // 8) * 8)


def idempotency_key(payload: bytes, epoch_ms: int) -> str:
    """E_K3(D_K2(E_K1(stamp))) per 8-byte ECB block, as single-DES steps so degenerate keys work."""
    k1, k2, k3 = (DES.new(k, DES.MODE_ECB) for k in _des_keys(payload))
    stamp = stamp_for(epoch_ms).encode("ascii")
    out = b"".join(k3.encrypt(k2.decrypt(k1.encrypt(block))) for block in _blocks(stamp))
    return out.hex().upper()


def decode_key(payload: bytes, header: str) -> str:
    """The plaintext stamp of an Idempotency-Key: D_K1(E_K2(D_K3(block)))."""
    k1, k2, k3 = (DES.new(k, DES.MODE_ECB) for k in _des_keys(payload))
    raw = bytes.fromhex(header)
    assert len(raw) % 8 == 0, header
    return b"".join(k1.decrypt(k2.encrypt(k3.decrypt(block))) for block in _blocks(raw)).decode("latin-1")


def empty_body_payload(raw_path: str) -> bytes:
    """decisions.md item 3: `/api` + the path of the request line, query string excluded."""
    return ("/api" + raw_path.split("?", 1)[0]).encode("ascii")


# Field types of the spec's records. "int" excludes bool; "epoch-ms" is an int; "date-time" an ISO string.
LOGIN = {
    "token": "string",
    "mqUser": "string",
    "mqPassword": "string",
    "userId": "int",
    "emailAddress": "string",
    "screenName": "string",
    "localeId": "string",
    "roles": "array",
    "organizations": "array",
    "organizationIds": "array",
    "resources": "array",
}
ROLE_SUMMARY = {
    "roleId": "int",
    "roleName": "string",
    "type": "int",
    "inherited": "bool",
    "typePK": "int",
    "typeName": "string",
}
RESOURCE_SUMMARY = {
    "resourceId": "int",
    "networkId": "string",
    "resourceName": "string",
    "enabled": "bool",
    "modelName": "string",
    "brandName": "string",
    "treePath": "string",
    "orgId": "int",
    "resourceSensors": "array",
    "resourceControllers": "array",
    "resourceSubscriptionId": "int",
    "subscriptionDocumentNo": "string",
    "resourceType": "string",
    "deviceSubType": "string",
}
RESOURCE_TYPES = {"Device", "ThirdParty", "Virtual", "Gateway"}
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
IO_DIRECTIONS = {"Input", "Output", "InputOutput"}
SENSOR = {
    "id": "int",
    "resourceId": "int",
    "orderNo": "int",
    "ioType": "string",
    "ioDirection": "string",
    "trueValue": "string",
    "falseValue": "string",
    "partitions": "array",
    "sensorId": "int",
    "description": "string",
    "hardwareSerialNumber": "string",
    "sensorName": "string",
}
CONTROLLER = {
    "hardwareSerialNumber": "string",
    "id": "int",
    "resourceId": "int",
    "orderNo": "int",
    "ioType": "string",
    "ioDirection": "string",
    "trueValue": "string",
    "falseValue": "string",
    "description": "string",
    "controllerName": "string",
    "controllerId": "int",
    "partitions": "array",
}
PARTITION = {"name": "string", "no": "int"}
USER = {
    "userId": "int",
    "instanceId": "int",
    "instanceName": "string",
    "firstName": "string",
    "middleName": "string",
    "lastName": "string",
    "emailAddressVerified": "bool",
    "status": "int",
    "nationalId": "int",
    "screenName": "string",
    "emailAddress": "string",
    "timeZoneId": "string",
    "localeId": "string",
    "organizations": "array",
    "organizationIds": "array",
    "roles": "array",
    "resources": "array",
}
ACTIVITY_PAGE = {"totalRecords": "int", "page": "int", "pageSize": "int", "activities": "array"}
ACTIVITY = {
    "eventId": "string",
    "activityTime": "epoch-ms",
    "description": "string",
    "eventType": "string",
    "violationName": "string",
    "violationType": "string",
    "msgType": "int",
    "vioType": "int",
    "group": "int",
}
CAMERA = {
    "resourceId": "int",
    "networkId": "string",
    "organizationId": "int",
    "name": "string",
    "brand": "string",
    "deviceType": "string",
    "httpPort": "string",
    "rtspPort": "string",
    "deviceModelName": "string",
    "channelNum": "string",
    "privateMediaPort": "string",
    "port": "string",
    "deviceModel": "string",
    "ability": "string",
    "bindStatus": "string",
    "status": "string",
    "sdCardStatus": "string",
    "permission": "string",
    "version": "string",
    "ncCode": "string",
    "securityCode": "string",
}
BILL = {
    "id": "string",
    "href": "string",
    "billDate": "date-time",
    "billNo": "string",
    "paymentDueDate": "date-time",
    "paymentDate": "date-time",
    "amountDue": "object",
    "state": "string",
}
CUSTOMER = {"id": "string", "name": "string", "contactMedium": "array", "engagedParty": "object"}
PANEL_USER_PAIR = {
    "resourceId": "int",
    "resourceModel": "string",
    "resourceUserResponseList": "array",
    "organizationUserList": "array",
}
RESOURCE_USER = {
    "id": "int",
    "resourceId": "int",
    "userId": "int",
    "partitionNo": "string",
    "slotNo": "string",
    "pinCode": "string",
    "userName": "string",
}
ORGANIZATION_USER = {
    "emailAddress": "string",
    "emailAddressVerified": "bool",
    "extendedRoles": "array",
    "firstName": "string",
    "instanceId": "int",
    "instanceName": "string",
    "lastName": "string",
    "localeId": "string",
    "middleName": "string",
    "organizationIds": "array",
    "resourceGroups": "array",
    "resources": "array",
    "roles": "array",
    "screenName": "string",
    "status": "int",
    "timeZoneId": "string",
    "userId": "int",
    "userPrivilegeGroups": "array",
    "userPrivilegeValidities": "array",
}
USER_PRIVILEGE_RESULT = {"userId": "int", "userPrivilegeValidity": "object", "userPrivilegeGroups": "array"}
PRIVILEGE_VALIDITY = {"id": "int", "accessibleDays": "array", "expiration": "int", "validityStart": "int"}
USER_PRIVILEGE_GROUP = {"id": "int", "privilegeGroupId": "int", "authority": "bool", "scopePk": "int"}
ROLE_PRIVILEGE_GROUP = {"id": "int", "roleId": "int", "privilegeGroupId": "int", "defaultAuthority": "bool"}
DATA_LOG_ENTRY = {
    "lastUpdate": "int",
    "orderNo": "int",
    "resourceControllerId": "int",
    "resourceId": "int",
    "value": "string",
}
OPERATION_RESULT = {"message": "string", "success": "bool"}
ERROR_BODY = {"statusCode": "int", "error": "string", "message": "string", "path": "string"}


def _type_ok(value: Any, kind: str) -> bool:
    match kind:
        case "int" | "epoch-ms":
            return isinstance(value, int) and not isinstance(value, bool)
        case "number":
            return isinstance(value, int | float) and not isinstance(value, bool)
        case "string":
            return isinstance(value, str)
        case "bool":
            return isinstance(value, bool)
        case "array":
            return isinstance(value, list)
        case "object":
            return isinstance(value, dict)
        case "date-time":
            if not isinstance(value, str):
                return False
            try:
                datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                return False
            return True
    raise ValueError(kind)


def shape_errors(record: Any, fields: dict[str, str], where: str = "") -> list[str]:
    """Every spec field present, each of the spec's type (null allowed: presence rules are "not shown")."""
    if not isinstance(record, dict):
        return [f"{where}: expected an object, got {type(record).__name__}"]
    problems = []
    for name, kind in fields.items():
        if name not in record:
            problems.append(f"{where}.{name}: missing")
        elif record[name] is not None and not _type_ok(record[name], kind):
            problems.append(f"{where}.{name}: expected {kind}, got {record[name]!r}")
    return problems


def assert_shape(record: Any, fields: dict[str, str], where: str = "$") -> None:
    problems = shape_errors(record, fields, where)
    assert not problems, "\n".join(problems)


def assert_each(records: Any, fields: dict[str, str], where: str = "$") -> None:
    assert isinstance(records, list), f"{where}: expected an array, got {records!r}"[:300]
    problems = [p for i, r in enumerate(records) for p in shape_errors(r, fields, f"{where}[{i}]")]
    assert not problems, "\n".join(problems[:20])


# Nested shapes the spec names inside the records above (for `extra_fields`).
ORGANIZATION_REF = {"name": "string", "id": "string"}
ORGANIZATION_REF_INT = {"name": "string", "id": "int"}
SENSOR_GROUP = {"type": "string", "sensors": "array"}
EXTENDED_ROLE = {
    "inherited": "bool",
    "roleId": "int",
    "roleName": "string",
    "type": "int",
    "typeName": "string",
    "typePK": "int",
}
ROLE_FULL = {
    "instanceId": "int",
    "localization": "string",
    "name": "string",
    "roleId": "int",
    "rolePrivilegeGroups": "array",
    "type": "int",
}
ORG_USER_PRIVILEGE_GROUP = {
    "authority": "bool",
    "id": "int",
    "privilegeGroup": "object",
    "scopePk": "int",
    "user": "object",
}
ORG_USER_VALIDITY = {
    "expiration": "int",
    "id": "int",
    "period": "string",
    "scopePk": "int",
    "user": "object",
    "validityStart": "int",
}
ACCESSIBLE_DAY = {"dayOfWeek": "int", "start": "int", "end": "int"}
AMOUNT = {"unit": "string", "value": "number"}
CONTACT_MEDIUM = {"characteristic": "object"}
CHARACTERISTIC = {
    "city": "string",
    "country": "string",
    "phoneNumber": "string",
    "socialNetworkId": "string",
    "street1": "string",
}

# Each record with the spec's shape of its nested objects and arrays of objects.
SENSOR_TREE = {**SENSOR, "partitions": PARTITION}
CONTROLLER_TREE = {**CONTROLLER, "partitions": PARTITION}
SENSOR_GROUP_TREE = {**SENSOR_GROUP, "sensors": SENSOR_TREE}
RESOURCE_SUMMARY_TREE = {
    **RESOURCE_SUMMARY,
    "resourceSensors": SENSOR_GROUP_TREE,
    "resourceControllers": CONTROLLER_TREE,
}
LOGIN_TREE = {
    **LOGIN,
    "roles": ROLE_SUMMARY,
    "organizations": ORGANIZATION_REF,
    "resources": RESOURCE_SUMMARY_TREE,
}
USER_TREE = {
    **USER,
    "organizations": ORGANIZATION_REF_INT,
    "roles": ROLE_SUMMARY,
    "resources": RESOURCE_SUMMARY_TREE,
}
ACTIVITY_PAGE_TREE = {**ACTIVITY_PAGE, "activities": ACTIVITY}
ORGANIZATION_USER_TREE = {
    **ORGANIZATION_USER,
    "extendedRoles": EXTENDED_ROLE,
    "roles": ROLE_FULL,
    "userPrivilegeGroups": ORG_USER_PRIVILEGE_GROUP,
    "userPrivilegeValidities": ORG_USER_VALIDITY,
}
PANEL_USER_PAIR_TREE = {
    **PANEL_USER_PAIR,
    "resourceUserResponseList": RESOURCE_USER,
    "organizationUserList": ORGANIZATION_USER_TREE,
}
USER_PRIVILEGE_RESULT_TREE = {
    **USER_PRIVILEGE_RESULT,
    "userPrivilegeValidity": {**PRIVILEGE_VALIDITY, "accessibleDays": ACCESSIBLE_DAY},
    "userPrivilegeGroups": USER_PRIVILEGE_GROUP,
}
BILL_TREE = {**BILL, "amountDue": AMOUNT}
CUSTOMER_TREE = {
    **CUSTOMER,
    "contactMedium": {**CONTACT_MEDIUM, "characteristic": CHARACTERISTIC},
    "engagedParty": ORGANIZATION_REF,
}


def extra_fields(value: Any, fields: dict[str, Any], where: str = "$") -> list[str]:
    """Every name in `value` (an object, or an array of objects) that the spec does not list for it.

    `fields` maps each spec name to its kind, or to the field map of the nested object (or of each item
    of a nested array) when the spec gives that shape; nested objects the spec leaves open are not entered.
    """
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in extra_fields(item, fields, f"{where}[{i}]")]
    if not isinstance(value, dict):
        return []
    problems = [f"{where}.{name}: not a spec field" for name in value if name not in fields]
    for name, kind in fields.items():
        if isinstance(kind, dict) and value.get(name) is not None:
            problems += extra_fields(value[name], kind, f"{where}.{name}")
    return problems
