"""uvicorn's h11 protocol, answering an unreadable request with the service's error body.

h11 refuses some requests before the app sees them (a NUL or other forbidden byte in a header, a broken
request line, bad framing); uvicorn then answers a plain-text 400. The service always answers
`{statusCode, error, message, path}`, so this sends that instead. The path is unknown at that point.
"""

from __future__ import annotations

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from simulator.errors import error_bytes


class SpecH11Protocol(H11Protocol):
    def send_400_response(self, msg: str) -> None:
        body = error_bytes(
            400, "VALIDATION_FAILED", "request: malformed HTTP (request line, a header or framing)", ""
        )
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        start = h11.Response(status_code=400, headers=headers, reason=b"Bad Request")
        self.transport.write(self.conn.send(start))
        self.transport.write(self.conn.send(h11.Data(data=body)))
        self.transport.write(self.conn.send(h11.EndOfMessage()))
        self.transport.close()
