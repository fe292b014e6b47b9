"""Validation of what people type into the write commands and modals: ids, dates, times, lists, and the
one-line `/sam task update` form.

Pure functions. Every failure is a `FieldError` (a `UsageError`) naming the field, so a modal can show it
under that field and a slash command can answer it with the usage line. Nothing here talks to anything.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from bot.commands.registry import UsageError
from core.models import INT64_MAX

MAX_ID = INT64_MAX  # what SQLite and the service can hold
MAX_ID_DIGITS = len(str(MAX_ID))
MAX_NAME = 200
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"(\d{1,2}):(\d{2})")
_WORD = re.compile(r"[A-Za-z0-9_.@+-]{1,64}")
DAY_MS = 86_400_000


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
        raise FieldError(field_name, f"expected a number, got {_shown(repr(value))}")
    if not text.isascii() or not text.isdigit():
        raise FieldError(field_name, f"expected a number, got {_shown(text)}")
    if len(text.lstrip("0")) > MAX_ID_DIGITS:  # before int(): a 5,000-digit string must not reach it
        raise FieldError(field_name, f"{_shown(text)} is out of range")
    number = int(text)
    if not 0 < number <= MAX_ID:
        raise FieldError(field_name, f"{_shown(text)} is out of range (1 to {MAX_ID})")
    return number


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
        if not _WORD.fullmatch(part):
            raise FieldError(field_name, f"{_shown(part)} is not a valid entry")
    return list(dict.fromkeys(parts))


def parse_date(value: object, field_name: str) -> date:
    """A calendar date written YYYY-MM-DD."""
    text = as_text(value).strip()
    if not _DATE.fullmatch(text):
        raise FieldError(field_name, f"expected a date as YYYY-MM-DD, got {_shown(text)}")
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
        raise FieldError(field_name, f"expected a time as HH:MM, got {_shown(as_text(value))}")
    hours, minutes = int(match.group(1)), int(match.group(2))
    if hours > 23 or minutes > 59:
        raise FieldError(field_name, f"{value} is not a time of day")
    return (hours * 60 + minutes) * 60_000


def parse_day_of_week(value: object, field_name: str) -> int:
    text = as_text(value).strip()
    if text not in {"1", "2", "3", "4", "5", "6", "7"}:
        raise FieldError(field_name, f"day of week must be 1 (Monday) to 7 (Sunday), got {_shown(text)}")
    return int(text)


def parse_name(value: object, field_name: str) -> str:
    text = " ".join(as_text(value).split())
    if not text:
        raise FieldError(field_name, "must not be empty")
    if len(text) > MAX_NAME:
        raise FieldError(field_name, f"at most {MAX_NAME} characters")
    return text


def day_start_ms(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)


def day_end_ms(day: date) -> int:
    """The last millisecond of `day` (UTC): an expiry date means "through that day"."""
    return day_start_ms(day + timedelta(days=1)) - 1


def _shown(text: str) -> str:
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"“{text}”" if text else "nothing"


# -- the one-line task update ------------------------------------------------------------------------------

TASK_USAGE = (
    '/sam task update <taskId> [name="..."] [type=N] [dates=YYYY-MM-DD,...] [channels=a,b] '
    "[audience=a,b] [selection=WORD] [resources=ID,...] [users=ID,...]"
)
TASK_KEYS = ("name", "type", "dates", "channels", "audience", "selection", "resources", "users")


@dataclass(frozen=True)
class TaskUpdate:
    """What a person asked to change in a task; None = keep what is known."""

    task_id: int
    name: str | None = None
    task_type: int | None = None
    dates: list[str] | None = None
    channels: list[str] | None = None
    audience: list[str] | None = None
    selection: str | None = None
    resources: list[int] | None = None
    users: list[int] | None = None
    given: tuple[str, ...] = field(default=())  # the keys that were typed, in order

    def changes(self) -> dict[str, Any]:
        """The given fields, by their one-line key."""
        values = {
            "name": self.name,
            "type": self.task_type,
            "dates": self.dates,
            "channels": self.channels,
            "audience": self.audience,
            "selection": self.selection,
            "resources": self.resources,
            "users": self.users,
        }
        return {k: values[k] for k in self.given}


def split_words(text: str) -> list[str]:
    """Split like a shell (quotes group words); an unbalanced quote is a usage error, not a crash."""
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"could not read the arguments: {exc}") from None


def parse_task_args(args: Sequence[str]) -> TaskUpdate:
    """`["42", "name=Night patrol", "dates=2026-12-01"]` → TaskUpdate. Raises FieldError / UsageError."""
    if not args:
        raise FieldError("taskId", "give the task id")
    task_id = parse_id(args[0], "taskId")
    values: dict[str, str] = {}
    for word in _rejoin(args[1:]):
        key, sep, value = word.partition("=")
        key = key.strip().lower()
        if not sep:
            raise UsageError(f"expected key=value, got {_shown(word)}")
        if key not in TASK_KEYS:
            raise UsageError(f"unknown field {_shown(key)}; fields: {', '.join(TASK_KEYS)}")
        if key in values:
            raise FieldError(key, "given twice")
        values[key] = value.strip().strip('"').strip("'") if value.strip()[:1] in "\"'" else value.strip()
    return task_update_from(task_id, values)


def task_update_from(task_id: int, values: dict[str, str]) -> TaskUpdate:
    """Validate raw field values (one-line keys → text); used by the one-line form and the modal alike."""
    parsers = {
        "name": lambda v: parse_name(v, "name"),
        "type": lambda v: _parse_type(v),
        "dates": lambda v: parse_dates(v, "dates"),
        "channels": lambda v: parse_word_list(v, "channels"),
        "audience": lambda v: parse_word_list(v, "audience"),
        "selection": lambda v: _parse_selection(v),
        "resources": lambda v: parse_id_list(v, "resources"),
        "users": lambda v: parse_id_list(v, "users"),
    }
    parsed = {key: parsers[key](value) for key, value in values.items()}
    return TaskUpdate(
        task_id=task_id,
        name=parsed.get("name"),
        task_type=parsed.get("type"),
        dates=parsed.get("dates"),
        channels=parsed.get("channels"),
        audience=parsed.get("audience"),
        selection=parsed.get("selection"),
        resources=parsed.get("resources"),
        users=parsed.get("users"),
        given=tuple(values),
    )


def task_update_errors(task_id: int, values: dict[str, str]) -> dict[str, str]:
    """Every field's error at once (a modal shows them all), empty when all is well."""
    errors: dict[str, str] = {}
    for key, value in values.items():
        try:
            task_update_from(task_id, {key: value})
        except FieldError as exc:
            errors[exc.field] = exc.message
    return errors


