"""`samops slash "/sam panel 1001" [--as USER_ID] [--submit FIELD=VALUE ...]`: be Slack for one slash
command, and for the form it opens.

Sends the form body Slack would send, signed with the app's signing secret (X-Slack-Signature v0 over
`v0:<timestamp>:<body>`), serves the command's `response_url` on a free loopback port, waits for the
answer(s) and prints them as text. A command that opens a form (a modal) answers, in a local run, with the
form and its fields; `--submit` fills it (FIELD=VALUE for each field to set, the others keep their initial
values) and submits it as a view_submission, signed alike, then prints the answer. Exit 0 when an answer
came, 1 on a timeout, an HTTP error or a form the bot refused, 2 on a usage error.

`--click CARD BUTTON` and `--cards` press the buttons of the cards the notifier printed on the console
(bot/cli/click.py), through the same signed requests, response_url and `--submit`.
"""

from __future__ import annotations

import argparse
import json
import queue
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlencode

import httpx
from slack_sdk.signature import SignatureVerifier

from bot.cli import started
from bot.render.common import blocks_to_text, terminal_text
from bot.secrets import read_local_secret
from core.settings import SLASH_USER, Settings

LINGER_S = 0.5  # after the first answer, how long to wait for more (a command may answer twice)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="samops slash",
        description="Send a signed slash command to the running bot and print the answer.",
    )
    parser.add_argument(
        "text", nargs="?", help='the command as typed in Slack, e.g. "/sam panel 1001" (not with --click)'
    )
    parser.add_argument(
        "--click",
        nargs=2,
        metavar=("CARD", "BUTTON"),
        help="press a button of a card printed on the console (no Slack token) as Slack would: the card's "
        "reference (c42) and the button's number or label, e.g. --click c42 1 or --click c42 Resolve",
    )
    parser.add_argument(
        "--cards", action="store_true", help="list the open cards printed on the console and their buttons"
    )
    parser.add_argument(
        "--as",
        dest="user",
        default=SLASH_USER,
        help=f"Slack user id of the sender (default {SLASH_USER}: on the embedded simulator, a demo admin)",
    )
    parser.add_argument("--channel", default="C_SAMOPS_CLI", help="Slack channel id the command comes from")
    parser.add_argument("--team", default="T_SAMOPS", help="Slack team (workspace) id")
    parser.add_argument(
        "--url", help="the bot's events URL (default: from SAMOPS_BOT_HOST and SAMOPS_BOT_PORT)"
    )
    parser.add_argument("--timeout", type=float, default=15.0, help="seconds to wait for an answer")
    parser.add_argument("--json", action="store_true", help="print the answers as JSON instead of text")
    parser.add_argument(
        "--submit",
        nargs="*",
        metavar="FIELD=VALUE",
        help="fill the form the command opens and submit it as Slack would: FIELD=VALUE for each field to "
        "set (several choices: comma-separated values); the others keep the form's initial values. "
        'Example: samops slash "/sam task update 42" --submit dates=2027-06-01',
    )
    args = parser.parse_args(argv)
    if sum(map(bool, (args.text, args.click, args.cards))) != 1:
        parser.error("give one of: a command text, --click CARD BUTTON, --cards")
    return args


def signing_secret(settings: Settings) -> str | None:
    """The app's signing secret, or the one a local `samops bot` made in the same data folder."""
    if settings.slack_signing_secret is not None:
        return settings.slack_signing_secret.get_secret_value()
    return read_local_secret(settings.data_dir)


def split_command(text: str) -> tuple[str, str]:
    """("/sam", "panel 1001") from "/sam panel 1001"; a text without a leading command is for /sam."""
    text = text.strip()
    if text.startswith("/"):
        command, _, rest = text.partition(" ")
        return command, rest.strip()
    return "/sam", text


def signed_headers(secret: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=stamp, body=body)
    return {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": signature or "",
    }


class ResponseCatcher:
    """A loopback server standing in for Slack's response_url; collects what the bot posts to it."""

    def __init__(self) -> None:
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        catcher = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    catcher.answers.put(json.loads(raw or b"{}"))
                except ValueError:
                    catcher.answers.put({"text": raw.decode(errors="replace")})
                body = b'{"ok": true}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/response/{secrets.token_hex(4)}"

    def __enter__(self) -> ResponseCatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def collect(self, timeout: float) -> list[dict[str, Any]]:
        answers: list[dict[str, Any]] = []
        try:
            answers.append(self.answers.get(timeout=timeout))
        except queue.Empty:
            return answers
        while True:
            try:
                answers.append(self.answers.get(timeout=LINGER_S))
            except queue.Empty:
                return answers


def as_text(answer: dict[str, Any]) -> str:
    """The answer as a person reads it in Slack (`&lt;id&gt;` as `<id>`, `*bold*` bold), in a terminal's
    plain text (bot.render.common.terminal_text)."""
    blocks = answer.get("blocks")
    return blocks_to_text(blocks) if blocks else terminal_text(str(answer.get("text") or ""))


