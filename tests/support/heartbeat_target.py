"""A dead-man's-switch stand-in (healthchecks.io, Uptime Kuma push): a loopback HTTP listener that records
each call (when, method, path) and answers `status` (200 unless a test makes it fail)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from tests.support.http_stub import QuietHandler, StubServer


@dataclass(frozen=True)
class Ping:
    at: float  # time.monotonic() when it arrived
    method: str
    path: str


class HeartbeatTarget:
    def __init__(self) -> None:
        self.pings: list[Ping] = []
        self.status = 200
        self._lock = threading.Lock()
        target = self

        class Handler(QuietHandler):
            def serve(self, body: bytes, /) -> None:
                with target._lock:
                    target.pings.append(Ping(time.monotonic(), self.command, self.path))
                self.send_response(target.status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"OK")

        self._server = StubServer(Handler)
        self.root_url = self._server.base_url.removesuffix("/api")

    def url(self, path: str) -> str:
        return f"{self.root_url}{path}"

    def count(self) -> int:
        with self._lock:
            return len(self.pings)

    def last(self) -> Ping | None:
        with self._lock:
            return self.pings[-1] if self.pings else None

    def __enter__(self) -> HeartbeatTarget:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.stop()
