"""One exception hierarchy for everything the client can meet (docs/architecture.md, "core").

    SamError
    ├── APIError (status_code, error, message, path, method)
    │   ├── BadRequestError (400)   ├── AuthenticationError (401)   ├── NotFoundError (404)
    │   │                           └── LoginRefusedError (a refused login, not asked again yet)
    │   ├── RateLimitError (429)    └── ServerError (5xx)
    ├── TransportError (network, timeout)
    └── ResponseFormatError (non-JSON, empty or truncated response)
        ├── ResponseTooLargeError (more than SAM_MAX_RESPONSE_BYTES)
        └── OutcomeUnknownError (a write answered, but not with an Operation result)

Messages never carry request bodies, tokens or passwords: only the method, the path and what the
service said in its error body.
"""

from __future__ import annotations

from typing import Any


class SamError(Exception):
    """Base of every error raised by samops' client."""

    def __init__(self, message: str, *, method: str | None = None, path: str | None = None) -> None:
        super().__init__(message)
        self.method = method
        self.path = path

    def _where(self) -> str:
        return f" ({self.method} {self.path})" if self.method and self.path else ""

    def __str__(self) -> str:
        return f"{self.args[0]}{self._where()}"


class APIError(SamError):
    """The service answered with an error status; fields come from its error body when it had one."""

    def __init__(
        self,
        status_code: int,
        error: str | None = None,
        message: str | None = None,
        path: str | None = None,
        method: str | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message or error or f"HTTP {status_code}", method=method, path=path)
        self.status_code = status_code
        self.error = error
        self.message = message
        self.body = body  # the parsed error body, as the service sent it (for `samops call`'s stderr)

    def __str__(self) -> str:
        name = f" {self.error}" if self.error else ""
        text = f": {self.message}" if self.message else ""
        return f"{self.status_code}{name}{text}{self._where()}"


class BadRequestError(APIError):
    """400: the request was malformed or failed validation."""


class AuthenticationError(APIError):
    """401: missing, invalid or expired token, or wrong credentials at login."""


class LoginRefusedError(AuthenticationError):
    """The service refused this account's login (401 or 403) recently, and samops does not ask again before
    `retry_at_ms` (core/client/login_backoff.py): a stream of wrong passwords locks accounts. No request was
    sent; `status_code` is the refusal's."""

    def __init__(self, status_code: int, message: str, retry_at_ms: int) -> None:
        super().__init__(status_code, message=message, path="/auth/login", method="POST")
        self.retry_at_ms = retry_at_ms

    def __str__(self) -> str:
        return str(self.args[0])


class NotFoundError(APIError):
    """404: absent, or outside the organizations the caller may see."""


class RateLimitError(APIError):
    """429: too many requests; `retry_after` is the server's hint in seconds, if it gave one."""

    def __init__(self, *args: Any, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.retry_after = retry_after


class ServerError(APIError):
    """5xx: the service failed."""


class TransportError(SamError):
    """The request did not complete: connection refused or dropped, or a timeout."""


class ResponseFormatError(SamError):
    """The service answered, but not with the JSON the spec promises (non-JSON, empty, truncated)."""

    def __init__(
        self,
        message: str,
        *,
        method: str | None = None,
        path: str | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message, method=method, path=path)
        self.status_code = status_code


class ResponseTooLargeError(ResponseFormatError):
    """The answer is larger than `settings.max_response_bytes`; it was cut off, not read whole."""


class OutcomeUnknownError(ResponseFormatError):
    """A write was sent and answered, but the answer is not an Operation result (nor the record the spec
    promises): the service may or may not have applied it. Never report such a write as done; check in the
    service before retrying."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    404: NotFoundError,
    429: RateLimitError,
}


def error_class_for(status_code: int) -> type[APIError]:
    """The most specific APIError subclass for an HTTP status."""
    if status_code >= 500:
        return ServerError
    return _BY_STATUS.get(status_code, APIError)
