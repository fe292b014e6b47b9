"""`GET /readyz` of the bot's HTTP front: core/health.py's verdict over the records, as JSON (ages and
thresholds in seconds, the reasons in words; no secrets), 200 when alarms flow, 503 when not."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable

from core import read
from core.cache import CacheUnavailableError
from core.clock import now_ms
from core.sqlite_lib import sqlite_utils

log = logging.getLogger(__name__)


def ready_answer(db: Callable[[], sqlite_utils.Database]) -> Callable[[], tuple[int, str]]:
    def answer() -> tuple[int, str]:
        try:
            verdict = read.readiness(db(), now_ms())
        except (sqlite3.Error, CacheUnavailableError, OSError) as err:
            log.info("readyz: the records cannot be read (%s)", type(err).__name__)
            body = {
                "status": "unavailable",
                "reasons": [f"the records cannot be read ({type(err).__name__})"],
            }
            return 503, json.dumps(body)
        return (200 if verdict.ready else 503), json.dumps(verdict.as_json())

    return answer