def _parse_type(value: str) -> int:
    text = value.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise FieldError("type", f"expected a task type number, got {_shown(text)}")
    return int(text)


def _parse_selection(value: str) -> str:
    text = value.strip()
    if not _WORD.fullmatch(text):
        raise FieldError("selection", f"expected one word, got {_shown(text)}")
    return text


def _rejoin(words: Iterable[str]) -> list[str]:
    """Glue `name="Night` `patrol"` back together when the router split on spaces without honouring quotes,
    and `name=Night` `patrol` (a value's continuation words that hold no `=`)."""
    out: list[str] = []
    for word in words:
        if out and "=" not in word:
            out[-1] = f"{out[-1]} {word}"
        else:
            out.append(word)
    return out


def task_body(
    update: TaskUpdate, known: dict[str, Any] | None, org_user_id: int | None = None
) -> dict[str, Any]:
    """The operation-5 body: the last known state of the task with the requested changes on top.

    Fields the service requires but nobody knows yet are sent empty rather than invented.
    """
    base: dict[str, Any] = dict(known or {})
    options = dict(base.get("notificationOptions") or {})
    if update.channels is not None:
        options["channels"] = update.channels
    if update.audience is not None:
        options["audience"] = update.audience
    options.setdefault("channels", [])
    options.setdefault("audience", [])
    if org_user_id is not None:
        options.setdefault("userId", org_user_id)
    body: dict[str, Any] = {
        "taskId": update.task_id,
        "taskName": update.name if update.name is not None else base.get("taskName"),
        "taskType": update.task_type if update.task_type is not None else base.get("taskType"),
        "taskDates": update.dates if update.dates is not None else base.get("taskDates", []),
        "notificationOptions": options,
        "selection": update.selection if update.selection is not None else base.get("selection"),
        "resources": update.resources if update.resources is not None else base.get("resources", []),
        "users": update.users if update.users is not None else base.get("users", []),
        "combinedData": base.get("combinedData", []),
    }
    if base.get("userType") is not None:
        body["userType"] = base["userType"]
    return {k: v for k, v in body.items() if v is not None}


# -- the access grant modal ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grant:
    """A checked operation-4 request, short of the user and organization ids."""

    groups: dict[int, bool]  # every privilege group → authorized
    panels: list[int]
    validity_start: int | None = None  # epoch-ms
    expiration: int | None = None  # epoch-ms
    period: list[dict[str, int]] = field(default_factory=list)  # {dayOfWeek, start, end}

    def period_words(self) -> str:
        dates = []
        if self.validity_start is not None:
            dates.append(f"from {datetime.fromtimestamp(self.validity_start / 1000, UTC):%Y-%m-%d}")
        if self.expiration is not None:
            dates.append(f"until {datetime.fromtimestamp(self.expiration / 1000, UTC):%Y-%m-%d}")
        if self.period:
            first = self.period[0]
            days = ",".join(str(p["dayOfWeek"]) for p in self.period)
            dates.append(f"days {days} {_hhmm(first['start'])}-{_hhmm(first['end'])} UTC")
        return ", ".join(dates) or "no time limits"


