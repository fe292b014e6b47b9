"""The client bounds and checks what it reads: a total deadline per attempt, a size limit, records validated
(int64, sane times) with invalid ones dropped and counted, and writes whose answer is not their result
reported as of unknown outcome. Against a real HTTP server on loopback (tests/support/hostile_service.py)."""

from __future__ import annotations

import gzip
import logging
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.client import SamClient
from core.errors import OutcomeUnknownError, ResponseFormatError, ResponseTooLargeError, TransportError
from core.models import INT64_MAX, INT64_MIN
from core.settings import Settings
from core.timefmt import EARLIEST_MS, INVALID, LATEST_MS, age, utc
from tests.support.health_checks import ALL_HEALTH_CHECKS
from tests.support.hostile_service import (
    HUGE_INTS,
    HUGE_TIMES,
    MQ_PASSWORD,
    NOT_RESULTS,
    ORG,
    PANELS,
    TOKEN,
    HostileService,
    Hostility,
)

PASSWORD = "bounds-password-never-shown"
SECRETS = (PASSWORD, TOKEN, MQ_PASSWORD)


@pytest.fixture(scope="module")
def service() -> Iterator[HostileService]:
    with HostileService(limit_bytes=4096, drip_s=0.2) as fake:
        yield fake


def client_for(service: HostileService, **overrides: object) -> SamClient:
    values: dict = {
        "password": PASSWORD,
        "max_retries": 0,
        "timeout": 1.0,
        "organization_id": ORG,
        "max_response_bytes": service.limit_bytes,
        "max_fleet_response_bytes": service.limit_bytes,  # camera/list is a fleet-sized answer
    }
    return SamClient(Settings(_env_file=None, base_url=service.base_url, **(values | overrides)))


@pytest.mark.parametrize("kind", ["slow", "slow_head"])
def test_a_dripping_answer_is_cut_at_the_total_deadline(service: HostileService, kind: str) -> None:
    # The whole answer would take minutes at one byte every 0.2 s; each byte comes well within any
    # per-read timeout, so only a total deadline stops it.
    service.set({"camera/list": Hostility(kind)})
    with client_for(service, timeout=1.0) as sam:
        sam.login()
        started = time.monotonic()
        with pytest.raises(TransportError, match="timed out"):
            sam.list_cameras()
        elapsed = time.monotonic() - started
    service.set({})
    assert elapsed < 20  # 1 s allowed; the drip would last over 100 s


def test_retries_each_get_their_own_deadline(service: HostileService) -> None:
    service.set({"camera/list": Hostility("slow")})
    with client_for(service, timeout=0.5, max_retries=1) as sam:
        sam._sleep = lambda s: None
        sam.login()
        before = len([r for r in service.requests if r[1] == "/camera/list"])
        with pytest.raises(TransportError):
            sam.list_cameras()
        after = len([r for r in service.requests if r[1] == "/camera/list"])
    service.set({})
    assert after - before == 2


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_an_answer_beyond_the_limit_is_refused_unread(service: HostileService, chunked: bool) -> None:
    service.set({"camera/list": Hostility("huge", value=chunked)})
    with (
        client_for(service) as sam,
        pytest.raises(ResponseTooLargeError, match="SAM_MAX_FLEET_RESPONSE_BYTES") as e,  # a fleet list
    ):
        sam.list_cameras()
    service.set({})
    assert isinstance(e.value, ResponseFormatError) and "(GET /api/camera/list)" in str(e.value)


def test_a_compressed_answer_cannot_inflate_past_the_limit() -> None:
    bomb = gzip.compress(b"[" + b" " * 1_000_000 + b"]")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(bomb)))
            self.end_headers()
            self.wfile.write(bomb)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    import threading

    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        settings_ = Settings(
            _env_file=None,
            base_url=f"http://127.0.0.1:{server.server_address[1]}/api",
            max_retries=0,
            max_response_bytes=65536,
            max_fleet_response_bytes=65536,  # camera/list is a fleet-sized answer
            organization_id=1,
        )
        with SamClient(settings_) as sam:
            sam._token = "t"  # this stand-in has no login; the size check comes before any parsing
            assert len(bomb) < 65536
            with pytest.raises(ResponseTooLargeError):
                sam.list_cameras()
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("value", HUGE_INTS)
def test_an_int_beyond_int64_drops_that_record_only(
    service: HostileService, value: int, caplog: pytest.LogCaptureFixture
) -> None:
    service.set({"camera/list": Hostility("huge_int", value=value, field="resourceId")})
    with client_for(service) as sam, caplog.at_level(logging.WARNING):
        cameras = sam.list_cameras()
        counts = sam.rejections.drain()
    service.set({})
    assert [c.resource_id for c in cameras] == [200102]
    ((key, count),) = counts.items()
    assert count == 1
    assert key.describe(count) == "rejected 1 CameraSummary record from list_cameras: resourceId out of range"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and r.name == "samops.client"]
    assert warnings and "resourceId out of range" in warnings[0].getMessage()
    assert str(value) not in caplog.text  # the value itself is not logged


