"""Server side of the Idempotency-Key, exactly as decisions.md says.

The key is the first 24 bytes of SHA-256(payload); the stamp is decrypted with three single-DES steps
(D_K1(E_K2(D_K3(c))), the inverse of E_K3(D_K2(E_K1(x)))) so that degenerate keys, which pycryptodome's
Triple DES refuses, still work.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from dataclasses import dataclass

from Crypto.Cipher import DES

from simulator.errors import ApiError

MAX_SKEW_MS = 5 * 60 * 1000
KEEP_MS = 24 * 60 * 60 * 1000
_HEX = re.compile(r"[0-9A-Fa-f]+")


def payload_for(raw_path: bytes, body: bytes) -> bytes:
    """The raw body, or for an empty body `/api` + the raw path (the service is mounted at /api)."""
    return body if body else raw_path


def decrypt_stamp(header: str, payload: bytes) -> int:
    """The epoch-ms stamp inside `header`, or ApiError 400 IDEMPOTENCY_KEY_INVALID."""
    if not _HEX.fullmatch(header) or len(header) % 16:
        raise ApiError(
            400, "Idempotency-Key: not a hexadecimal multiple of 8 bytes", "IDEMPOTENCY_KEY_INVALID"
        )
    key = hashlib.sha256(payload).digest()[:24]
    k1, k2, k3 = key[:8], key[8:16], key[16:]
    data = bytes.fromhex(header)
    data = DES.new(k3, DES.MODE_ECB).decrypt(data)
    data = DES.new(k2, DES.MODE_ECB).encrypt(data)
    data = DES.new(k1, DES.MODE_ECB).decrypt(data)
    if not data.isdigit():
        raise ApiError(400, "Idempotency-Key: does not match the request payload", "IDEMPOTENCY_KEY_INVALID")
    return int(data)


def check_fresh(stamp_ms: int, now_ms: int | None = None) -> None:
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    if abs(now_ms - stamp_ms) > MAX_SKEW_MS:
        raise ApiError(
            400, "Idempotency-Key: stamp is more than 5 minutes from server time", "IDEMPOTENCY_KEY_EXPIRED"
        )


@dataclass(frozen=True)
class ReplayKey:
    """What a stored answer is replayed for (decisions.md 8): the key, the caller (userId, organization),
    the method, the raw path and the body. The same key from anyone else is a new request."""

    key: str
    caller: tuple[int, int]
    method: str
    raw_path: bytes
    body: bytes


@dataclass(frozen=True)
class StoredResponse:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
    at_ms: int


class ReplayStore:
    """First successful response per ReplayKey, kept 24 hours."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done: dict[ReplayKey, StoredResponse] = {}
        self._inflight: dict[ReplayKey, threading.Event] = {}

    def claim(self, key: ReplayKey) -> StoredResponse | threading.Event | None:
        """None: the caller owns the key and must `finish` it; a StoredResponse: replay it;
        an Event: another request holds the key, wait for it and claim again."""
        with self._lock:
            if key in self._done:
                return self._done[key]
            if key in self._inflight:
                return self._inflight[key]
            self._inflight[key] = threading.Event()
            return None

    def finish(self, key: ReplayKey, response: StoredResponse | None) -> None:
        """Store `response` (None: forget the key, the request may be retried and executed)."""
        with self._lock:
            event = self._inflight.pop(key, None)
            if response is not None:
                self._done[key] = response
                self._prune(response.at_ms)
        if event:
            event.set()

    def _prune(self, now_ms: int) -> None:
        if len(self._done) % 1000:
            return
        for key in [k for k, v in self._done.items() if now_ms - v.at_ms > KEEP_MS]:
            del self._done[key]
