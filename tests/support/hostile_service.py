"""A hostile fake of the service: a real HTTP server on a free loopback port that answers like the service,
except on the routes it is told to be hostile on.

It knows one organization (1001) with two panels, and answers every read the sync and the bot make, and
the writes `/sam sensor rename` makes. A `Hostility` set on a route replaces that route's answer by one of:

    huge_int    a record's int field set to a value beyond int64 (the other records stay valid)
    huge_time   a record's epoch-ms time set far outside any sane range
    wrong_type  a record's field set to a value of the wrong JSON type
    html        200 with an HTML page
    empty       200 with no body
    truncated   200 with the JSON cut in half
    huge        200 with a body larger than the client's limit (value True: chunked, no length given)
    slow        the right answer, its body one byte every `drip_s` seconds
    slow_head   the right answer, status line and headers too one byte every `drip_s` seconds
    not_result  (writes) 200 with valid JSON that is not an Operation result

    with HostileService() as service:
        service.hostile["camera/list"] = Hostility("huge_int", value=2**64)
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Self

from tests.support.http_stub import QuietHandler, StubServer

TOKEN = "hostile-token-never-shown"
MQ_PASSWORD = "hostile-mq-password-never-shown"
PIN_CODE = "hostile-pin-4321"
ORG = 1001
USER_ID = 7
PANELS = (100101, 100102)
SENSOR_ID = 1001011  # the second sensor of the first panel

KINDS = ("huge_int", "huge_time", "wrong_type", "html", "empty", "truncated", "huge", "slow", "slow_head")
WRITE_KINDS = (*KINDS[3:], "not_result")
# Values beyond int64, and times beyond 2100 or before 2000 (but still ints that fit, or not).
HUGE_INTS = (2**64, 2**63, -(2**63) - 1, 99999999999999999999, 10**30)
HUGE_TIMES = (99999999999999999999, 2**63 - 1, -1, 10**15, 4_102_444_800_001)
WRONG_VALUES: tuple[Any, ...] = ("not a number", {"nested": True}, [1, 2], 1.5e300, "12abc")
NOT_RESULTS: tuple[Any, ...] = (
    {"unexpected": True},
    [],
    {},
    {"success": "yes"},
    {"message": "done"},
    "ok",
    None,
)


@dataclass(frozen=True)
class Hostility:
    kind: str
    value: Any = None  # the bad value (huge_int, huge_time, wrong_type) or body (not_result)
    field: str | None = None  # which field to spoil; default: the first int field of the first record


def _now_ms() -> int:
    return int(time.time() * 1000)


def _activities(rid: int) -> list[dict[str, Any]]:
    now = _now_ms()
    return [
        {
            "eventId": f"ev-{rid}-{n}",
            "activityTime": now - n * 60_000,
            "description": f"Door {n} opened",
            "eventType": "violation" if n == 1 else "event",
            "violationType": "alarm" if n == 1 else None,
            "msgType": 1,
            "vioType": 2,
            "group": 3,
        }
        for n in (1, 2, 3)
    ]


def _panel_asked(body: Any) -> int:
    """The panel a body of operation 3 (resourceIds) or 20 (resourceId) asks about."""
    if isinstance(body, dict):
        ids = body.get("resourceIds") or [body.get("resourceId")]
        first = ids[0] if ids else None
        if isinstance(first, int):
            return first
    return PANELS[0]


# route name -> (method, path pattern under /api, answer builder given the path's match and the JSON body)
ROUTES: dict[str, tuple[str, str, Callable[[re.Match[str], Any], Any]]] = {
    "organization-users": (
        "GET",
        r"/user/(\d+)/organization-users",
        lambda m, b: [
            {"userId": USER_ID, "screenName": "demo", "firstName": "Demo", "lastName": "User", "status": 0},
            {"userId": 8, "screenName": "tech", "firstName": "Tech", "lastName": "Nician", "status": 0},
        ],
    ),
    "camera/list": (
        "GET",
        r"/camera/list",
        lambda m, b: [
            {"resourceId": 200101, "resourceName": "Gate camera", "orgId": ORG},
            {"resourceId": 200102, "resourceName": "Yard camera", "orgId": ORG},
        ],
    ),
    "controller-log": (
        "GET",
        r"/activities/controller/list",
        lambda m, b: [
            {
                "resourceControllerId": 1,
                "resourceId": PANELS[0],
                "orderNo": 1,
                "value": "on",
                "lastUpdate": _now_ms(),
            },
            {
                "resourceControllerId": 2,
                "resourceId": PANELS[1],
                "orderNo": 1,
                "value": "off",
                "lastUpdate": _now_ms(),
            },
        ],
    ),
    "sensors": (
        "GET",
        r"/panel/(\d+)/sensor/list",
        lambda m, b: {
            "type": "zone",
            "sensors": [
                {"id": int(m[1]) * 10 + n, "resourceId": int(m[1]), "sensorName": f"Door {n}", "orderNo": n}
                for n in (0, 1)
            ],
        },
    ),
    "controllers": (
        "GET",
        r"/panel/(\d+)/controller/list",
        lambda m, b: [
            {"id": int(m[1]) * 10 + n, "resourceId": int(m[1]), "controllerName": name, "orderNo": n}
            for n, name in ((1, "Siren"), (2, "Gate relay"))
        ],
    ),
    "activities": (
        "POST",
        r"/activities",
        lambda m, b: {
            "totalRecords": 3,
            "page": 1,
            "pageSize": 100,
            "activities": _activities(_panel_asked(b)),
        },
    ),
    "push-history": (
        "POST",
        r"/resource/pushnotification/history",
        lambda m, b: [
            {
                "totalRecords": 3,
                "page": 1,
                "pageSize": 100,
                "activities": _activities(_panel_asked(b) + 10**6),
            }
        ],
    ),
    "panel-users": (
        "GET",
        r"/enterprise/bulk/get-organization-users",
        lambda m, b: [
            {
                "resourceId": PANELS[0],
                "resourceUserResponseList": [{"id": 1, "userId": USER_ID, "pinCode": PIN_CODE}],
            }
        ],
    ),
    "sensor-rename": (
        "PUT",
        r"/panel/sensor/(\d+)/update-description",
        lambda m, b: {"message": f"description of sensor {m[1]} updated", "success": True},
    ),
    "delete-user": ("DELETE", r"/user/delete", lambda m, b: {"message": "user deleted", "success": True}),
}


def login_result() -> dict[str, Any]:
    return {
        "token": TOKEN,
        "mqUser": "mq",
        "mqPassword": MQ_PASSWORD,
        "userId": USER_ID,
        "screenName": "demo",
        "organizations": [{"name": "Hostile Org", "id": str(ORG)}],
        "organizationIds": [ORG],
        "resources": [
            {"resourceId": rid, "resourceName": f"Panel {rid}", "orgId": ORG, "enabled": True}
            for rid in PANELS
        ],
    }


def spoil(data: Any, hostility: Hostility) -> Any:
    """`data` with one field of its first record replaced by the hostility's value."""
    record = _first_record(data)
    if record is None:
        return data
    field = hostility.field or next(
        (k for k, v in record.items() if isinstance(v, int) and not isinstance(v, bool)), None
    )
    if hostility.kind == "huge_time":
        field = hostility.field or next((k for k in ("activityTime", "lastUpdate") if k in record), field)
    if field is not None:
        record[field] = hostility.value
    return data


