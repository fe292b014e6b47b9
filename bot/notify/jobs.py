"""The notifier's timed jobs, behind one protocol and listed in one place.

The alarm path (poll, discover, deliver: `Notifier.alarm_cycle`) runs first and alone on the notifier's own
thread; every other piece of work a cycle does is a `Job` here, run after it (`Notifier.cycle`, for tests
and `--once`) or on a thread of its own beside it (`JobRunner`, a long-running `samops notify`), so that a
slow job (a camera listing per organization, a paced `users.info` read for a page, a digest) never holds up
the next poll or the cards of what it found. Exactly once holds across the two threads as across two
notifiers (docs/notifier.md): every job takes its claim or lease in the records before it posts, and the
runner's jobs have a database connection of their own.

A new timed job is one class with a `tick(now)` and its line in the registry, `Notifier.timed_jobs`
(bot/notify/service.py).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from core import cache
from core.sqlite_lib import sqlite_utils

log = logging.getLogger(__name__)


class Job(Protocol):
    """A piece of timed work: `tick(now)` does what is due at `now` (epoch ms) and returns quickly when
    nothing is; each job keeps its own cadence and its own once-only claims."""

    @property
    def name(self) -> str: ...

    def tick(self, now: int) -> object: ...


@dataclass(frozen=True)
class Step:
    """A job made of one of the notifier's parts (its `run`/`tick` reads the notifier's clock itself)."""

    name: str
    run: Callable[[], object]

    def tick(self, now: int) -> object:
        return self.run()


def run_all(jobs: list[Job], now: int) -> None:
    for job in jobs:
        job.tick(now)


class JobRunner:
    """The timed jobs of a long-running notifier on a thread of their own, every `interval` seconds, built in
    that thread by `build` (a copy of the notifier with a connection of its own to the cache: SQLite
    connections stay in their thread).
    An error other than a busy cache stops the runner and is raised again by the notifier's loop."""

    def __init__(
        self,
        build: Callable[[], tuple[sqlite_utils.Database, list[Job]]],
        clock: Callable[[], int],
        interval: float,
    ) -> None:
        self.build, self.clock, self.interval = build, clock, interval
        self.failed: BaseException | None = None
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="notify-jobs", daemon=True)

    def start(self) -> JobRunner:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._halt.set()
        self._thread.join(timeout=30)

    def _loop(self) -> None:
        try:
            db, jobs = self.build()  # in this thread: its connection is used here only
        except BaseException as err:  # noqa: BLE001  # handed to the notifier's loop, which raises it
            self.failed = err
            return
        while not self._halt.is_set():
            try:
                cache.reopen_if_replaced(db)
                run_all(jobs, self.clock())
            except sqlite3.OperationalError as err:  # the sync holds the write lock: the next round goes on
                log.warning("notify: the cache is busy for the timed jobs (%s); trying again", err)
            except BaseException as err:  # noqa: BLE001  # handed to the notifier's loop, which raises it
                self.failed = err
                return
            self._halt.wait(self.interval)
