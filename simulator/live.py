"""The live feed: new activities, alarms among them, keep appearing at `--alarm-rate` per minute."""

from __future__ import annotations

import logging
import threading

from simulator.store import Store

log = logging.getLogger("simulator")


class LiveFeed:
    def __init__(self, store: Store, per_minute: float) -> None:
        self.store = store
        self.per_minute = per_minute
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sim-live", daemon=True)

    def start(self) -> None:
        if self.per_minute > 0:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)

    def _run(self) -> None:
        interval = 60.0 / self.per_minute
        while not self._stop.wait(interval):
            try:
                self.store.live_tick()
            except Exception:  # the feed must outlive one bad tick
                log.exception("live tick failed")
