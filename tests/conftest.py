from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.support.processes import Simulator, run_simulator

# No test may depend on the machine's speed: hypothesis' per-example deadline (200 ms) is a speed test.
settings.register_profile("samops", deadline=None)
settings.load_profile("samops")


@pytest.fixture(scope="session")
def simulator() -> Iterator[Simulator]:
    """One simulator for the whole session, default scale, no faults, no live alarms.

    Tests that mutate data must only touch records they created or that no other test reads; tests that
    need faults, live alarms or a pristine data set start their own with `run_simulator`.
    """
    with run_simulator("--alarm-rate", "0") as sim:
        yield sim
