"""Life-safety alarms: fire, panic (hold-up, duress), medical, gas and carbon monoxide. A silence never
holds one back; a maintenance window posts it marked "during maintenance … a test?" unless the window was
planned to hold them (`hold_life_safety`, for a fire-system test). The rule is here, once; the notifier's
discovery applies it (bot/notify/quiet.py) and the confirmations of `/sam maintenance` and Silence name it.

An alarm is life-safety when one of its fields (the spec's Activity fields: `violationName` by default,
`description`, `eventType`, `violationType` when configured) matches one of the globs (`*`, `?`, `[abc]`,
in any case) of a category. The defaults err on the side of posting: "*fire*" also matches "Fire exit door
forced", which is then posted during maintenance rather than held.

```toml
[life_safety]
fire = ["*fire*", "*smoke*", "*heat detector*"]   # a category's globs (replacing its defaults)
panic = ["*panic*", "*hold-up*", "*hold up*", "*holdup*", "*duress*"]
medical = ["*medical*"]
gas = ["*gas*", "*carbon monoxide*", "co", "co *", "* co", "* co *"]
fields = ["violationName"]                         # of violationName, description, eventType, violationType
```
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from core.alarms import Alarm

# The Activity fields of the spec a pattern may be matched against, as the spec spells them.
Field = Literal["violationName", "description", "eventType", "violationType"]
_ATTRIBUTE: dict[str, str] = {
    "violationName": "violation_name",
    "description": "description",
    "eventType": "event_type",
    "violationType": "violation_type",
}
CATEGORIES = ("fire", "panic", "medical", "gas")
# What the confirmations say is not held, in words.
WORDS = "fire, panic/hold-up/duress, medical, gas/CO"


def _globs(value: object) -> object:
    return [value] if isinstance(value, str) else value


class LifeSafetyConfig(BaseModel):
    """`[life_safety]`: each category's globs, and the fields they are matched against."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fire: tuple[str, ...] = ("*fire*", "*smoke*", "*heat detector*")
    panic: tuple[str, ...] = ("*panic*", "*hold-up*", "*hold up*", "*holdup*", "*duress*")
    medical: tuple[str, ...] = ("*medical*",)
    gas: tuple[str, ...] = ("*gas*", "*carbon monoxide*", "co", "co *", "* co", "* co *")
    # violationName alone by default: a description often names the panel or site ("… on Gas station"),
    # which would make every alarm of that site life-safety.
    fields: tuple[Field, ...] = ("violationName",)

    @field_validator("fire", "panic", "medical", "gas", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return _globs(value)

    @field_validator("fire", "panic", "medical", "gas")
    @classmethod
    def _not_blank(cls, globs: tuple[str, ...]) -> tuple[str, ...]:
        if any(not g.strip() for g in globs):
            raise ValueError("a pattern is empty")
        return tuple(g.casefold() for g in globs)

    def category(self, alarm: Alarm) -> str | None:
        """The first category (fire, panic, medical, gas) the alarm matches, None when it is not
        life-safety."""
        values = [getattr(alarm, _ATTRIBUTE[f]) for f in self.fields]
        texts = [v.casefold() for v in values if isinstance(v, str) and v]
        for name in CATEGORIES:
            globs: tuple[str, ...] = getattr(self, name)
            if any(fnmatchcase(text, glob) for text in texts for glob in globs):
                return name
        return None

    def is_life_safety(self, alarm: Alarm) -> bool:
        return self.category(alarm) is not None
