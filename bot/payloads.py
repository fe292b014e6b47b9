"""The one layer that reads what Slack hands back to us: button values and modal `private_metadata`.

These values were written by samops, but they come back inside a request anyone holding the message can
replay or alter, so each is read through a pydantic model: ids are strict int64 (`Id`), strings are bounded,
anything else is a `PayloadError` with a sentence for the person, never an exception from deep inside a
handler. What people type (slash-command words, form fields) is read by `bot/forms/fields.py`, whose
`parse_id` holds the same bounds.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
)

from bot.render.alarms import SILENCE_MINUTES
from bot.render.forms import MAX_PAYLOAD_VALUE

# The bound of `bot/forms/fields.MAX_ID`, taken from core: importing `bot.forms` here would load the forms,
# whose submissions read these payloads.
from core.models import INT64_MAX as MAX_ID
from core.reference import is_reference
from core.timefmt import UTC_ZONE, zone

Id = Annotated[int, Field(strict=True, ge=1, le=MAX_ID)]
Words = Annotated[str, StringConstraints(max_length=500)]
SlackId = Annotated[str, StringConstraints(max_length=64)]

T = TypeVar("T")
_SLACK_USER = re.compile(r"[A-Za-z0-9_]{1,64}")  # safe inside `<@...>` and a log line


class PayloadError(ValueError):
    """A button value or modal metadata that is not one samops wrote; the message is safe to show."""


class _Payload(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


# -- buttons -------------------------------------------------------------------------------------------------


class RevokeValue(_Payload):
    op: Literal["revoke"]
    user: Id
    panel: Id
    org: Id | None = None
    who: Words | None = None
    where: Words | None = None


class DeleteUserValue(_Payload):
    op: Literal["delete_user"]
    user: Id
    org: Id | None = None
    who: Words | None = None


ConfirmValue = Annotated[RevokeValue | DeleteUserValue, Field(discriminator="op")]


def _offered_duration(minutes: int) -> int:
    if minutes not in SILENCE_MINUTES:
        raise ValueError("not a duration the card offers")
    return minutes


class SilenceValue(_Payload):
    r: Id  # the panel
    m: Annotated[int, Field(strict=True), AfterValidator(_offered_duration)]  # minutes


# -- modal metadata ---------------------------------------------------------------------------------------


def _zone_name(name: str) -> str:
    if zone(name) is None:
        raise ValueError("not a time zone")
    return name


def _reference_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and is_reference(value) else None


class ModalMeta(_Payload):
    """What every write modal carries (bot/modals.py `modal_meta`)."""

    channel: SlackId | None = None
    response_url: Annotated[str, StringConstraints(max_length=3000, pattern=r"^https?://")] | None = None
    # The command's reference id, carried to the write so both share one. Anything but an id samops makes
    # (`R-` and six hex digits) is not used: the write gets a fresh one, and nothing else is posted or stored.
    ref: Annotated[str | None, BeforeValidator(_reference_or_none)] = None


class AccessMeta(ModalMeta):
    user: Id
    org: Id
    groups: Annotated[list[Id], Field(min_length=1, max_length=500)]
    tz: Annotated[str, AfterValidator(_zone_name)] = UTC_ZONE  # the organization's, which the form showed


class TaskMeta(ModalMeta):
    task: Id
    org: Id | None = None
    tz: Annotated[str, AfterValidator(_zone_name)] = UTC_ZONE  # the organization's: which day is today
    # The fields the form showed filled (what samops last sent): emptied, a list field means "none"; a field
    # the form showed empty and left empty is not sent (bot/forms/task.py `task_values`).
    prefilled: Annotated[tuple[Words, ...], Field(max_length=20)] = ()


class CameraMeta(ModalMeta):
    org: Id | None = None


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _adapter(shape: Any) -> TypeAdapter[Any]:
    if shape not in _ADAPTERS:
        _ADAPTERS[shape] = TypeAdapter(shape)
    return _ADAPTERS[shape]


def read_json(shape: type[T] | Any, raw: object, what: str) -> T:
    """`raw` (a JSON string from Slack) read as `shape`; PayloadError naming `what` otherwise."""
    if not isinstance(raw, str) or not raw or len(raw) > MAX_PAYLOAD_VALUE:
        raise PayloadError(f"{what} is not one samops made; run the command again.")
    try:
        return _adapter(shape).validate_json(raw)
    except ValidationError:
        raise PayloadError(f"{what} is not one samops made; run the command again.") from None


def read_id(raw: object, what: str) -> int:
    """A bare id (a button whose value is one id, as Panel status); PayloadError otherwise."""
    if isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) <= len(str(MAX_ID)):
        number = int(raw)
        if 0 < number <= MAX_ID:
            return number
    raise PayloadError(f"{what} names no valid id.")


def part(body: dict[str, Any], key: str) -> dict[str, Any]:
    """The object at `body[key]` (`container`, `message`, `team`, ...); {} when absent or of another shape,
    which a signed request may carry where Slack sends an object."""
    value = body.get(key)
    return value if isinstance(value, dict) else {}


def is_user_id(value: object) -> bool:
    """Whether `value` can be a Slack user id (short letters, digits, `_`): anything else (10 kB, markup,
    NUL, empty) is never passed to Slack (users.info, views.publish) nor kept."""
    return isinstance(value, str) and _SLACK_USER.fullmatch(value) is not None


def slack_user(body: dict[str, Any]) -> str:
    """The clicking or submitting user's id ("" when the payload carries none: nobody, so no role)."""
    user = body.get("user")
    value = user.get("id") if isinstance(user, dict) else None
    return value if isinstance(value, str) and _SLACK_USER.fullmatch(value) else ""


def read_event_id(raw: object) -> str:
    """An alarm's eventId as the Acknowledge button carries it: a short printable string."""
    if isinstance(raw, str) and 0 < len(raw) <= 200 and raw.isprintable():
        return raw
    raise PayloadError("This button names no alarm.")
