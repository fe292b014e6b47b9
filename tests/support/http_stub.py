"""The scaffolding of a small HTTP server a test runs in its own process: a quiet HTTP/1.1 handler that hands
every method's request body to `serve`, and a threading server on a free loopback port."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(BaseHTTPRequestHandler):
    """Subclass and define `serve(body)`; `self.command`, `self.path` and `self.headers` say the rest."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        pass

    def serve(self, body: bytes, /) -> None:
        raise NotImplementedError

    def _read_and_serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.serve(self.rfile.read(length) if length else b"")

    do_GET = do_POST = do_PUT = do_DELETE = _read_and_serve


class StubServer(ThreadingHTTPServer):
    """`handler` on 127.0.0.1 at a free port, served from a daemon thread between `start` and `stop`."""

    daemon_threads = True
    # samops syncs with 8 connections at once; the default backlog of 5 would drop SYNs on a busy machine.
    request_queue_size = 128

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}/api"
        self._thread = threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
