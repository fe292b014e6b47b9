"""The service's Idempotency-Key header (spec "Idempotency-Key header", decisions.md 1-5).

key = Triple DES (ECB, no padding) of the zero-padded epoch-ms stamp, under the first 24 bytes of the
SHA-256 of the payload; the payload is the raw body, or `/api` + the raw request path when there is none.
"""

from __future__ import annotations

import hashlib
import time
from functools import lru_cache
from typing import Protocol

from Crypto.Cipher import DES, DES3


class _Encryptor(Protocol):
    def encrypt(self, plaintext: bytes) -> bytes: ...


class _SingleDesCascade:
    """E_K3(D_K2(E_K1(x))) from three single-DES ciphers, for keys pycryptodome's DES3 refuses."""

    def __init__(self, key: bytes) -> None:
        self._k1, self._k2, self._k3 = (DES.new(key[i : i + 8], DES.MODE_ECB) for i in (0, 8, 16))

    def encrypt(self, plaintext: bytes) -> bytes:
        return self._k3.encrypt(self._k2.decrypt(self._k1.encrypt(plaintext)))


_PARITY_MASK = 0xFEFEFEFEFEFEFEFE  # DES ignores the low bit of every key byte


def is_degenerate(key: bytes) -> bool:
    """True when K1 == K2 or K2 == K3 once the parity bits are ignored: the keys DES3 refuses."""
    k1, k2, k3 = (int.from_bytes(key[i : i + 8], "big") & _PARITY_MASK for i in (0, 8, 16))
    return k1 == k2 or k2 == k3


@lru_cache(maxsize=1024)
def _cipher(key: bytes) -> _Encryptor:
    # Building a DES3 key schedule costs several times the encryption itself, and the same GET path
    # comes back again and again, so ciphers are kept per key. ECB objects hold no per-call state.
    try:
        return DES3.new(key, DES3.MODE_ECB)
    except ValueError:
        if not is_degenerate(key):
            raise
        return _SingleDesCascade(key)


def payload_for(raw_path: str, body: bytes) -> bytes:
    """What is hashed: the body bytes, or `/api` + the path as sent (percent-encoding kept, no query)."""
    if body:
        return body
    return b"/api" + raw_path.split("?", 1)[0].encode("ascii")


def stamp_for(epoch_ms: int) -> bytes:
    """Epoch-ms in decimal, left-padded with zeros to a multiple of 8 digits."""
    if epoch_ms < 0:
        raise ValueError("epoch_ms must not be negative")
    digits = str(epoch_ms)
    return digits.zfill(-(-len(digits) // 8) * 8).encode("ascii")


def idempotency_key(payload: bytes, epoch_ms: int | None = None) -> str:
    """The header value for `payload` at `epoch_ms` (default: now), as uppercase hex."""
    if epoch_ms is None:
        epoch_ms = time.time_ns() // 1_000_000
    return encrypt_stamp(hashlib.sha256(payload).digest()[:24], epoch_ms)


def encrypt_stamp(key: bytes, epoch_ms: int) -> str:
    """Triple DES of the stamp under a 24-byte `key`, degenerate keys included, as uppercase hex."""
    if len(key) != 24:
        raise ValueError("the Triple DES key must be 24 bytes")
    return _cipher(key).encrypt(stamp_for(epoch_ms)).hex().upper()
