"""Validation of what people type into the write commands and modals: ids, dates, times, lists, names;
and reading a modal's submission back.

Pure functions. Every failure is a `FieldError` (a `UsageError`) naming the field, so a modal can show it
under that field and a slash command can answer it with the usage line. Nothing here talks to anything.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import TypeVar

from bot.slash.registry import UsageError
from core.models import INT64_MAX
from core.text import is_control

T = TypeVar("T")

MAX_ID = INT64_MAX  # what SQLite and the service can hold
MAX_ID_DIGITS = len(str(MAX_ID))
MAX_NAME = 200
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"(\d{1,2}):(\d{2})")
WORD = re.compile(r"[A-Za-z0-9_.@+-]{1,64}")
LINE_WHITESPACE = frozenset("\t\n\v\f\r")  # control characters that are only layout: made spaces


class FieldError(UsageError):
    """A bad value in one named field."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message


def parse_id(value: object, field_name: str) -> int:
    """The one id parser: a positive int64 typed by a person or carried in a payload.

    Forgiving where people are (`#42`, surrounding spaces, an int already parsed from JSON), strict where it
    matters: ASCII digits only (`²` and `٣` are digits to Python, not ids), no zero, nothing beyond int64
    (SQLite and the service hold no more). Raises `FieldError` naming the field.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value)
    elif isinstance(value, str):
        text = value.strip().removeprefix("#").strip()
    else:
        raise FieldError(field_name, f"expected a number, got {shown(repr(value))}")
    if not text.isascii() or not text.isdigit():
        raise FieldError(field_name, f"expected a number, got {shown(text)}")
    if len(text.lstrip("0")) > MAX_ID_DIGITS:  # before int(): a 5,000-digit string must not reach it
        raise FieldError(field_name, f"{shown(text)} is out of range")
    number = int(text)
    if not 0 < number <= MAX_ID:
        raise FieldError(field_name, f"{shown(text)} is out of range (1 to {MAX_ID})")
    return number


def one_id(args: tuple[str, ...], field_name: str, usage: str) -> int:
    """The one id a command takes as its only argument; a `UsageError` saying `usage` otherwise."""
    if len(args) != 1:
        raise UsageError(usage)
    return parse_id(args[0], field_name)


def no_words_but_org(args: tuple[str, ...], command: str) -> None:
    """For a command that takes nothing but `org:<id>` (which routing has already taken out of `args`)."""
    if args:
        raise UsageError(f"`/sam {command}` takes no other words (`org:<id>` picks an organization)")


def known_org(org_id: int | None, known: list[int]) -> None:
    """An `org:<id>` with no panel in the cache is a typo, not an empty report: name the cached ones."""
    if org_id is not None and org_id not in known:
        named = ", ".join(str(o) for o in sorted(known)) or "none cached yet"
        raise UsageError(f"org:{org_id} is not an organization samops knows (its organizations: {named})")


def as_text(value: object) -> str:
    """A submitted value as text whatever its JSON type: a tampered payload may put a list, a number or null
    where a string belongs, and the field's parser then names what is wrong instead of crashing."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join(as_text(v) for v in value)
    return str(value)


def looks_like_id(text: str) -> bool:
    """Whether a word is meant as an id (`1001`, `#1001`) rather than a name; `parse_id` then checks it."""
    word = text.strip().removeprefix("#")
    return word.isascii() and word.isdigit()


def parse_id_list(value: object, field_name: str, *, allow_empty: bool = True) -> list[int]:
    """`1,2, 3` → [1, 2, 3]; duplicates dropped, order kept."""
    parts = [p.strip() for p in as_text(value).split(",") if p.strip()]
    if not parts and not allow_empty:
        raise FieldError(field_name, "give at least one id")
    return list(dict.fromkeys(parse_id(p, field_name) for p in parts))


def parse_word_list(value: object, field_name: str) -> list[str]:
    """`email,sms` → ["email", "sms"]: short words of letters, digits and `_.@+-`."""
    parts = [p.strip() for p in as_text(value).split(",") if p.strip()]
    for part in parts:
        if not WORD.fullmatch(part):
            raise FieldError(field_name, f"{shown(part)} is not a valid entry")
    return list(dict.fromkeys(parts))


