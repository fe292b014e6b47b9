"""Requests served under /api, per operation and per status, for `GET /_sim/stats`: what a benchmark
reports as the load samops puts on the service."""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

# The spec's 21 operations: (number, method, path under /api with {} for a path parameter).
OPERATIONS: tuple[tuple[int, str, str], ...] = (
    (1, "POST", "/auth/login"),
    (2, "GET", "/enterprise/bulk/get-organization-users"),
    (3, "POST", "/activities"),
    (4, "POST", "/user/privilege-groups-and-resources/add-or-update"),
    (5, "POST", "/enterprise/schedule/tasks/update"),
    (6, "POST", "/camera/add"),
    (7, "POST", "/subscription/bill"),
    (8, "POST", "/customer/phone"),
    (9, "PUT", "/panel/sensor/{}/update-description"),
    (10, "DELETE", "/resource/user/delete"),
    (11, "DELETE", "/user/delete"),
    (12, "GET", "/user/{}/organization-users"),
    (13, "GET", "/user/email/{}"),
    (14, "GET", "/panel/{}/controller/list"),
    (15, "GET", "/role/user/{}/privilege-groups"),
    (16, "GET", "/role/{}/privilege-groups"),
    (17, "GET", "/camera/list"),
    (18, "GET", "/panel/{}/sensor/list"),
    (19, "GET", "/activities/controller/list"),
    (20, "POST", "/resource/pushnotification/history"),
    (21, "POST", "/devicetoken/addorupdate"),
)
OTHER = "other"  # an unknown path or a method the path does not take
_MATCHERS = [
    (f"{n} {method} {path}", method, re.compile("/api" + re.escape(path).replace(r"\{\}", "[^/]+")))
    for n, method, path in OPERATIONS
]


def operation_of(method: str, path: str) -> str:
    """`"3 POST /activities"` for a request of operation 3, or `"other"`."""
    for name, verb, pattern in _MATCHERS:
        if verb == method and pattern.fullmatch(path):
            return name
    return OTHER


class Stats:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> dict[str, Any]:
        with self._lock:
            self.since = int(time.time() * 1000)
            self.operations: Counter[str] = Counter()
            self.statuses: Counter[str] = Counter()
        return self.as_dict()

    def count(self, operation: str, status: int) -> None:
        with self._lock:
            self.operations[operation] += 1
            self.statuses[str(status)] += 1

    def as_dict(self) -> dict[str, Any]:
        with self._lock:
            return {
                "since": self.since,
                "total": sum(self.operations.values()),
                "operations": dict(sorted(self.operations.items(), key=lambda kv: _order(kv[0]))),
                "statuses": dict(sorted(self.statuses.items())),
            }


def _order(name: str) -> int:
    head = name.split(" ", 1)[0]
    return int(head) if head.isdigit() else 99


class StatsMiddleware:
    """Outermost on /api: counts every answered request, faults and replays included."""

    def __init__(self, app: Any, stats: Stats) -> None:
        self.app = app
        self.stats = stats

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path == "/api" or path.startswith("/api/")):
            await self.app(scope, receive, send)
            return
        operation = operation_of(scope["method"], path)

        async def counting_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.stats.count(operation, message["status"])
            await send(message)

        await self.app(scope, receive, counting_send)
