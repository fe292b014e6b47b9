"""bot/pace.TokenBucket, the pace behind the App Home's calls to Slack (issue 26): whatever the order and
timing of takes, no stretch of time sees more than the burst plus the rate times its length."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.pace import TokenBucket


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@given(
    per_minute=st.integers(1, 100),
    capacity=st.integers(1, 20),
    steps=st.lists(st.tuples(st.floats(0, 5), st.booleans(), st.integers(1, 3)), max_size=300),
)
def test_no_stretch_of_time_gets_more_than_the_burst_and_the_rate(
    per_minute: int, capacity: int, steps: list[tuple[float, bool, int]]
) -> None:
    clock = Clock()
    bucket = TokenBucket(per_minute / 60.0, capacity, clock)
    taken: list[float] = []
    for advance, pages, n in steps:
        clock.now += advance
        if pages:  # as users.conversations: asked when a call is free, then every page read (debt)
            if bucket.can_take():
                bucket.spend(n)
                taken += [clock.now] * n
        elif bucket.take():
            taken.append(clock.now)
        assert (bucket.wait() == 0) == bucket.can_take()
    for i, start in enumerate(taken):
        for end in taken[i:]:
            count = sum(1 for t in taken if start <= t <= end)
            # A person's pages overdraw by at most the pages beyond the first.
            assert count <= capacity + 2 + (end - start) * per_minute / 60.0 + 1e-6


def test_a_429_holds_everything_for_its_retry_after() -> None:
    clock = Clock()
    bucket = TokenBucket(1.0, 10, clock)
    bucket.hold(5)
    assert not bucket.can_take() and bucket.wait() >= 5
    clock.now += 6
    assert bucket.take()
