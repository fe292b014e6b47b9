"""What the app does with an exception that escapes a listener.

Most are bugs of ours, logged at ERROR with the traceback. One kind is not: an answer that could not be
delivered to the request's `response_url` (unreachable, or not a URL Slack's SDK will post to). That URL
comes with the request, so a failure to reach it says nothing about samops: it is a WARNING, one line.
"""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackClientError

log = logging.getLogger("samops.bot")

NO_RESPONSE_URL = "respond is unsupported here as there is no response_url"  # bolt's own words


def is_answer_failure(error: BaseException) -> bool:
    """Delivering an answer through the request's response_url failed (not a bug of ours)."""
    return isinstance(error, OSError | SlackClientError) or str(error) == NO_RESPONSE_URL


def on_listener_error(error: Exception) -> None:
    """bolt's error handler (`app.error`): replaces bolt's default, which logs everything at ERROR."""
    if is_answer_failure(error):
        log.warning("could not answer through the request's response_url: %s", type(error).__name__)
    else:
        log.error("a listener failed", exc_info=error)