def parse_date(value: object, field_name: str) -> date:
    """A calendar date written YYYY-MM-DD."""
    text = as_text(value).strip()
    if not _DATE.fullmatch(text):
        raise FieldError(field_name, f"expected a date as YYYY-MM-DD, got {shown(text)}")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise FieldError(field_name, f"{text} is not a real date") from None


def parse_dates(value: object, field_name: str) -> list[str]:
    """`2026-12-01,2026-12-02` → the dates, checked, as YYYY-MM-DD strings; at least one."""
    parts = [p.strip() for p in as_text(value).split(",") if p.strip()]
    if not parts:
        raise FieldError(field_name, "give at least one date as YYYY-MM-DD")
    return list(dict.fromkeys(parse_date(p, field_name).isoformat() for p in parts))


def parse_time(value: object, field_name: str) -> int:
    """`HH:MM` (24-hour) → milliseconds since midnight, as the privilege windows count them."""
    match = _TIME.fullmatch(as_text(value).strip())
    if not match:
        raise FieldError(field_name, f"expected a time as HH:MM, got {shown(as_text(value))}")
    hours, minutes = int(match.group(1)), int(match.group(2))
    if hours > 23 or minutes > 59:
        raise FieldError(field_name, f"{value} is not a time of day")
    return (hours * 60 + minutes) * 60_000


def parse_day_of_week(value: object, field_name: str) -> int:
    text = as_text(value).strip()
    if text not in {"1", "2", "3", "4", "5", "6", "7"}:
        raise FieldError(field_name, f"day of week must be 1 (Monday) to 7 (Sunday), got {shown(text)}")
    return int(text)


def free_text(value: object, field_name: str) -> str:
    """Text a person typed, as typed: layout (line breaks, tabs) allowed; any other control character or a
    bidi control refused, naming the field and the character."""
    raw = as_text(value)
    if hidden := next((c for c in raw if c not in LINE_WHITESPACE and is_control(c)), None):
        raise FieldError(field_name, f"must not contain control characters (found U+{ord(hidden):04X})")
    # Half of a UTF-16 pair, alone (JSON's "\ud800"): no character at all, and no UTF-8 encodes it, so
    # SQLite and Slack would refuse the write after the form had been accepted.
    if lone := next((c for c in raw if unicodedata.category(c) == "Cs"), None):
        raise FieldError(field_name, f"must not contain a lone surrogate (found U+{ord(lone):04X})")
    return raw


def parse_name(value: object, field_name: str) -> str:
    """Free text for the service (a name, a sensor description): runs of whitespace, line breaks and tabs
    included, become one space; any other control character or a bidi control is refused, naming the field
    and the character, rather than sent on unseen or silently dropped."""
    raw = free_text(value, field_name)
    text = " ".join(raw.split())
    if not text:
        raise FieldError(field_name, "must not be empty")
    if len(text) > MAX_NAME:
        raise FieldError(field_name, f"at most {MAX_NAME} characters")
    return text


def day_start_ms(day: date, zone: tzinfo = UTC) -> int:
    """The first millisecond of `day` on the wall clock of `zone` (the organization's)."""
    return int(datetime(day.year, day.month, day.day, tzinfo=zone).timestamp() * 1000)


def day_end_ms(day: date, zone: tzinfo = UTC) -> int:
    """The last millisecond of `day` in `zone`: an expiry date means "through that day"."""
    return day_start_ms(day + timedelta(days=1), zone) - 1


def shown(text: str) -> str:
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"“{text}”" if text else "nothing"


def parse_choices(value: object, field_name: str) -> list[str]:
    """A multiple choice's option values as Slack sends them: a list of strings (None: nothing chosen)."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FieldError(field_name, "not a choice this form offered; open the form again")
    return value


def collect(errors: dict[str, str], field_name: str, parse: Callable[[], T]) -> T | None:
    """`parse()`, or None with its message in `errors[field_name]`: a modal shows every bad field at once."""
    try:
        return parse()
    except FieldError as exc:
        errors[field_name] = exc.message
        return None