@pytest.mark.parametrize("value", HUGE_TIMES)
def test_a_time_outside_the_sane_range_drops_that_activity(service: HostileService, value: int) -> None:
    service.set({"activities": Hostility("huge_time", value=value)})
    with client_for(service) as sam:
        activities = list(sam.iter_activities([PANELS[0]]))
        counts = sam.rejections.drain()
    service.set({})
    assert [a.event_id for a in activities] == [f"ev-{PANELS[0]}-2", f"ev-{PANELS[0]}-3"]
    assert [k.describe(n) for k, n in counts.items()] == [
        "rejected 1 Activity record from list_activities: activityTime out of range"
    ]


def test_a_field_of_the_wrong_type_drops_that_record(service: HostileService) -> None:
    service.set({"sensors": Hostility("wrong_type", value={"x": 1}, field="orderNo")})
    with client_for(service) as sam:
        group = sam.list_panel_sensors(PANELS[0])
        counts = sam.rejections.drain()
    service.set({})
    assert [s.sensor_name for s in group.sensors or []] == ["Door 1"]
    assert [k.describe(n) for k, n in counts.items()] == [
        "rejected 1 Sensor record from list_panel_sensors: orderNo of the wrong type"
    ]


def test_a_bad_single_record_is_a_response_format_error(service: HostileService) -> None:
    # Operation 18 answers one object: when that object itself is wrong, there is nothing left to keep.
    service.set({"sensors": Hostility("not_result", value={"type": "zone", "sensors": "all of them"})})
    with client_for(service) as sam, pytest.raises(ResponseFormatError, match="does not match the spec"):
        sam.list_panel_sensors(PANELS[0])
    service.set({})


@pytest.mark.parametrize("body", NOT_RESULTS, ids=repr)
def test_a_write_answered_with_something_else_has_an_unknown_outcome(
    service: HostileService, body: object
) -> None:
    service.set({"sensor-rename": Hostility("not_result", value=body)})
    with client_for(service) as sam, pytest.raises(OutcomeUnknownError, match="outcome is unknown") as caught:
        sam.update_sensor_description(5001, "Front door")
    service.set({})
    assert "not an Operation result" in str(caught.value)
    assert "(PUT /api/panel/sensor/5001/update-description)" in str(caught.value)


@pytest.mark.parametrize("kind", ["html", "empty", "truncated", "huge"])
def test_a_write_answered_with_garbage_has_an_unknown_outcome(service: HostileService, kind: str) -> None:
    service.set({"sensor-rename": Hostility(kind)})
    with client_for(service) as sam, pytest.raises(OutcomeUnknownError):
        sam.update_sensor_description(5001, "Front door")
    service.set({})


def test_a_read_answered_with_garbage_is_a_plain_format_error(service: HostileService) -> None:
    service.set({"camera/list": Hostility("html")})
    with client_for(service) as sam, pytest.raises(ResponseFormatError) as caught:
        sam.list_cameras()
    service.set({})
    assert not isinstance(caught.value, OutcomeUnknownError)


def test_a_real_operation_result_is_a_result(service: HostileService) -> None:
    service.set({"sensor-rename": Hostility("not_result", value={"success": False, "message": "locked"})})
    with client_for(service) as sam:
        result = sam.update_sensor_description(5001, "Front door")
    service.set({})
    assert (result.success, result.message) == (False, "locked")


# epoch_ms is Any, not int: a cache row can hold a float or a huge int, and these must never raise on it.
@settings(max_examples=200, derandomize=True, deadline=None, suppress_health_check=ALL_HEALTH_CHECKS)
@given(st.one_of(st.integers(), st.floats(allow_nan=True), st.none()), st.integers())
def test_times_for_people_never_raise(epoch_ms: Any, now_ms: int) -> None:
    for text in (utc(epoch_ms), age(epoch_ms, now_ms)):
        assert isinstance(text, str) and text


def test_times_no_calendar_holds_read_invalid() -> None:
    assert utc(EARLIEST_MS) == "2000-01-01 00:00 UTC" and utc(LATEST_MS) == "2100-01-01 00:00 UTC"
    nan: Any = float("nan")  # what a corrupt row can hold, though the signatures say int
    assert utc(99999999999999999999) == INVALID == utc(-(2**70)) == utc(nan) == age(nan, 0)
    assert age(2**64, 0) == "just now" and age(-(2**64), 0).endswith(" days ago")
    assert INT64_MIN == -(2**63) and INT64_MAX == 2**63 - 1


def test_no_secret_in_any_error(service: HostileService) -> None:
    for kind in ("html", "truncated", "huge", "wrong_type"):
        service.set({"panel-users": Hostility(kind, value="x", field="resourceUserResponseList")})
        with client_for(service) as sam:
            try:
                sam.get_organization_users()
            except ResponseFormatError as exc:
                assert not any(s in str(exc) or s in repr(exc) for s in SECRETS)
    service.set({})