def _first_record(data: Any) -> dict[str, Any] | None:
    """The first object that holds scalar fields: the first activity of a page, the first sensor..."""
    if isinstance(data, list):
        return next((r for r in map(_first_record, data) if r is not None), None)
    if isinstance(data, dict):
        for key in ("activities", "sensors"):
            if isinstance(data.get(key), list) and data[key]:
                return _first_record(data[key])
        return data
    return None


class HostileService:
    def __init__(self, *, limit_bytes: int = 4096, drip_s: float = 0.5) -> None:
        self.hostile: dict[str, Hostility] = {}
        self.limit_bytes = limit_bytes  # what the client is told (SAM_MAX_RESPONSE_BYTES); "huge" exceeds it
        self.drip_s = drip_s
        self.requests: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self.server = StubServer(self._handler())
        self.base_url = self.server.base_url

    def __enter__(self) -> Self:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    def set(self, hostile: dict[str, Hostility]) -> None:
        with self.lock:
            self.hostile = dict(hostile)

    def answer(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes, str, Hostility | None]:
        """(status, body, content type, hostility applied) for a request."""
        route = path.split("?", 1)[0].removeprefix("/api")
        with self.lock:
            self.requests.append((method, route))
            hostile = dict(self.hostile)
        if route == "/auth/login":
            return 200, json.dumps(login_result()).encode(), "application/json", None
        for name, (verb, pattern, build) in ROUTES.items():
            match = re.fullmatch(pattern, route)
            if match and verb == method:
                try:
                    asked = json.loads(body) if body else None
                except ValueError:
                    asked = None
                return self._render(build(match, asked), hostile.get(name))
        missing = {"statusCode": 404, "error": "NOT_FOUND", "message": "no such thing here", "path": path}
        return 404, json.dumps(missing).encode(), "application/json", None

    def _render(self, data: Any, hostility: Hostility | None) -> tuple[int, bytes, str, Hostility | None]:
        kind = hostility.kind if hostility else None
        if kind in ("huge_int", "huge_time", "wrong_type"):
            data = spoil(data, hostility)  # type: ignore[arg-type]
        elif kind == "not_result":
            data = hostility.value  # type: ignore[union-attr]
        elif kind == "html":
            return (
                200,
                b"<!doctype html><html><body><h1>Maintenance</h1></body></html>",
                "text/html",
                hostility,
            )
        elif kind == "empty":
            return 200, b"", "application/json", hostility
        elif kind == "huge":
            padding = "x" * (self.limit_bytes * 4)
            return 200, json.dumps({"padding": padding, "data": data}).encode(), "application/json", hostility
        body = json.dumps(data).encode()
        if kind == "truncated":
            body = body[: len(body) // 2]
        return 200, body, "application/json", hostility

    def _handler(self) -> type[QuietHandler]:
        service = self

        class Handler(QuietHandler):
            def serve(self, asked: bytes) -> None:
                status, body, content_type, hostility = service.answer(self.command, self.path, asked)
                kind = hostility.kind if hostility else None
                if kind == "slow_head":
                    head = f"HTTP/1.1 {status} OK\r\nContent-Type: {content_type}\r\n"
                    self._drip(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
                    return
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                if kind == "huge" and hostility.value:  # type: ignore[union-attr]
                    self._send_chunked(body)
                    return
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if kind == "slow":
                    self._drip(body)
                else:
                    self.wfile.write(body)

            def _drip(self, body: bytes) -> None:
                self.close_connection = True
                try:
                    for byte in _bytes(body):
                        self.wfile.write(byte)
                        self.wfile.flush()
                        time.sleep(service.drip_s)
                except OSError:
                    pass  # the client gave up, as it should

            def _send_chunked(self, body: bytes) -> None:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.close_connection = True
                try:
                    for start in range(0, len(body), 1024):
                        piece = body[start : start + 1024]
                        self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:
                    pass

        return Handler


def _bytes(body: bytes) -> Iterator[bytes]:
    for i in range(len(body)):
        yield body[i : i + 1]
