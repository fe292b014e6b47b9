"""Fleet-sized answers (issue 14): the operations whose one unpaged answer lists the whole fleet (the login
with every panel, its sensors and controllers) read up to SAM_MAX_FLEET_RESPONSE_BYTES, every other one
keeps the tight SAM_MAX_RESPONSE_BYTES, against the real spec-exact simulator."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from core.client import SamClient
from core.client.operations import OPERATIONS
from core.errors import ResponseTooLargeError
from core.settings import Settings
from tests.support.processes import Simulator, run_simulator

PANELS = 200
TIGHT = 4096  # far below the 200-panel login answer


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", "--panels", str(PANELS), seed=16) as s:
        yield s


def client(sim: Simulator, **values: object) -> SamClient:
    return SamClient(Settings(_env_file=None, base_url=sim.base_url, max_retries=0, **values))


def login_bytes(sim: Simulator) -> tuple[int, int]:
    """(bytes of the raw login answer, panels in it)."""
    body = {"screenName": "demo", "password": "demo", "rememberMe": True}
    answer = httpx.post(f"{sim.base_url}/auth/login", json=body, timeout=30)
    answer.raise_for_status()
    return len(answer.content), len(answer.json()["resources"])


def test_a_login_beyond_the_tight_limit_is_read_while_other_answers_keep_it(sim: Simulator) -> None:
    size, panels = login_bytes(sim)
    assert size > TIGHT
    with client(sim, max_response_bytes=TIGHT) as sam:
        assert len(sam.login().panels) == panels  # the fleet allowance (default 128 MiB) applies
        panel = int(sam.login().panels[0].resource_id or 0)
        now = int(time.time() * 1000)
        # A page of a day's activities is not a fleet list: the tight bound still refuses it unread.
        with pytest.raises(ResponseTooLargeError, match=r"SAM_MAX_RESPONSE_BYTES \(4,096 bytes\)"):
            sam.list_activities([panel], start_time=now - 7 * 86_400_000, end_time=now, page_size=100)


def test_the_fleet_allowance_is_a_bound_too(sim: Simulator) -> None:
    with (
        client(sim, max_fleet_response_bytes=TIGHT) as sam,
        pytest.raises(ResponseTooLargeError, match=r"SAM_MAX_FLEET_RESPONSE_BYTES \(4,096 bytes\)"),
    ):
        sam.login()


def test_the_default_allowance_holds_a_20000_panel_login_and_the_tight_limit_would_not() -> None:
    """Measured per panel on the simulator's login (every panel with its sensors and controllers), scaled
    to 20,000 panels: the default settings must read it; the tight bound alone would refuse it."""
    with run_simulator("--alarm-rate", "0", "--panels", "300", "--orgs", "1", seed=17) as small:
        size, panels = login_bytes(small)
    per_panel = size / panels
    defaults = Settings(_env_file=None)
    assert 20_000 * per_panel * 1.5 < defaults.max_fleet_response_bytes
    assert 10_000 * per_panel > defaults.max_response_bytes


def test_the_fleet_operations_are_the_unpaged_whole_fleet_lists() -> None:
    fleet = {name for name, op in OPERATIONS.items() if op.fleet}
    assert fleet == {
        "login",
        "get_organization_users",
        "list_organization_users",
        "list_cameras",
        "list_controller_data_log",
    }
