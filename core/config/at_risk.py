"""`[notify.channels.<id>] at_risk = { ... }`: a channel's at-risk digest (docs/at_risk.md), parsed once with
the config (core/config/); a bad entry is refused naming its field (`notify.channels.C_X.at_risk.day`).

```toml
[notify.channels.C_MANAGERS]
at_risk = {}                                       # weekly, Mondays 08:00 in the organization's zone
# at_risk = { every = "daily", at = "07:30" }      # or every day
# at_risk = { every = "weekly", day = "fri", at = "16:00" }
org = 1001                                         # whose list (default: every organization)
```
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, field_validator

from core.windows import local_date, parse_clock, parse_day, wall_ms


class AtRiskDigest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    every: Literal["weekly", "daily"] = "weekly"
    day: str = "mon"  # weekly digests only
    at: str = "08:00"  # in the organization's zone

    @field_validator("day")
    @classmethod
    def _day(cls, value: str) -> str:
        parse_day(value)
        return value

    @field_validator("at")
    @classmethod
    def _at(cls, value: str) -> str:
        parse_clock(value)
        return value

    def describe(self) -> str:
        return (
            f"at-risk digest {self.every}"
            + (f" {self.day}" if self.every == "weekly" else "")
            + f" {self.at}"
        )

    def latest_due(self, now: int, zone: ZoneInfo) -> int:
        """The latest digest time at or before `now`, in `zone`."""
        at: time = parse_clock(self.at)
        today = local_date(now, zone)
        back = range(8) if self.every == "weekly" else range(2)
        for days in back:
            day = today - timedelta(days=days)
            if self.every == "weekly" and day.weekday() != parse_day(self.day):
                continue
            due = wall_ms(day, at, zone)
            if due <= now:
                return due
        raise AssertionError("a week back (a day back, daily) always holds a digest time")

    def period_key(self, due: int, zone: ZoneInfo) -> str:
        return f"{datetime.fromtimestamp(due / 1000, zone):%Y-%m-%dT%H:%M}"
