"""A refused login is not retried at a steady rate (issue 22 item 2): against the real simulator, with a
wrong password, the client sends one login, then none until its wait is over (30 s, doubling, at most
10 min), each refusal said in one WARNING line; the right password ends the back-off."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import httpx
import pytest
from pydantic import SecretStr

from core.client import SamClient
from core.errors import AuthenticationError, LoginRefusedError
from core.settings import Settings
from tests.support.processes import Simulator, run_simulator

ACCOUNT, PASSWORD = "night-ops", "night-pass-7"


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    # Not demo / demo: once any test of the worker logged in as demo, the process-wide secret filter masks
    # "demo" in every log line, the screen name these tests read in the refusal included.
    account = ("--demo-screen-name", ACCOUNT, "--demo-password", PASSWORD)
    with run_simulator("--alarm-rate", "0", *account, seed=3) as simulator:
        yield simulator


def logins(sim: Simulator) -> int:
    return sum(r["path"] == "/api/auth/login" for r in httpx.get(f"{sim.root_url}/_sim/requests").json())


class Clock:
    """The client's monotonic clock, moved by the test instead of waited for."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def client(sim: Simulator, password: str, clock: Clock, heard: list | None = None) -> SamClient:
    settings = Settings(
        _env_file=None, base_url=sim.base_url, screen_name=ACCOUNT, password=password, organization_id=None
    )
    return SamClient(settings, clock=clock, on_login=None if heard is None else heard.append)


def test_a_wrong_password_backs_off_to_one_login_every_ten_minutes(
    sim: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    before = logins(sim)
    with caplog.at_level(logging.WARNING, logger="samops.client"), client(sim, "wrong", clock) as sam:
        with pytest.raises(AuthenticationError) as first:
            sam.list_cameras()
        assert not isinstance(first.value, LoginRefusedError)  # the service's own answer, the first time
        for _ in range(20):  # a poller's calls meanwhile: none reaches the service
            with pytest.raises(LoginRefusedError, match=r"next one in 30 s.*SAM_PASSWORD"):
                sam.list_cameras()
        assert logins(sim) == before + 1
        waits = []
        for _ in range(7):
            refusal = sam.login_backoff.refusal
            assert refusal is not None
            waits.append(refusal.wait_s)
            clock.now += refusal.wait_s - 1
            with pytest.raises(LoginRefusedError):
                sam.list_cameras()
            clock.now += 1
            with pytest.raises(AuthenticationError):
                sam.list_cameras()
        assert waits == [30, 60, 120, 240, 480, 600, 600]
        assert logins(sim) == before + 8
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(lines) == 8  # one line per login the service refused, none per call refused meanwhile
    assert f"refused the login of '{ACCOUNT}' (401" in lines[0] and "next attempt in 30 s" in lines[0]
    assert "next attempt in 10 min" in lines[-1]
    assert all("wrong" not in line for line in lines)  # the password itself is never said


def test_a_login_that_works_again_ends_the_back_off(sim: Simulator) -> None:
    clock, heard = Clock(), []
    with client(sim, "wrong", clock, heard) as sam:
        with pytest.raises(AuthenticationError):
            sam.login()
        sam.settings = sam.settings.model_copy(update={"password": SecretStr(PASSWORD)})
        with pytest.raises(LoginRefusedError):  # still waiting, even with the password fixed
            sam.login()
        clock.now += 30
        assert sam.login().token is not None
        assert sam.login_backoff.refusal is None
        sam.list_cameras()
    # What `samops status` is told (the bot records it): the refusal, then its end; nothing per call.
    assert [h.attempts if h else None for h in heard] == [1, None]
