"""The test-side Idempotency-Key code reproduces every published vector (so the live tests can trust it)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.support.spec_client import decode_key, key_for

# A copy of ../shared/spec/idempotency-vectors.json (name, path, body, epoch_ms, header), used when that
# folder is not next to the clone; the shared file wins when present.
EMBEDDED = [
    {
        "name": "get_camera_list",
        "method": "GET",
        "path": "/camera/list",
        "body": "",
        "payload_is_body": False,
        "epoch_ms": 1732233445566,
        "stamp": "0001732233445566",
        "sha256": "0A62BED67D3CF98F0C36F708ABDD54DF84EED266B42AF34905428CD380A48141",
        "header": "5844831CFDEEB8818B47173B51F6FA9C",
    },
    {
        "name": "get_user_by_email_percent_encoded",
        "method": "GET",
        "path": "/user/email/a%40b.com",
        "body": "",
        "payload_is_body": False,
        "epoch_ms": 1732233445566,
        "stamp": "0001732233445566",
        "sha256": "94F746F0D30501A3BFC93C361F368CDB41C996004BB7D3CA637DC9CAFAB80F77",
        "header": "0067424F1CC0795DD77F1F01877370FD",
    },
    {
        "name": "post_login",
        "method": "POST",
        "path": "/auth/login",
        "body": '{"screenName":"demo.user@example.com","password":"S3cret!pass","rememberMe":true}',
        "payload_is_body": True,
        "epoch_ms": 1732233445566,
        "stamp": "0001732233445566",
        "sha256": "1CA0B4DF49F8EF8AD89891F565E20319C39045F4C8E87BA200D9F34783BD6DDD",
        "header": "CB89F9C21E8A875284B8B4AD1F8482CE",
    },
    {
        "name": "put_sensor_description_turkish_utf8",
        "method": "PUT",
        "path": "/panel/sensor/5001/update-description",
        "body": '{"locale":"tr","description":"Kapı sensörü İç Şube, giriş katı (ş ğ ü ö ç ı İ)"}',
        "payload_is_body": True,
        "epoch_ms": 1732233445566,
        "stamp": "0001732233445566",
        "sha256": "970D708243FD09A69613E25F3DB96159B7BF6385A72B49E703144329996B6063",
        "header": "777CD621466DF6359C649AF3336EB451",
    },
    {
        "name": "stamp_13_digits",
        "method": "GET",
        "path": "/camera/list",
        "body": "",
        "payload_is_body": False,
        "epoch_ms": 1699999999999,
        "stamp": "0001699999999999",
        "sha256": "0A62BED67D3CF98F0C36F708ABDD54DF84EED266B42AF34905428CD380A48141",
        "header": "8DBDFE6CA026C0568E80F9EF4427FAF2",
    },
    {
        "name": "stamp_zero",
        "method": "GET",
        "path": "/camera/list",
        "body": "",
        "payload_is_body": False,
        "epoch_ms": 0,
        "stamp": "00000000",
        "sha256": "0A62BED67D3CF98F0C36F708ABDD54DF84EED266B42AF34905428CD380A48141",
        "header": "1BCD3FB927F77116",
    },
    {
        "name": "stamp_8_digits",
        "method": "GET",
        "path": "/camera/list",
        "body": "",
        "payload_is_body": False,
        "epoch_ms": 12345678,
        "stamp": "12345678",
        "sha256": "0A62BED67D3CF98F0C36F708ABDD54DF84EED266B42AF34905428CD380A48141",
        "header": "917D480A05A4972D",
    },
]
SHARED = Path(__file__).resolve().parents[2] / "shared" / "spec" / "idempotency-vectors.json"
VECTORS = json.loads(SHARED.read_text()) if SHARED.exists() else EMBEDDED


def payload_of(vector: dict) -> bytes:
    return vector["body"].encode() if vector["payload_is_body"] else ("/api" + vector["path"]).encode()


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector_decodes_to_its_stamp(vector: dict) -> None:
    assert decode_key(vector["header"], payload_of(vector)) == vector["stamp"].encode()


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector_is_reproduced(vector: dict) -> None:
    assert hashlib.sha256(payload_of(vector)).hexdigest().upper() == vector["sha256"]
    assert key_for(payload_of(vector), vector["epoch_ms"]) == vector["header"]
