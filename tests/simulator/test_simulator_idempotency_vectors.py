"""The test-side Idempotency-Key code reproduces every published vector (so the live tests can trust it)."""

from __future__ import annotations

import hashlib

import pytest

from tests.support.spec_client import decode_key, key_for
from tests.support.vectors import VECTORS


def payload_of(vector: dict) -> bytes:
    return vector["body"].encode() if vector["payload_is_body"] else ("/api" + vector["path"]).encode()


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector_decodes_to_its_stamp(vector: dict) -> None:
    assert decode_key(vector["header"], payload_of(vector)) == vector["stamp"].encode()


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector_is_reproduced(vector: dict) -> None:
    assert hashlib.sha256(payload_of(vector)).hexdigest().upper() == vector["sha256"]
    assert key_for(payload_of(vector), vector["epoch_ms"]) == vector["header"]
