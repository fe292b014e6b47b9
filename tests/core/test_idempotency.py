"""The Idempotency-Key procedure against the shared vectors, degenerate keys and the spec's own steps."""

from __future__ import annotations

import hashlib
import json
import time

import pytest
from Crypto.Cipher import DES, DES3
from hypothesis import given
from hypothesis import strategies as st

from core.idempotency import encrypt_stamp, idempotency_key, is_degenerate, payload_for, stamp_for
from tests.support.vectors import COPY, SHARED, VECTORS, load_vectors


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_shared_vectors(vector: dict) -> None:
    body = vector["body"].encode("utf-8")
    payload = payload_for(vector["path"], body)
    assert payload == (body if vector["payload_is_body"] else b"/api" + vector["path"].encode())
    assert hashlib.sha256(payload).hexdigest().upper() == vector["sha256"]
    assert stamp_for(vector["epoch_ms"]).decode() == vector["stamp"]
    assert idempotency_key(payload, vector["epoch_ms"]) == vector["header"]


def test_payload_keeps_percent_encoding_and_drops_the_query() -> None:
    assert payload_for("/user/email/a%40b.com", b"") == b"/api/user/email/a%40b.com"
    assert payload_for("/activities/controller/list?resourceId=3", b"") == b"/api/activities/controller/list"
    assert idempotency_key(payload_for("/user/email/a%40b.com", b""), 1) != idempotency_key(
        payload_for("/user/email/a@b.com", b""), 1
    )


@pytest.mark.parametrize(
    ("epoch_ms", "stamp"), [(0, "00000000"), (12345678, "12345678"), (123456789, "0000000123456789")]
)
def test_stamp_is_padded_to_a_multiple_of_eight(epoch_ms: int, stamp: str) -> None:
    assert stamp_for(epoch_ms).decode() == stamp
    assert len(stamp_for(epoch_ms)) % 8 == 0


def test_negative_stamp_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        stamp_for(-1)


def _degenerate_key(k1_equals_k2: bool) -> bytes:
    k1, k3 = bytes.fromhex("0123456789ABCDEF"), bytes.fromhex("FEDCBA9876543210")
    k2_parity_flipped = bytes(b ^ 0x01 for b in (k1 if k1_equals_k2 else k3))
    return k1 + k2_parity_flipped + k3


@pytest.mark.parametrize("k1_equals_k2", [True, False], ids=["K1==K2", "K2==K3"])
def test_degenerate_keys_use_three_single_des_steps(k1_equals_k2: bool) -> None:
    key = _degenerate_key(k1_equals_k2)
    assert is_degenerate(key)
    with pytest.raises(ValueError):
        DES3.new(key, DES3.MODE_ECB)  # the reason for the cascade
    stamp = stamp_for(1732233445566)
    # E_K3(D_K2(E_K1(x))) collapses to one DES step: under K3 when K1 == K2, under K1 when K2 == K3.
    survivor = key[16:] if k1_equals_k2 else key[:8]
    expected = DES.new(survivor, DES.MODE_ECB).encrypt(stamp).hex().upper()
    assert encrypt_stamp(key, 1732233445566) == expected


def test_ordinary_key_is_not_degenerate() -> None:
    assert not is_degenerate(hashlib.sha256(b"/api/camera/list").digest()[:24])


def test_key_length_is_checked() -> None:
    with pytest.raises(ValueError, match="24 bytes"):
        encrypt_stamp(b"short", 0)


@given(payload=st.binary(min_size=1, max_size=200), epoch_ms=st.integers(min_value=0, max_value=10**16))
def test_any_key_decrypts_back_to_its_stamp(payload: bytes, epoch_ms: int) -> None:
    key = hashlib.sha256(payload).digest()[:24]
    header = idempotency_key(payload, epoch_ms)
    assert len(header) % 16 == 0 and header == header.upper()
    plain = DES3.new(key, DES3.MODE_ECB).decrypt(bytes.fromhex(header))
    assert int(plain) == epoch_ms


def test_default_stamp_is_now() -> None:
    payload = b"/api/camera/list"
    before = time.time_ns() // 1_000_000
    header = idempotency_key(payload)
    after = time.time_ns() // 1_000_000
    key = hashlib.sha256(payload).digest()[:24]
    assert before <= int(DES3.new(key, DES3.MODE_ECB).decrypt(bytes.fromhex(header))) <= after


def test_committed_copy_of_the_vectors_matches_the_shared_file() -> None:
    if not SHARED.exists():  # a clone on its own: the copy is all there is to compare
        assert load_vectors() == json.loads(COPY.read_text(encoding="utf-8"))
        return
    assert json.loads(COPY.read_text(encoding="utf-8")) == json.loads(SHARED.read_text(encoding="utf-8"))
