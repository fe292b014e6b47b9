"""Records the client dropped from the service's answers as invalid (see core.models `Records`), counted
per operation, so that a sync can report them and `samops status` show them."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass

from core.models import Rejection


@dataclass(frozen=True, order=True)
class RejectionKey:
    operation: str  # e.g. list_activities
    record: str  # e.g. Activity
    field: str  # spec names, e.g. activityTime
    reason: str  # e.g. out of range

    def describe(self, count: int) -> str:
        """ "rejected 3 Activity records from list_activities: activityTime out of range" """
        noun = "record" if count == 1 else "records"
        return f"rejected {count} {self.record} {noun} from {self.operation}: {self.field} {self.reason}"


class Rejections:
    """A thread-safe tally; the keys are few (operations x fields), so it stays small in a long run."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[RejectionKey] = Counter()

    def add(self, operation: str, rejection: Rejection) -> None:
        key = RejectionKey(operation, rejection.record, rejection.field, rejection.reason)
        with self._lock:
            self._counts[key] += 1

    def drain(self) -> dict[RejectionKey, int]:
        """The counts so far, and start again from zero."""
        with self._lock:
            counts, self._counts = dict(self._counts), Counter()
        return counts