def main(argv: list[str]) -> int:
    start = started("samops slash", parse_args, argv)
    if isinstance(start, int):
        return start
    args, settings = start
    args.url = args.url or settings.bot_events_url
    secret = signing_secret(settings)
    if not secret:
        print(
            "samops slash: no signing secret: set SLACK_SIGNING_SECRET, or run `samops bot` once with the "
            "same SAMOPS_DATA_DIR",
            file=sys.stderr,
        )
        return 2
    if args.cards or args.click:
        from bot.cli import click
        from core.config import ConfigError

        try:  # the cards are drawn as the bot draws them: with its config
            return click.list_cards(settings) if args.cards else click.run(args, settings, secret)
        except ConfigError as err:
            print(f"samops slash: {err}", file=sys.stderr)
            return 2
    command, text = split_command(args.text)
    with ResponseCatcher() as catcher:  # open until the form's answer too: it comes to the same URL
        form = {
            "token": "samops-local",
            "team_id": args.team,
            "team_domain": "samops",
            "channel_id": args.channel,
            "channel_name": "samops-cli",
            "user_id": args.user,
            "user_name": args.user.lower(),
            "command": command,
            "text": text,
            "api_app_id": "A_SAMOPS",
            "response_url": catcher.url,
            "trigger_id": f"{int(time.time())}.{secrets.token_hex(6)}",
        }
        ack = post_signed(args, urlencode(form).encode(), secret)
        if ack is None:
            return 1
        answers = collect_with_ack(ack, catcher, args.timeout)
        if not answers:
            print(f"samops slash: no answer within {args.timeout:g} s", file=sys.stderr)
            return 1
        show(answers, args.json)
        if args.submit is None:
            return 0
        return submit_form(args, answers, secret, catcher)


def post_signed(args: argparse.Namespace, body: bytes, secret: str) -> httpx.Response | None:
    """POST `body` to the bot signed as Slack signs it; None (the reason printed) unless it answered 200."""
    try:
        ack = httpx.post(args.url, content=body, headers=signed_headers(secret, body), timeout=args.timeout)
    except httpx.HTTPError as err:
        print(f"samops slash: cannot reach the bot at {args.url}: {err}", file=sys.stderr)
        return None
    if ack.status_code != 200:
        print(f"samops slash: the bot answered HTTP {ack.status_code}: {ack.text[:200]}", file=sys.stderr)
        return None
    return ack


def show(answers: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        print(json.dumps(answers, indent=2, ensure_ascii=False))
    else:
        print("\n\n".join(as_text(a) for a in answers))


def submit_form(
    args: argparse.Namespace, answers: list[dict[str, Any]], secret: str, catcher: ResponseCatcher
) -> int:
    """`--submit`: fill the form the command answered with, send it as Slack's view_submission, print the
    bot's verdict (errors under fields) or its answer."""
    from bot.cli.form_fill import FormError, fill, form_of, parse_pairs, submission
    from bot.slash.registry import FORM_EVENT

    view = form_of(answers, FORM_EVENT)
    if view is None:
        print("samops slash: --submit: this command opened no form", file=sys.stderr)
        return 2
    try:
        values = fill(view, parse_pairs(args.submit))
    except FormError as err:
        print(f"samops slash: --submit: {err}", file=sys.stderr)
        return 2
    payload = submission(view, values, args.user, args.team)
    ack = post_signed(args, urlencode({"payload": json.dumps(payload)}).encode(), secret)
    if ack is None:
        return 1
    try:
        verdict = ack.json() if ack.content.strip() else {}
    except ValueError:
        verdict = {}
    if isinstance(verdict, dict) and verdict.get("response_action") == "errors":
        errors = verdict.get("errors") or {}
        print("\nThe form was not accepted:")
        for field, error in errors.items():
            print(f"  {field}: {error}")
        return 1
    print("\nSubmitted.")
    after = catcher.collect(args.timeout)
    if not after:
        print(f"samops slash: no answer to the form within {args.timeout:g} s", file=sys.stderr)
        return 1
    show(after, args.json)
    return 0


def collect_with_ack(ack: httpx.Response, catcher: ResponseCatcher, timeout: float) -> list[dict[str, Any]]:
    """An answer in the ack's own body counts too (an app may answer at once instead of via response_url)."""
    answers: list[dict[str, Any]] = []
    if ack.content.strip():
        try:
            parsed = ack.json()
        except ValueError:
            parsed = {"text": ack.text}
        if isinstance(parsed, dict) and (parsed.get("text") or parsed.get("blocks")):
            answers.append(parsed)
    answers.extend(catcher.collect(LINGER_S if answers else timeout))
    return answers
