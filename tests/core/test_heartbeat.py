"""The heartbeat against a real loopback listener: paced, one call in flight, a failing target one WARNING
per outage and one INFO when it answers again, the URL's secret parts never in a log line."""

from __future__ import annotations

import logging
import time

import pytest

from core.heartbeat import Heartbeat, HeartbeatConfig
from core.redact import mask_url
from tests.support.heartbeat_target import HeartbeatTarget

TOKEN = "f3b9c2d1-secret-uuid"


def settle(beat: Heartbeat) -> None:
    beat.wait(5)


def test_a_call_per_beat_and_the_pace_holds_back_the_rest() -> None:
    with HeartbeatTarget() as target:
        clock = [1_000_000]
        beat = Heartbeat(HeartbeatConfig(url=target.url(f"/ping/{TOKEN}"), pace=30), clock=lambda: clock[0])
        try:
            assert beat.beat()
            settle(beat)
            clock[0] += 10_000  # within the pace: no call
            assert not beat.beat()
            clock[0] += 21_000
            assert beat.beat()
            settle(beat)
        finally:
            beat.close()
        assert [(p.method, p.path) for p in target.pings] == [("GET", f"/ping/{TOKEN}")] * 2


def test_post_when_configured() -> None:
    with HeartbeatTarget() as target:
        beat = Heartbeat(HeartbeatConfig(url=target.url(f"/api/push/{TOKEN}?status=up"), method="POST"))
        try:
            beat.beat()
            settle(beat)
        finally:
            beat.close()
        assert [(p.method, p.path) for p in target.pings] == [("POST", f"/api/push/{TOKEN}?status=up")]


def test_a_failing_target_is_one_warning_per_outage_no_token(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="core.heartbeat")
    with HeartbeatTarget() as target:
        beat = Heartbeat(HeartbeatConfig(url=target.url(f"/ping/{TOKEN}")))
        try:
            target.status = 503
            for _ in range(3):
                beat.beat()
                settle(beat)
            target.status = 200
            for _ in range(2):
                beat.beat()
                settle(beat)
        finally:
            beat.close()
        # and an unreachable one: the listener is gone
        gone = Heartbeat(HeartbeatConfig(url=target.url(f"/ping/{TOKEN}"), timeout=1))
    try:
        gone.beat()
        settle(gone)
    finally:
        gone.close()
    lines = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [level for level, _ in lines] == ["WARNING", "INFO", "WARNING"], lines
    assert "HTTP 503" in lines[0][1] and "answers again" in lines[1][1]
    assert all(TOKEN not in text for _, text in lines)
    assert all(mask_url(target.url(f"/ping/{TOKEN}")) in text for _, text in lines)


def test_the_url_is_shown_by_its_host_only() -> None:
    assert mask_url(f"https://hc-ping.com/{TOKEN}") == "https://hc-ping.com/***"
    assert mask_url(f"http://kuma.local:3001/api/push/{TOKEN}?status=up") == "http://kuma.local:3001/***"
    assert mask_url("https://user:pw@example.com") == "https://example.com/***"
    assert mask_url("https://example.com/") == "https://example.com/"


def test_a_bad_url_is_refused_without_repeating_it() -> None:
    with pytest.raises(ValueError) as err:
        HeartbeatConfig(url=f"ftp://x/{TOKEN}")
    assert TOKEN not in str(err.value).split("input_value")[0]


def test_one_call_in_flight() -> None:
    with HeartbeatTarget() as target:
        beat = Heartbeat(HeartbeatConfig(url=target.url("/slow")))
        try:
            assert beat.beat()
            started = beat.beat()  # the first may or may not be done; never two at once
            settle(beat)
            time.sleep(0.05)
        finally:
            beat.close()
        assert target.count() == 1 + started
