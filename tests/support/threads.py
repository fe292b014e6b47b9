"""Racing threads on purpose: the same work in several threads, released at once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def at_once(work: Callable[[], T], count: int = 8) -> list[T]:
    """`work` run in `count` threads that all start it together (a barrier); their results. An exception in
    one is raised here."""
    barrier = threading.Barrier(count)

    def run() -> T:
        barrier.wait()
        return work()

    with ThreadPoolExecutor(max_workers=count) as pool:
        futures = [pool.submit(run) for _ in range(count)]
    return [f.result() for f in futures]
