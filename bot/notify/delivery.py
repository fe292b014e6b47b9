"""Getting messages out: Slack through slack_sdk's WebClient, paced per channel and obeying 429 Retry-After,
or the console when there are no Slack credentials.

Nothing here sleeps: a channel whose next slot is not yet due answers `NotYet`, so one busy channel never
holds up another; the service loop comes back when the earliest slot is due.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Protocol, TextIO

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.render.common import Rendered


class NotYet(Exception):
    """The channel's next slot is not due yet (pacing, or a 429's Retry-After)."""

    def __init__(self, wait: float) -> None:
        super().__init__(f"next slot in {wait:.2f} s")
        self.wait = wait


class DeliveryError(Exception):
    """Slack refused or could not be reached; the message stays pending and is tried again later."""


class Delivery(Protocol):
    console: bool

    def post(
        self, channel: str, message: Rendered, thread_ts: str | None = None, ref: str | None = None
    ) -> str | None: ...

    def update(self, channel: str, ts: str, message: Rendered) -> None: ...

    def wait(self, channel: str, kind: str = "post") -> float: ...


class Pacer:
    """The earliest time each (channel, kind) may be used again: spacing of 1/rate, pushed back by 429s."""

    def __init__(self, per_second: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.spacing = 1.0 / per_second
        self.clock = clock
        self._next: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def wait(self, channel: str, kind: str) -> float:
        with self._lock:
            return max(0.0, self._next.get((channel, kind), 0.0) - self.clock())

    def take(self, channel: str, kind: str) -> None:
        """Use the slot now (raises NotYet if it is not due)."""
        with self._lock:
            now = self.clock()
            due = self._next.get((channel, kind), 0.0)
            if due > now:
                raise NotYet(due - now)
            self._next[(channel, kind)] = now + self.spacing

    def push_back(self, channel: str, kind: str, seconds: float) -> None:
        with self._lock:
            key = (channel, kind)
            self._next[key] = max(self._next.get(key, 0.0), self.clock() + seconds)


class SlackDelivery:
    console = False

    def __init__(self, client: WebClient, posts_per_second: float = 1.0) -> None:
        self.client = client
        self.pacer = Pacer(posts_per_second)
        self.throttled = 0  # 429s received, for diagnostics

    def wait(self, channel: str, kind: str = "post") -> float:
        return self.pacer.wait(channel, kind)

    def post(
        self, channel: str, message: Rendered, thread_ts: str | None = None, ref: str | None = None
    ) -> str | None:
        """Post; Slack's ts names the message (`ref` is a console card's, unused here)."""
        return str(self._post(channel, message, thread_ts)["ts"])

    def post_direct(self, user: str, message: Rendered) -> tuple[str, str]:
        """A direct message to `user`: chat.postMessage with the user's id as its channel (Slack opens the
        app's DM with them; no conversations.open, no im:write). Returns the DM's (channel, ts), where a click
        on its buttons comes from. Paced per person like a channel."""
        response = self._post(user, message)
        return str(response.get("channel") or user), str(response["ts"])

    def _post(self, channel: str, message: Rendered, thread_ts: str | None = None) -> dict:
        self.pacer.take(channel, "post")
        return self._call(
            channel,
            "post",
            lambda: self.client.chat_postMessage(
                channel=channel,
                text=message.text,
                attachments=message.attachments or None,
                blocks=message.blocks or None,
                thread_ts=thread_ts,
                reply_broadcast=False if thread_ts else None,
                unfurl_links=False,
            ),
        )

    def update(self, channel: str, ts: str, message: Rendered) -> None:
        self.pacer.take(channel, "update")
        self._call(
            channel,
            "update",
            lambda: self.client.chat_update(
                channel=channel,
                ts=ts,
                text=message.text,
                attachments=message.attachments,
                blocks=message.blocks,
            ),
        )

    def _call(self, channel: str, kind: str, call: Callable[[], object]) -> dict:
        try:
            return call()  # type: ignore[return-value]  # a SlackResponse, read like the dict it wraps
        except SlackApiError as err:
            if err.response.status_code == 429:
                self.throttled += 1
                retry_after = float(err.response.headers.get("Retry-After", 1) or 1)
                self.pacer.push_back(channel, kind, retry_after)
                raise NotYet(retry_after) from None
            raise DeliveryError(f"slack: {err.response.get('error', 'error')}") from None
        except (SlackClientError, OSError) as err:
            raise DeliveryError(f"slack unreachable: {type(err).__name__}") from None


class ConsoleDelivery:
    """No Slack credentials: every message is printed as text (and the outbox still records it)."""

    console = True

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self._lock = threading.Lock()

    def wait(self, channel: str, kind: str = "post") -> float:
        return 0.0

    def post(
        self, channel: str, message: Rendered, thread_ts: str | None = None, ref: str | None = None
    ) -> str | None:
        """Print; a card's `ref` (core.read.console_ref) numbers its buttons for `samops slash --click`."""
        where = f"#{channel}" + (" (thread)" if thread_ts else "")
        self._show(f"--- {where} ---\n{message.console(ref)}\n")
        return None

    def update(self, channel: str, ts: str, message: Rendered) -> None:
        self._show(f"--- #{channel} (update) ---\n{message.console()}\n")

    def _show(self, text: str) -> None:
        """The program's output in place of Slack (not a log line: it is what would have been posted)."""
        with self._lock:
            self.out.write(text + "\n")
            self.out.flush()
