"""`AcksInFlight`: the requests from Slack the HTTP front is still answering, so that the work of the
commands already acked (bolt's lazy listeners) waits for those answers before it takes the CPU.

Why (issue 25, profiled with py-spy on the bot during 50 concurrent `/sam cameras`): a third of the bot's CPU
in the burst went to the lazy listeners of the commands acked first (building their service requests),
while the acks of the others waited for the GIL. Slack shows the person an error when the ack is later than
3 s; the answer through response_url has 30 minutes. So the ack goes first: a lazy listener starts once no
request is being answered, or after `MAX_DEFER_S` at the latest (a steady stream of requests does not hold
the work back for longer). Nothing is dropped: the work waits on its thread of the listener pool, as work
queued behind a busy pool does. Without the front (Socket Mode) nothing is counted and nothing waits.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

log = logging.getLogger(__name__)

MAX_DEFER_S = 1.0
SETTLE_S = 0.02


class AcksInFlight:
    def __init__(self) -> None:
        self._count = 0
        self._entered = 0
        self._clear = threading.Condition()

    def enter(self) -> None:
        """A request from Slack is being answered."""
        with self._clear:
            self._count += 1
            self._entered += 1

    def leave(self) -> None:
        """Its answer has been sent (or it failed)."""
        with self._clear:
            self._count -= 1
            if self._count == 0:
                self._clear.notify_all()

    def wait_clear(self, timeout: float = MAX_DEFER_S) -> bool:
        """Block until no request is being answered, or `timeout` has passed; whether it cleared. When other
        requests came meanwhile (a burst), also until none has come for SETTLE_S: the count touches 0 between
        the arrivals of a burst. A command alone waits for its own answer only."""
        deadline = time.monotonic() + timeout
        with self._clear:
            alone, first = self._count <= 1, self._entered
            while True:
                if not self._clear.wait_for(lambda: self._count == 0, deadline - time.monotonic()):
                    return False
                if alone and self._entered == first:
                    return True
                entered = self._entered
                self._clear.wait(min(SETTLE_S, max(0.0, deadline - time.monotonic())))
                if self._count == 0 and self._entered == entered:
                    return True
                if time.monotonic() >= deadline:
                    return False


class AckedCommands:
    """Commands the front acked itself (bot/server.py ACKED_BY_THE_FRONT), handed to bolt after the answers
    in flight: one thread waits for them to be out, then gives every command that came meanwhile to the
    dispatch threads at once, so a burst does not wake a thread per command while its acks are being sent.
    `flush` hands over what waits (a stop: nothing acked is lost)."""

    def __init__(self, acks: AcksInFlight, executor: Executor, dispatch: Callable[[Any], None]) -> None:
        self._acks = acks
        self._executor = executor
        self._dispatch = dispatch
        self._waiting: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._queued = threading.Event()
        self._lock = threading.Lock()
        threading.Thread(target=self._run, name="acked-commands", daemon=True).start()

    def put(self, request: Any) -> None:
        self._waiting.put(request)
        self._queued.set()

    def flush(self) -> None:
        """Hand every command that waits to the dispatch threads now."""
        with self._lock:
            while True:
                try:
                    request = self._waiting.get_nowait()
                except queue.Empty:
                    return
                self._executor.submit(self._dispatch, request)

    def _run(self) -> None:
        while True:
            self._queued.wait()
            self._queued.clear()
            self._acks.wait_clear()
            try:
                self.flush()
            except RuntimeError:  # the executor is shut down: `flush` at the stop handed over the rest
                log.warning("a command acked while samops bot stopped was not run")
