"""What a person is told, and what the log says, when a listener fails: the words and the log line that
every surface shares (the bolt error handler in `bot/error_handler.py`, the `/sam` router), and the one way
of answering a person privately through bolt's `respond`.

Most failures are bugs of ours: one ERROR line with the traceback and a reference id, and the person gets
the same id. Two kinds are not. An answer that could not be delivered to the request's `response_url`
(unreachable, or not a URL Slack's SDK will post to): that URL comes with the request, so a failure to
reach it says nothing about samops: it is a WARNING, one line. And samops' records kept locked by other
writers past the wait (`core.cache.BusyError`, a flood of commands on a busy machine): the write was not
begun, so nothing was done; the person is told "busy, try again", the refusal is audited when the records
let it be (`record_busy`), and the log has one WARNING line (docs/security.md).
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Respond
from slack_sdk.errors import SlackClientError

from core import cache
from core.sqlite_lib import sqlite_utils

log = logging.getLogger("samops.bot")

NO_RESPONSE_URL = "respond is unsupported here as there is no response_url"  # bolt's own words
REFERENCE = "reference"
# How long a busy refusal's own audit row may wait for the lock: the person has already waited out the
# busy timeout once, and is owed an answer more than this row.
BUSY_AUDIT_WAIT_MS = 1_000  # the BoltContext key of a reference the listener already gave (the /sam router)


def is_answer_failure(error: BaseException) -> bool:
    """Delivering an answer through the request's response_url failed (not a bug of ours)."""
    return isinstance(error, OSError | SlackClientError) or str(error) == NO_RESPONSE_URL


def failure_text(reference: str) -> str:
    """What a person is told about a failure of ours: no details (they are in the log), the reference."""
    return f"Something went wrong on samops' side (reference `{reference}`)."


def busy_text(reference: str) -> str:
    """What a person is told when samops' records stayed locked: nothing was done, so trying again is safe."""
    return (
        "samops' records are busy (many changes at once); nothing was done. Try again in a moment"
        f" (ref `{reference}`)."
    )


def record_busy(
    db: sqlite_utils.Database, *, slack_user: str, command: str, org_id: int | None, reference: str
) -> None:
    """The WARNING line of a write refused as busy, and its audit row when the lock is had within
    BUSY_AUDIT_WAIT_MS (else the line says so). `command` is samops' words for the write, no secret."""
    try:
        with cache.write_transaction(db, wait_ms=BUSY_AUDIT_WAIT_MS):
            cache.record_audit(
                db,
                slack_user=slack_user,
                command=command,
                org_id=org_id,
                outcome="busy",
                summary="refused: samops' records were busy; nothing was done",
                reference=reference,
            )
    except cache.BusyError:
        log.warning("%s: %s by %s refused, records busy (its audit row too)", reference, command, slack_user)
        return
    log.warning("%s: %s by %s refused, records busy", reference, command, slack_user)


def log_failure(reference: str, what: str, error: BaseException) -> None:
    """The one ERROR line of a failure, with its traceback, under the reference the person was given."""
    log.error("%s: %s failed", reference, what, exc_info=error)


def respond_privately(respond: Respond, text: str, blocks: list[Any] | None = None) -> None:
    """Answer only the person who clicked or typed, below what they clicked (never replacing it)."""
    if blocks:
        respond(text=text, blocks=blocks, response_type="ephemeral", replace_original=False)
    else:
        respond(text=text, response_type="ephemeral", replace_original=False)
