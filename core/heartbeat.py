"""The heartbeat: a call to a dead-man's-switch URL (healthchecks.io, Uptime Kuma push, Better Stack,
Cronitor) that only a working samops makes. The notifier calls `Heartbeat.beat` after a cycle that polled the
service and delivered what was due (core/health.py decides); when the calls stop, that service pages people.

    [heartbeat]
    url = "https://hc-ping.com/<uuid>"   # or SAMOPS_HEARTBEAT_URL (it wins): a secret, never logged whole
    method = "GET"                       # GET (every such service takes it) or POST
    pace = 0                             # seconds: at most one call this often (0: one per cycle)
    timeout = 5                          # seconds a call may take

The call runs on its own thread, so a slow or unreachable target never holds up a card; one call is in
flight at a time. A failing target is one WARNING when it starts failing and one INFO when it answers again,
naming the URL by its host only (`core.redact.mask_url`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.clock import now_ms
from core.redact import mask_url, secret_filter

log = logging.getLogger(__name__)


class HeartbeatConfig(BaseModel):
    """`[heartbeat]` of the TOML config."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str | None = None
    method: Literal["GET", "POST"] = "GET"
    pace: float = Field(default=0.0, ge=0, le=3600)
    timeout: float = Field(default=5.0, gt=0, le=60)

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")  # the value itself is not repeated
        return value

    def with_url(self, env_url: str | None) -> HeartbeatConfig:
        """SAMOPS_HEARTBEAT_URL, when set, wins over `url`."""
        return self.model_copy(update={"url": env_url}) if env_url else self


class Heartbeat:
    def __init__(
        self,
        config: HeartbeatConfig,
        clock: Callable[[], int] = now_ms,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        assert config.url is not None
        self.url = config.url
        self.config = config
        self.clock = clock
        self.shown = mask_url(config.url)
        secret_filter.add(config.url)  # a second guard: a line that names the whole URL shows `***`
        self._client = httpx.Client(timeout=config.timeout, transport=transport, follow_redirects=True)
        self._last = -1  # ms of the last call started
        self._failing = False
        self._busy = threading.Lock()
        self._thread: threading.Thread | None = None

    def beat(self) -> bool:
        """Start a call unless the pace forbids it or one is still in flight; True when one started."""
        now = self.clock()
        if self._last >= 0 and now - self._last < self.config.pace * 1000:
            return False
        if not self._busy.acquire(blocking=False):
            return False
        self._last = now
        self._thread = threading.Thread(target=self._call, name="heartbeat", daemon=True)
        self._thread.start()
        return True

    def wait(self, timeout: float | None = None) -> None:
        """Until the call in flight ends (for a clean stop)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def close(self) -> None:
        self.wait(1.0)  # a stop is not held up by a slow target (samops up allows a part 3 s)
        if self._thread is None or not self._thread.is_alive():  # else the process's end closes it
            self._client.close()

    def _call(self) -> None:
        try:
            problem = self._send()
            if problem is not None and not self._failing:
                self._failing = True
                log.warning(
                    "heartbeat: the call to %s failed (%s); a line when it answers again",
                    self.shown,
                    problem,
                )
            elif problem is None and self._failing:
                self._failing = False
                log.info("heartbeat: %s answers again", self.shown)
        finally:
            self._busy.release()

    def _send(self) -> str | None:
        """None when the target took the call; else what went wrong, in words holding no part of the URL
        (httpx's own messages repeat it)."""
        try:
            response = self._client.request(self.config.method, self.url)
        except httpx.TimeoutException:
            return f"no answer within {self.config.timeout:g} s"
        except httpx.HTTPError as err:
            return f"{type(err).__name__}"
        if response.status_code >= 400:
            return f"HTTP {response.status_code}"
        return None
