"""The transport under every operation: one httpx session, the login, the Idempotency-Key, retries,
typed errors and DEBUG logs. `SamClient` (core.client.api) adds one method per operation on top."""

from __future__ import annotations

import email.utils
import functools
import json
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, Self, TypedDict, cast

import httpx
from pydantic import ValidationError

from core.client.deadline import DeadlineTransport, deadline
from core.client.login_backoff import LoginBackoff, Refusal, refused
from core.client.operations import LOGIN, Operation, R
from core.client.rejections import Rejections
from core.errors import (
    APIError,
    AuthenticationError,
    OutcomeUnknownError,
    RateLimitError,
    ResponseFormatError,
    ResponseTooLargeError,
    SamError,
    TransportError,
    error_class_for,
)
from core.idempotency import idempotency_key, payload_for
from core.models import REJECTED, LoginResult, Rejection
from core.redact import secret_filter, without_addresses
from core.settings import Settings

log = logging.getLogger("samops.client")

RETRY_STATUSES = frozenset({429, 502, 503, 504})
BACKOFF_BASE_S = 0.5
BACKOFF_MAX_S = 8.0
RETRY_AFTER_CAP_S = 30.0
USER_AGENT = "samops/0.1"


def serialize(body: Any) -> bytes:
    """The body's one and only serialization: compact, UTF-8, like JSON.stringify. These bytes are both
    hashed for the Idempotency-Key and sent."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def backoff_delay(retry: int, retry_after: float | None = None, cap: float = RETRY_AFTER_CAP_S) -> float:
    """Seconds to wait before retry number `retry` (1-based): the server's Retry-After up to `cap`, else
    min(0.5 * 2^(retry-1), 8) with "equal jitter" so that clients that failed together spread out."""
    if retry_after is not None:
        return min(max(retry_after, 0.0), cap)
    ceiling = min(BACKOFF_BASE_S * 2 ** (retry - 1), BACKOFF_MAX_S)
    return random.uniform(ceiling / 2, ceiling)


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After as seconds: a number of seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


class Where(TypedDict):
    """The request an error is about: what every SamError raised here names (never a body)."""

    method: str
    path: str


class Limit(NamedTuple):
    """How large an answer may be, and the setting that says so (named when an answer is refused)."""

    bytes: int
    setting: str


class _Retryable(Exception):
    """An attempt failed in a way worth retrying; `error` is what to raise if no retry is left."""

    def __init__(self, error: SamError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


class BaseClient:
    """Thread-safe: one connection pool and one login shared by every thread using the instance."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        retry_after_cap: float = RETRY_AFTER_CAP_S,
        clock: Callable[[], float] = time.monotonic,
        on_login: Callable[[Refusal | None], None] | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.max_retries = self.settings.max_retries
        self._sleep = sleep
        self._retry_after_cap = retry_after_cap
        self._http = httpx.Client(
            base_url=self.settings.base_url,
            timeout=httpx.Timeout(self.settings.timeout, connect=self.settings.connect_timeout),
            headers={"Accept": "application/json", "User-Agent": USER_AGENT},
            transport=DeadlineTransport(),
        )
        self._base_path = self._http.base_url.raw_path.decode("ascii").rstrip("/")
        # Parsing and merging a URL is the largest cost httpx adds to a request, and samops asks the same
        # paths again and again (every poll), so each path's URL is made once.
        self._target = functools.lru_cache(maxsize=1024)(self._make_target)
        self._auth_lock = threading.Lock()
        self._token: str | None = None
        self._session: LoginResult | None = None
        self.rejections = Rejections()  # records dropped from answers as invalid, per operation
        # A refused login is not asked again at a steady rate; `on_login` hears of each change (for status).
        self.login_backoff = LoginBackoff(clock, on_login)
        secret_filter.add(self.settings.password.get_secret_value())

    # --- lifetime ---------------------------------------------------------------------------------------

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- session ----------------------------------------------------------------------------------------

    def login(self) -> LoginResult:
        """Log in afresh with the configured credentials; later calls use the new token."""
        with self._auth_lock:
            return self._login_locked()

    @property
    def session(self) -> LoginResult | None:
        """The last login result, if any (its secrets are SecretStr)."""
        return self._session

    def _login_locked(self) -> LoginResult:
        self.login_backoff.check()  # raises, without a request, while a refused login's wait runs
        body = {
            "screenName": self.settings.screen_name,
            "password": self.settings.password.get_secret_value(),
            "rememberMe": True,
        }
        try:
            result = self._call(LOGIN, body=body)
        except APIError as err:
            if refused(err):
                log.warning("%s", self.login_backoff.refused(err).line(self.settings.screen_name))
            raise
        if (ended := self.login_backoff.succeeded()) is not None:
            log.info("the service accepted the login again, after %d refused", ended.attempts)
        token = result.token.get_secret_value() if result.token else ""
        if not token:
            raise ResponseFormatError("the login result carries no token", method="POST", path="/auth/login")
        mq_password = result.mq_password.get_secret_value() if result.mq_password else None
        secret_filter.add(token, mq_password)
        self._token, self._session = token, result
        return result

    def _current_token(self) -> str:
        token = self._token
        if token is None:
            with self._auth_lock:  # one login for all the threads that arrive without a token
                if self._token is None:
                    self._login_locked()
                token = self._token
        assert token is not None
        return token

    def _renew_token(self, rejected: str) -> str:
        """A new token after `rejected` met a 401; only the first thread to notice logs in again."""
        with self._auth_lock:
            if self._token == rejected:
                self._login_locked()
            assert self._token is not None
            return self._token

    def resolve_org(self, org: int | None = None) -> int:
        """`org`, else SAM_ORGANIZATION_ID, else the first organization of the login result."""
        if org is not None:
            return org
        if self.settings.organization_id is not None:
            return self.settings.organization_id
        self._current_token()
        ids = self._session.organization_id_list() if self._session else []
        if not ids:
            raise SamError("the login result names no organization; set SAM_ORGANIZATION_ID")
        return ids[0]

    # --- one logical call -------------------------------------------------------------------------------

    def _call(
        self,
        op: Operation[R],
        *,
        body: Mapping[str, Any] | None = None,
        path_params: Mapping[str, Any] | None = None,
        query: Mapping[str, Any] | None = None,
        org: int | None = None,
    ) -> R:
        """Send `op` and parse its answer into the operation's result type."""
        content = serialize(body) if op.has_body else b""
        params = {k: v for k, v in (query or {}).items() if v is not None}
        headers = {"Content-Type": "application/json"} if content else {}
        if op.auth:
            headers["OrganizationId"] = str(self.resolve_org(org))
        url, raw_path = self._target(op.render_path(dict(path_params or {})))
        # One request for the logical call, sent as it is by every attempt: same bytes, same key.
        request = self._http.build_request(
            op.method, url, params=params or None, content=content or None, headers=headers
        )
        where: Where = {"method": op.method, "path": raw_path}
        # Computed once for the logical call, from the path exactly as httpx puts it on the request line.
        key = idempotency_key(payload_for(raw_path[len(self._base_path) :], content))
        request.headers["Idempotency-Key"] = key
        limit = self.response_limit(op)
        try:
            if op.auth:
                data = self._send_authorized(request, where, limit)
            else:
                data = self._send(request, where, limit)
            return self._parse(op, data, where)
        except ResponseFormatError as exc:
            if not op.write or isinstance(exc, OutcomeUnknownError):
                raise
            # The write reached the service, which answered something we cannot read as its result.
            raise OutcomeUnknownError(
                f"the answer is not {op.result_name} ({exc.args[0]}): the outcome is unknown,"
                " check in the service before retrying",
                status_code=exc.status_code,
                **where,
            ) from None

    def _make_target(self, path: str) -> tuple[httpx.URL, str]:
        """The URL of `path` under the base URL, and its path as httpx puts it on the request line."""
        url = self._http.build_request("GET", path).url
        return url, url.raw_path.decode("ascii").split("?", 1)[0]

    def response_limit(self, op: Operation[Any]) -> Limit:
        """The largest answer `op` may send: SAM_MAX_FLEET_RESPONSE_BYTES for an operation whose one
        answer grows with the fleet, SAM_MAX_RESPONSE_BYTES (the tight bound) for every other."""
        if op.fleet:
            return Limit(self.settings.max_fleet_response_bytes, "SAM_MAX_FLEET_RESPONSE_BYTES")
        return Limit(self.settings.max_response_bytes, "SAM_MAX_RESPONSE_BYTES")

    def _send_authorized(self, request: httpx.Request, where: Where, limit: Limit) -> Any:
        """`_send` with the bearer token; on a 401, log in again (once for all threads) and repeat once."""
        token = self._current_token()
        request.headers["Authorization"] = f"Bearer {token}"
        try:
            return self._send(request, where, limit)
        except AuthenticationError:
            request.headers["Authorization"] = f"Bearer {self._renew_token(token)}"
            return self._send(request, where, limit)

    def _parse(self, op: Operation[R], data: Any, where: Where) -> R:
        rejected: list[Rejection] = []
        try:
            result = op.adapter.validate_python(data, context={REJECTED: rejected})
        except ValidationError as exc:
            # Field locations and messages only: input values could be secrets.
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}"
                for e in exc.errors(include_url=False, include_input=False)[:5]
            )
            raise ResponseFormatError(f"response does not match the spec: {problems}", **where) from None
        for dropped in rejected:
            log.warning(
                "%s: skipped an invalid record, %s (%s %s)", op.name, dropped, where["method"], where["path"]
            )
            self.rejections.add(op.name, dropped)
        return result

    def _send(self, request: httpx.Request, where: Where, limit: Limit) -> Any:
        """Send with retries (same bytes, same Idempotency-Key every time) and return the decoded JSON."""
        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                return self._attempt(request, attempt, where, limit)
            except _Retryable as failure:
                if attempt == attempts:
                    raise failure.error from None
                delay = backoff_delay(attempt, failure.retry_after, self._retry_after_cap)
                path, why = without_addresses(where["path"]), type(failure.error).__name__
                log.debug("retrying %s %s in %.2f s: %s", request.method, path, delay, why)
                self._sleep(delay)
        raise AssertionError("unreachable")

    def _attempt(self, request: httpx.Request, attempt: int, where: Where, limit: Limit) -> Any:
        started = time.perf_counter()
        # SAM_TIMEOUT bounds the whole attempt (connect, headers and body), not each read.
        with deadline(self.settings.timeout):
            try:
                response = self._http.send(request, stream=True)
            except httpx.TimeoutException as exc:
                self._log(where, "timeout", started, attempt)
                raise _Retryable(TransportError(f"timed out ({type(exc).__name__})", **where)) from None
            except httpx.TransportError as exc:
                self._log(where, "network error", started, attempt)
                raise _Retryable(TransportError(f"network error: {type(exc).__name__}", **where)) from None
            try:
                content = self._read_bounded(response, where, limit)
            except httpx.TimeoutException as exc:
                self._log(where, "timeout", started, attempt)
                error = TransportError(f"timed out reading the answer ({type(exc).__name__})", **where)
                raise _Retryable(error) from None
            except httpx.TransportError as exc:
                # Headers came, the body did not: a truncated answer. Retrying is safe (same key).
                self._log(where, response.status_code, started, attempt)
                error = ResponseFormatError(
                    f"truncated response ({type(exc).__name__})", status_code=response.status_code, **where
                )
                raise _Retryable(error) from None
            finally:
                response.close()
        self._log(where, response.status_code, started, attempt)
        if response.status_code >= 400:
            error = self._api_error(response, content, where)
            if response.status_code in RETRY_STATUSES:
                raise _Retryable(error, parse_retry_after(response.headers.get("Retry-After")))
            raise error
        return self._decode(response, content, where)

    def _read_bounded(self, response: httpx.Response, where: Where, limit: Limit) -> bytes:
        """The body, read as it streams in, up to `limit` (decoded bytes: a compressed answer cannot
        inflate past it either); ResponseTooLargeError beyond, without reading the rest."""
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > limit.bytes:
            raise self._too_large(response, f"it announces {int(declared):,} bytes", where, limit)
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > limit.bytes:
                raise self._too_large(response, "it sent more", where, limit)
            chunks.append(chunk)
        return b"".join(chunks)

    @staticmethod
    def _too_large(response: httpx.Response, why: str, where: Where, limit: Limit) -> ResponseTooLargeError:
        message = f"response larger than {limit.setting} ({limit.bytes:,} bytes): {why}; not read"
        return ResponseTooLargeError(message, status_code=response.status_code, **where)

    def _log(self, where: Where, status: int | str, started: float, attempt: int) -> None:
        elapsed_ms = (time.perf_counter() - started) * 1000
        log.debug(
            "%s %s -> %s in %.1f ms (attempt %d/%d)",
            where["method"],
            without_addresses(where["path"]),
            status,
            elapsed_ms,
            attempt,
            self.max_retries + 1,
        )

    @staticmethod
    def _decode(response: httpx.Response, content: bytes, where: Where) -> Any:
        status = response.status_code
        if not content.strip():
            raise ResponseFormatError("empty response body", status_code=status, **where)
        try:
            return json.loads(content)
        except (UnicodeDecodeError, ValueError, RecursionError):  # RecursionError: absurdly deep nesting
            kind = response.headers.get("Content-Type", "no content type")
            raise ResponseFormatError(
                f"response is not valid JSON ({kind}, {len(content)} bytes; truncated?)",
                status_code=status,
                **where,
            ) from None

    @staticmethod
    def _api_error(response: httpx.Response, content: bytes, where: Where) -> APIError:
        status = response.status_code
        try:
            body = json.loads(content) if content.strip() else None
        except (UnicodeDecodeError, ValueError, RecursionError):
            body = None
        cls = error_class_for(status)
        extra: dict[str, Any] = {}
        if cls is RateLimitError:
            extra["retry_after"] = parse_retry_after(response.headers.get("Retry-After"))
        if isinstance(body, dict):
            fields = cast("dict[str, object]", body)  # JSON: its keys are strings
            text = {
                k: v if isinstance(v, str) else None
                for k in ("error", "message", "path")
                for v in [fields.get(k)]
            }
            return cls(
                status,
                error=text["error"],
                message=text["message"],
                path=text["path"] or where["path"],
                method=where["method"],
                body=body,
                **extra,
            )
        kind = response.headers.get("Content-Type", "no content type")
        message = f"error response without a JSON body ({kind}, {len(content)} bytes)"
        return cls(status, message=message, path=where["path"], method=where["method"], **extra)
