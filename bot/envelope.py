"""The shape a signed request body must have before bolt routes it.

The signature proves a body came from someone holding the signing secret, not that it is well formed:
bolt's matchers index into it (`body["actions"][0]["action_id"]`, `body["view"]["type"]`) and answer a
500 with a traceback at ERROR when a piece is missing or of another type. `problem(body)` checks those
pieces first, so the front can answer 400 instead. Only the structure bolt and our listeners rely on is
checked; values are read later, by `bot/payloads.py` and `bot/forms/`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

Text = Annotated[str, StringConstraints(max_length=4000)]
Url = Annotated[str, StringConstraints(pattern=r"^https?://[^\s]+$", max_length=2000)]


class _Shape(BaseModel):
    model_config = ConfigDict(extra="allow")


class _User(_Shape):
    id: Text


class _Action(_Shape):
    action_id: Text
    block_id: Text | None = None
    type: Text | None = None


class _View(_Shape):
    id: Text | None = None
    type: Text
    callback_id: Text | None = None
    private_metadata: Text | None = None
    state: dict[str, Any] | None = None


class _SlashCommand(_Shape):
    command: Text
    user_id: Text
    text: str = ""  # bounded by the body's size; the router answers text over its limit (bot/slash/parse.py)
    response_url: Url | None = None


class _Payload(_Shape):
    type: Text
    response_url: Url | None = None


class _Interactive(_Payload):
    user: _User | None = None


class _BlockActions(_Payload):
    user: _User
    actions: Annotated[list[_Action], Field(min_length=1)]
    view: _View | None = None

    @model_validator(mode="after")
    def _answerable(self) -> _BlockActions:
        # A click on a message is answered through its response_url; only a click inside a view has none.
        if self.view is None and self.response_url is None:
            raise ValueError("a click on a message carries a response_url")
        return self


class _ViewPayload(_Payload):
    user: _User
    view: _View


class _Event(_Shape):
    type: Text


class _EventCallback(_Shape):
    type: Text
    event: _Event


_INTERACTIVE: dict[str, type[_Shape]] = {
    "block_actions": _BlockActions,
    "view_submission": _ViewPayload,
    "view_closed": _ViewPayload,
}


def problem(body: object) -> str | None:
    """None when bolt can route `body` (bolt's parsed form), else which part is malformed (for a log line)."""
    if not isinstance(body, dict):
        return "the body is not an object"
    shape = _shape_of(body)
    if shape is None:
        return None  # a kind we do not listen to: bolt answers it as unhandled
    try:
        shape.model_validate(body)
    except ValidationError as err:
        first = err.errors()[0]
        return f"{shape.__name__.lstrip('_')}: {'.'.join(map(str, first['loc'])) or 'body'} {first['type']}"
    return None


def _shape_of(body: dict[str, Any]) -> type[_Shape] | None:
    if "ssl_check" in body:
        return None  # Slack's check of the endpoint's certificate: bolt answers it
    if "command" in body:
        return _SlashCommand
    kind = body.get("type")
    if not isinstance(kind, str):
        return _Interactive  # fails on `type`: every payload and event names its kind
    if kind == "event_callback":
        return _EventCallback
    return _INTERACTIVE.get(kind, _Interactive)