def _hhmm(ms: int) -> str:
    minutes = ms // 60_000
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def grant_from_values(
    values: dict[str, Any], group_ids: Sequence[int]
) -> tuple[Grant | None, dict[str, str]]:
    """Check the grant modal's values; (Grant, {}) when valid, else (None, {field: error}) for every bad
    field at once. Nothing is sent unless all of it is right."""
    errors: dict[str, str] = {}

    def check(field_name: str, parse: Any) -> Any:
        try:
            return parse()
        except FieldError as exc:
            errors[field_name] = exc.message
            return None

    chosen = set(check("groups", lambda: _chosen_ids(values.get("groups"), "groups")) or [])
    if chosen - set(group_ids):
        errors["groups"] = "unknown privilege group"
    groups = {gid: gid in chosen for gid in group_ids}
    panels = check("panels", lambda: _panel_ids(values.get("panels"))) or []
    start_day = check(
        "validity_start", lambda: _optional_date(values.get("validity_start"), "validity_start")
    )
    expiry_day = check("expiry", lambda: _optional_date(values.get("expiry"), "expiry"))
    if start_day and expiry_day and expiry_day < start_day:
        errors["expiry"] = "must not be before the start date"
    days = (
        check(
            "days", lambda: [parse_day_of_week(d, "days") for d in parse_choices(values.get("days"), "days")]
        )
        or []
    )
    start = check("window_start", lambda: _optional_time(values.get("window_start"), "window_start"))
    end = check("window_end", lambda: _optional_time(values.get("window_end"), "window_end"))
    if days and "window_start" not in errors and "window_end" not in errors:
        if start is None:
            errors["window_start"] = "give the start time (HH:MM) of the chosen days"
        if end is None:
            errors["window_end"] = "give the end time (HH:MM) of the chosen days"
        if start is not None and end is not None and end <= start:
            errors["window_end"] = "must be later than the start time"
    elif not days and (start is not None or end is not None):
        errors["days"] = "choose the days these times apply to"
    if errors:
        return None, errors
    period = [{"dayOfWeek": d, "start": start, "end": end} for d in sorted(set(days))] if days else []
    return (
        Grant(
            groups=groups,
            panels=panels,
            validity_start=day_start_ms(start_day) if start_day else None,
            expiration=day_end_ms(expiry_day) if expiry_day else None,
            period=period,  # type: ignore[arg-type]
        ),
        {},
    )


def parse_choices(value: object, field_name: str) -> list[str]:
    """A multiple choice's option values as Slack sends them: a list of strings (None: nothing chosen)."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FieldError(field_name, "not a choice this form offered; open the form again")
    return value


def _chosen_ids(value: object, field_name: str) -> list[int]:
    return list(dict.fromkeys(parse_id(v, field_name) for v in parse_choices(value, field_name)))


def _panel_ids(value: object) -> list[int]:
    """Panels: chosen in a multi-select, or typed as `1001,1002` where there are too many to list."""
    panels = parse_id_list(value, "panels") if isinstance(value, str) else _chosen_ids(value, "panels")
    if not panels:
        raise FieldError("panels", "give at least one id")
    return panels


def _optional_date(value: object, field_name: str) -> date | None:
    return parse_date(value, field_name) if value else None


def _optional_time(value: object, field_name: str) -> int | None:
    return parse_time(value, field_name) if value else None


# -- the camera modal ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CameraForm:
    name: str
    brand: str
    serial: str
    subscription_id: int | None
    security_code: str = field(repr=False)
    nc_code: str | None = field(repr=False)

    def summary(self) -> str:
        """For the audit log and answers: the codes are never part of it."""
        sub = f", subscription {self.subscription_id}" if self.subscription_id else ""
        return f"camera {self.name!r} ({self.brand}, serial {self.serial}{sub})"


_SERIAL = re.compile(r"[A-Za-z0-9._-]{1,64}")


def camera_from_values(values: dict[str, Any]) -> tuple[CameraForm | None, dict[str, str]]:
    errors: dict[str, str] = {}

    def check(field_name: str, parse: Any) -> Any:
        try:
            return parse()
        except FieldError as exc:
            errors[field_name] = exc.message
            return None

    name = check("name", lambda: parse_name(values.get("name"), "name"))
    brand = check("brand", lambda: parse_name(values.get("brand"), "brand"))
    serial = as_text(values.get("serial")).strip()
    if not _SERIAL.fullmatch(serial):
        errors["serial"] = "letters, digits, dot, dash or underscore (up to 64)"
    security = as_text(values.get("security_code")).strip()
    if not security:
        errors["security_code"] = "must not be empty"
    nc_code = as_text(values.get("nc_code")).strip() or None
    sub_text = as_text(values.get("subscription")).strip()
    subscription = check("subscription", lambda: parse_id(sub_text, "subscription") if sub_text else None)
    if errors:
        return None, errors
    return CameraForm(name, brand, serial, subscription, security, nc_code), {}
