"""Reference ids: the short id a person is shown with a failure or a write (`R-3F9A2C`), and that the log
carries too, so one search finds the line. The bot and the dashboard use the same shape."""

from __future__ import annotations

import re
import secrets


def new_reference() -> str:
    """A fresh `R-` and six upper-case hex digits (16.7 million values: enough to tell a day's apart)."""
    return "R-" + secrets.token_hex(3).upper()


REFERENCE = re.compile(r"R-[0-9A-F]{6}")


def is_reference(value: object) -> bool:
    """Whether `value` is a reference id as `new_reference` makes them: the only shape samops posts or stores
    as one, whatever a request carried instead."""
    return isinstance(value, str) and REFERENCE.fullmatch(value) is not None
