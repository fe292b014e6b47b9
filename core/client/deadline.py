"""A total deadline per request attempt: connect, headers and body together.

httpx's timeouts bound each network operation, not the request: a service that sends one byte every
2 s never trips a 5 s read timeout and can hold a call for minutes. Here every socket operation of the
attempt gets at most the time left until the attempt's deadline, and none once it has passed.

The deadline lives in a context variable set around the attempt (`deadline(seconds)`), so threads sharing
one client and one connection pool each carry their own. The network backend is httpcore's documented
extension point (`ConnectionPool(network_backend=...)`); httpx's `HTTPTransport` does not take one, so
`DeadlineTransport` gives its pool one.
"""

from __future__ import annotations

import contextlib
import ssl
import time
import typing
from collections.abc import Generator
from contextvars import ContextVar

import httpcore
import httpx

_deadline: ContextVar[float | None] = ContextVar("samops_request_deadline", default=None)


@contextlib.contextmanager
def deadline(seconds: float) -> Generator[None, None, None]:
    """Every socket operation inside the block ends at the latest `seconds` from now."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def _budget(timeout: float | None, expired: type[Exception]) -> float | None:
    """`timeout` cut to the time left before the deadline; `expired` once none is left."""
    until = _deadline.get()
    if until is None:
        return timeout
    left = until - time.monotonic()
    if left <= 0:
        raise expired("the request's total time (SAM_TIMEOUT) ran out")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _budget(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _budget(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        tls = self._stream.start_tls(ssl_context, server_hostname, _budget(timeout, httpcore.ConnectTimeout))
        return _DeadlineStream(tls)

    def get_extra_info(self, info: str) -> typing.Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._backend = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.NetworkStream:
        budget = _budget(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._backend.connect_tcp(host, port, budget, local_address, socket_options))

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.NetworkStream:
        budget = _budget(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._backend.connect_unix_socket(path, budget, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's own transport (exception mapping, streaming), over a pool whose sockets obey `deadline`."""

    def __init__(self, limits: httpx.Limits | None = None) -> None:
        limits = limits or httpx.Limits(
            max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0
        )
        context = httpx.create_ssl_context()
        super().__init__(verify=context, limits=limits)
        self._pool = httpcore.ConnectionPool(
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_DeadlineBackend(),
        )
