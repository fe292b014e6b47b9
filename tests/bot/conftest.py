"""Fixtures every bot test module may use."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.slack_standin import SlackStandIn


@pytest.fixture(scope="module")
def slack() -> Iterator[SlackStandIn]:
    """A Slack stand-in for the module's bot (each module gets its own, so calls do not mix)."""
    with SlackStandIn() as standin:
        yield standin
