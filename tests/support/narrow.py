"""Narrowing for tests: the service's models leave every field optional (the spec promises none of them),
while a test knows the simulator fills the ones it reads; slack_sdk's answers may be bytes, while a test knows
the stand-in answered JSON."""

from __future__ import annotations

from typing import Any, TypeVar

from slack_sdk.web import SlackResponse

T = TypeVar("T")


def known(value: T | None) -> T:
    """`value`, which the test expects to be there: a failure that says so (not an AttributeError on None)
    when it is not."""
    assert value is not None, "expected a value, got None"
    return value


def json_of(response: SlackResponse) -> dict[str, Any]:
    """A Slack Web API answer's JSON. slack_sdk reads `response[key]` as maybe None: its data may be bytes."""
    assert isinstance(response.data, dict), f"expected a JSON answer, got {type(response.data).__name__}"
    return response.data
