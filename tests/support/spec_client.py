"""A tiny request builder written from the spec alone, for checking the simulator against the spec.

It shares no code with `simulator/` or `core/`: compact JSON bytes, its own Idempotency-Key (three
single-DES steps E-D-E, so degenerate keys work), login and the two auth headers.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import httpx
from Crypto.Cipher import DES

DEMO = {"screenName": "demo", "password": "demo", "rememberMe": False}


def compact(obj: Any) -> bytes:
    """JSON the way JSON.stringify writes it: no spaces, UTF-8."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def stamp(epoch_ms: int) -> bytes:
    digits = str(epoch_ms)
    return digits.rjust(-(-len(digits) // 8) * 8, "0").encode()


def key_for(payload: bytes, epoch_ms: int | None = None) -> str:
    """Idempotency-Key: E_K3(D_K2(E_K1(stamp))) with K1..K3 = SHA-256(payload)[0:24], uppercase hex."""
    epoch_ms = int(time.time() * 1000) if epoch_ms is None else epoch_ms
    key = hashlib.sha256(payload).digest()
    data = DES.new(key[:8], DES.MODE_ECB).encrypt(stamp(epoch_ms))
    data = DES.new(key[8:16], DES.MODE_ECB).decrypt(data)
    data = DES.new(key[16:24], DES.MODE_ECB).encrypt(data)
    return data.hex().upper()


def decode_key(header: str, payload: bytes) -> bytes:
    """The stamp inside a header (inverse of key_for), for checking the published vectors."""
    key = hashlib.sha256(payload).digest()
    data = DES.new(key[16:24], DES.MODE_ECB).decrypt(bytes.fromhex(header))
    data = DES.new(key[8:16], DES.MODE_ECB).encrypt(data)
    return DES.new(key[:8], DES.MODE_ECB).decrypt(data)


class SpecClient:
    """Requests to `{base_url}{path}` with the spec's headers; every call answers the raw httpx.Response."""

    def __init__(self, base_url: str, org: int | None = 1001, token: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = httpx.Client(timeout=10.0)
        self.org = org
        self.token = token

    def __enter__(self) -> SpecClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()

    def login(self, screen_name: str = "demo", password: str = "demo") -> dict[str, Any]:
        body = {"screenName": screen_name, "password": password, "rememberMe": True}
        response = self.call("POST", "/auth/login", body, auth=False)
        assert response.status_code == 200, response.text
        result = response.json()
        self.token = result["token"]
        return result

    def headers(self, payload: bytes, auth: bool = True, key: bool = True) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if auth and self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        if auth and self.org is not None:
            headers["OrganizationId"] = str(self.org)
        if key:
            headers["Idempotency-Key"] = key_for(payload)
        return headers

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        auth: bool = True,
        key: bool = True,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None,
    ) -> httpx.Response:
        """One request; `raw` sends exact bytes instead of `body`; `headers` override the built ones."""
        content = raw if raw is not None else (b"" if body is None else compact(body))
        payload = content if content else ("/api" + path).encode()
        built = self.headers(payload, auth=auth, key=key)
        built.update(headers or {})
        return self.http.request(method, self.base_url + path, content=content, headers=built, params=params)

    def ok(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        response = self.call(method, path, body, **kw)
        assert response.status_code == 200, f"{method} {path}: {response.status_code} {response.text}"
        return response.json()
