"""uvicorn's h11 protocol, answering an unreadable or oversized request with the service's error body.

h11 refuses some requests before the app sees them (a NUL or other forbidden byte in a header, a broken
request line, bad framing); uvicorn then answers a plain-text 400. The service always answers
`{statusCode, error, message, path}`, so this sends that instead. The path is unknown at that point.

A request whose declared `Content-Length` is above the body limit is answered 413 from its head alone:
waiting for a body that may never come would hold the connection open for as long as the client likes.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import h11
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
from uvicorn.protocols.http.h11_impl import H11Protocol

from simulator.app import MAX_BODY, MAX_DRAIN
from simulator.errors import error_bytes

# After a 413, how long the rest of a body that is being sent is read and dropped. Closing at once with
# unread bytes makes the kernel send a reset, and the client could lose the answer it has not read yet.
LINGER_SECONDS = 5.0


class _TooLarge(Exception):
    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


class _HeadCheckingConnection(h11.Connection):
    """Refuses a request head whose declared body is above the limit, before uvicorn starts the app."""

    def __init__(self, max_incomplete_event_size: int) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size)
        self._limit = max_incomplete_event_size
        self._head = b""  # the bytes since the last request head, which h11 does not keep after an error

    def receive_data(self, data: bytes) -> None:
        self._head = (self._head + data)[-self._limit :]
        super().receive_data(data)

    def next_event(self) -> Any:
        try:
            event = super().next_event()
        except h11.RemoteProtocolError:
            # h11 calls a length of more than 20 digits "bad", like a malformed one; it is a size.
            if _TOO_MANY_DIGITS.search(self._head):
                start = _REQUEST_LINE.search(self._head)
                raise _TooLarge(start.group(1).decode("ascii", "replace") if start else "") from None
            raise
        if isinstance(event, h11.Request):
            self._head = b""
            if _declared_length(event) > MAX_BODY:
                raise _TooLarge(event.target.split(b"?", 1)[0].decode("ascii", "replace"))
        return event


def _declared_length(request: h11.Request) -> int:
    # h11 has already refused a malformed or repeated Content-Length; chunked bodies are bounded by the app.
    for name, value in request.headers:
        if name == b"content-length":
            return int(value)
    return 0


_TOO_MANY_DIGITS = re.compile(rb"(?im)^content-length:[ \t]*[0-9]{21,}[ \t]*\r?$")
_REQUEST_LINE = re.compile(rb"(?m)^[A-Z]+ ([^ ?\r\n]+)[^ \r\n]* HTTP/1\.[01]\r?$")


class SpecH11Protocol(H11Protocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        limit = self.config.h11_max_incomplete_event_size
        self.conn = _HeadCheckingConnection(DEFAULT_MAX_INCOMPLETE_EVENT_SIZE if limit is None else limit)
        self._dropped: int | None = None  # bytes dropped after a 413; None while serving normally

    def handle_events(self) -> None:
        try:
            super().handle_events()
        except _TooLarge as refused:
            self._refuse_too_large(refused.path)

    def data_received(self, data: bytes) -> None:
        if self._dropped is None:
            super().data_received(data)
            return
        self._dropped += len(data)
        if self._dropped > MAX_DRAIN:
            self.transport.close()

    def send_400_response(self, msg: str) -> None:
        body = error_bytes(
            400, "VALIDATION_FAILED", "request: malformed HTTP (request line, a header or framing)", ""
        )
        self._send_answer(400, b"Bad Request", body)
        self.transport.close()

    def _refuse_too_large(self, path: str) -> None:
        body = error_bytes(413, "PAYLOAD_TOO_LARGE", f"body: larger than {MAX_BODY} bytes", path)
        self._send_answer(413, b"Payload Too Large", body)
        # Half-close: the client reads the answer and the end of it at once; what it still sends is
        # dropped until it closes, MAX_DRAIN is passed or LINGER_SECONDS are up.
        self._dropped = 0
        if self.transport.can_write_eof():
            self.transport.write_eof()
        asyncio.get_running_loop().call_later(LINGER_SECONDS, self.transport.close)

    def _send_answer(self, status: int, reason: bytes, body: bytes) -> None:
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        start = h11.Response(status_code=status, headers=headers, reason=reason)
        self.transport.write(self.conn.send(start))
        self.transport.write(self.conn.send(h11.Data(data=body)))
        self.transport.write(self.conn.send(h11.EndOfMessage()))
