"""What a person is told, and what the log says, when a listener fails: the words and the log line that
every surface shares (the bolt error handler in `bot/error_handler.py`, the `/sam` router), and the one way
of answering a person privately through bolt's `respond`.

Most failures are bugs of ours: one ERROR line with the traceback and a reference id, and the person gets
the same id. One kind is not: an answer that could not be delivered to the request's `response_url`
(unreachable, or not a URL Slack's SDK will post to). That URL comes with the request, so a failure to
reach it says nothing about samops: it is a WARNING, one line.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Respond
from slack_sdk.errors import SlackClientError

log = logging.getLogger("samops.bot")

NO_RESPONSE_URL = "respond is unsupported here as there is no response_url"  # bolt's own words
REFERENCE = "reference"  # the BoltContext key of a reference the listener already gave (the /sam router)


def is_answer_failure(error: BaseException) -> bool:
    """Delivering an answer through the request's response_url failed (not a bug of ours)."""
    return isinstance(error, OSError | SlackClientError) or str(error) == NO_RESPONSE_URL


def failure_text(reference: str) -> str:
    """What a person is told about a failure of ours: no details (they are in the log), the reference."""
    return f"Something went wrong on samops' side (reference `{reference}`)."


def log_failure(reference: str, what: str, error: BaseException) -> None:
    """The one ERROR line of a failure, with its traceback, under the reference the person was given."""
    log.error("%s: %s failed", reference, what, exc_info=error)


def respond_privately(respond: Respond, text: str, blocks: list[Any] | None = None) -> None:
    """Answer only the person who clicked or typed, below what they clicked (never replacing it)."""
    if blocks:
        respond(text=text, blocks=blocks, response_type="ephemeral", replace_original=False)
    else:
        respond(text=text, response_type="ephemeral", replace_original=False)


def respond_error(respond: Respond, reference: str) -> None:
    """Tell the person that samops failed them, with the reference of the ERROR line."""
    respond_privately(respond, failure_text(reference))
