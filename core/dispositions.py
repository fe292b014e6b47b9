"""How an alarm was closed: its disposition, and when a panel has too many false alarms.

The one definition the Resolve form, the cards, the audit log, the handover, `/sam panel`, the dashboard and
the CSV export use. A disposition has a `code` (what is stored and exported, stable), a `label` (what people
read) and a `class`: false, confirmed, test or cancelled. False-alarm rates count the class, so a company may
add its own codes ("false_pet") and they count where they belong.

`[[dispositions]]` in the TOML replaces the whole default list (a list that only added to the defaults could
never drop one); `[false_alarms]` sets when a panel is flagged. Both are parsed once, with the rest of the
config (core/config/model.py), and a bad entry is refused at start with one line naming its field.

```toml
[[dispositions]]
code = "false_user_error"       # lowercase letters, digits and _; at most 40
label = "False alarm: user error"
class = "false"                 # false, confirmed, test or cancelled

[false_alarms]
threshold = 3                   # a panel with this many false alarms ...
days = 30                       # ... within this many days is flagged
```

What is stored with a resolution is the code, label and class as they were then: renaming a label or
removing a code later does not rewrite history (docs/dispositions.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core import lifecycle
from core.cache import dispositions as stored
from core.cache.dispositions import StoredDisposition
from core.cache.transactions import joined
from core.lifecycle import Change, Outcome
from core.sqlite_lib import sqlite_utils


class DispositionClass(StrEnum):
    FALSE = "false"
    CONFIRMED = "confirmed"
    TEST = "test"
    CANCELLED = "cancelled"


_CODE = re.compile(r"[a-z0-9_]{1,40}")
MAX_LABEL = 75  # Slack's limit for an option's text


class Disposition(BaseModel):
    """One `[[dispositions]]` entry."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    code: str
    label: str
    klass: DispositionClass = Field(alias="class")

    @field_validator("code")
    @classmethod
    def _code(cls, value: str) -> str:
        if not _CODE.fullmatch(value):
            raise ValueError(f"{value!r} is not a code (lowercase letters, digits and _, at most 40)")
        return value

    @field_validator("label")
    @classmethod
    def _label(cls, value: str) -> str:
        value = value.strip()
        if not value or len(value) > MAX_LABEL or not value.isprintable():
            raise ValueError(f"a label is 1 to {MAX_LABEL} printable characters")
        return value


def _d(code: str, label: str, klass: DispositionClass) -> Disposition:
    return Disposition.model_validate({"code": code, "label": label, "class": klass})


DEFAULTS: tuple[Disposition, ...] = (
    _d("false_user_error", "False alarm: user error", DispositionClass.FALSE),
    _d("false_equipment", "False alarm: equipment fault", DispositionClass.FALSE),
    _d("false_environment", "False alarm: environment", DispositionClass.FALSE),
    _d("false_unknown", "False alarm: unknown cause", DispositionClass.FALSE),
    _d("confirmed_intrusion", "Confirmed: intrusion", DispositionClass.CONFIRMED),
    _d("confirmed_fire", "Confirmed: fire", DispositionClass.CONFIRMED),
    _d("confirmed_medical", "Confirmed: medical", DispositionClass.CONFIRMED),
    _d("confirmed_other", "Confirmed: other", DispositionClass.CONFIRMED),
    _d("test", "Test", DispositionClass.TEST),
    _d("cancelled", "Cancelled by the customer", DispositionClass.CANCELLED),
)

MAX_DISPOSITIONS = 100  # a static_select holds at most 100 options


def checked_list(entries: tuple[Disposition, ...]) -> tuple[Disposition, ...]:
    """A configured list: not empty (the form would have no choice), codes unique, within Slack's limit."""
    if not entries:
        raise ValueError("at least one disposition is needed (leave the key out for the defaults)")
    if len(entries) > MAX_DISPOSITIONS:
        raise ValueError(f"at most {MAX_DISPOSITIONS} dispositions (a Slack menu's limit)")
    seen: set[str] = set()
    for entry in entries:
        if entry.code in seen:
            raise ValueError(f"the code {entry.code!r} is listed twice")
        seen.add(entry.code)
    return entries


@dataclass(frozen=True)
class Dispositions:
    """The configured list, in its order (the Resolve form's order)."""

    entries: tuple[Disposition, ...] = DEFAULTS

    def get(self, code: object) -> Disposition | None:
        """The entry of `code`, None when it is not in the list (a submitted value is never trusted)."""
        return next((d for d in self.entries if d.code == code), None) if isinstance(code, str) else None

    def options(self) -> list[tuple[str, str]]:
        """(code, label) pairs, for a menu."""
        return [(d.code, d.label) for d in self.entries]

    def suggestion(self, code: str | None, why: str | None = None) -> str | None:
        """The Resolve form's hint for a suggested code ("Suggested: False alarm: user error — during the
        access window of …"); None when there is none, or the configured list does not hold that code."""
        found = self.get(code)
        if found is None:
            return None
        return f"Suggested: {found.label}" + (f" — {why}" if why else "")


class FalseAlarmsConfig(BaseModel):
    """`[false_alarms]`: a panel with `threshold` false alarms or more within `days` days is flagged."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: int = Field(default=3, ge=1, le=10_000)
    days: int = Field(default=30, ge=1, le=366)


# The periods the dashboard and the handover count rates over, in days.
PERIODS: tuple[int, ...] = (7, 30, 90)


def resolve(
    db: sqlite_utils.Database,
    event_id: str,
    disposition: Disposition,
    by_user: str,
    at: int,
    *,
    opened_at: int,
    note: str | None = None,
) -> Outcome:
    """Resolve one alarm as `disposition`, in one write transaction (joining the caller's): the lifecycle's
    change and the disposition together, or neither. An alarm already resolved keeps what it was resolved
    as (the lifecycle's no-op, with its reason)."""
    with joined(db):
        outcome = lifecycle.apply(db, event_id, Change.RESOLVED, by_user, at, opened_at=opened_at, note=note)
        if outcome.changed:
            stored.record(db, event_id, disposition.code, disposition.label, disposition.klass, at, by_user)
        return outcome


def resolved_as(db: sqlite_utils.Database, event_id: str) -> StoredDisposition | None:
    """What the alarm was resolved as; None when it is not resolved, or was before dispositions."""
    return stored.of_alarm(db, event_id)
