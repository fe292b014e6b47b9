"""Run `samops bot` as a real process and talk to it the way Slack does.

Signing is done here with hmac from Slack's published scheme, not with samops' code, so the tests check the
bot against the protocol rather than against itself.

    with SlackStandIn() as slack, run_bot(tmp_path, slack, simulator=sim, config=ROLES) as bot:
        result = bot.send_command("user demo@example.com", user="U_ADMIN")
        assert "demo" in result.text
        bot.send_action({...})            # a block_actions payload
        bot.send_view_submission({...})   # a view_submission payload
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import itertools
import json
import os
import subprocess
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from slack_sdk import WebClient

from bot.context import AppContext
from bot.render.common import MAX_BLOCKS, MAX_SECTION_TEXT, blocks_to_dicts
from bot.roles import RoleResolver
from core.config import parse_config
from core.settings import Settings
from tests.support.processes import ROOT, Simulator, free_port, run_simulator, samops_cmd, stop, wait_http
from tests.support.slack_standin import TEAM_ID, SlackStandIn

SIGNING_SECRET = "test-signing-secret-0123456789abcdef"
BOT_TOKEN = "xoxb-samops-test"
START_TIMEOUT_S = 90.0  # a loaded 2-core machine takes long to import slack_bolt and friends
_names = itertools.count(1)


def slack_signature(secret: str, timestamp: str, body: bytes) -> str:
    """X-Slack-Signature as Slack computes it: v0= + HMAC-SHA256(secret, "v0:<ts>:<body>")."""
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def blocks_text(blocks: list[dict[str, Any]] | None) -> str:
    """Every text string inside Block Kit JSON, one per line (for assertions)."""
    out: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                out.append(node["text"])
            for value in node.values():
                if isinstance(value, dict | list):
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(blocks or [])
    return "\n".join(out)


@dataclass
class CommandResult:
    """What came of one slash command: the ack, and the messages posted to its response_url."""

    status: int
    ack_body: str
    responses: list[dict[str, Any]] = field(default_factory=list)

    @property
    def answer(self) -> dict[str, Any]:
        assert self.responses, f"no answer (ack {self.status} {self.ack_body!r})"
        return self.responses[0]

    @property
    def text(self) -> str:
        """The first answer's fallback text and every text of its blocks."""
        answer = self.answer
        return str(answer.get("text") or "") + "\n" + blocks_text(answer.get("blocks"))

    @property
    def blocks(self) -> list[dict[str, Any]]:
        return list(self.answer.get("blocks") or [])

    @property
    def ephemeral(self) -> bool:
        return self.answer.get("response_type", "ephemeral") == "ephemeral"


@dataclass
class BotProcess:
    url: str  # the events URL, http://127.0.0.1:PORT/slack/events
    root_url: str
    slack: SlackStandIn
    data_dir: Path
    db_path: Path
    proc: subprocess.Popen[bytes]
    signing_secret: str = SIGNING_SECRET
    channel: str = "C_TEST"
    # One client for every request: making an httpx.Client builds an SSL context, which costs more than
    # the request itself and would be counted as the bot's time.
    http: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=30.0))

    # -- raw signed requests ------------------------------------------------------------------------------

    def post_signed(
        self,
        body: bytes,
        *,
        content_type: str = "application/x-www-form-urlencoded",
        timestamp: int | None = None,
        signature: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 10.0,
    ) -> httpx.Response:
        """POST `body` signed with the bot's secret (or with the `signature` given, to forge one)."""
        stamp = str(int(time.time()) if timestamp is None else timestamp)
        sent = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": stamp,
            "X-Slack-Signature": signature if signature is not None else slack_signature(
                self.signing_secret, stamp, body
            ),
            **(headers or {}),
        }  # fmt: skip
        return self.http.post(self.url, content=body, headers=sent, timeout=timeout)

    # -- what Slack sends ---------------------------------------------------------------------------------

    def command_form(
        self, text: str, *, user: str, channel: str | None = None, command: str = "/sam"
    ) -> dict[str, str]:
        name = f"cmd{next(_names)}"
        return {
            "token": "legacy-verification-token",
            "team_id": TEAM_ID,
            "team_domain": "samops",
            "channel_id": channel or self.channel,
            "channel_name": "test",
            "user_id": user,
            "user_name": user.lower(),
            "command": command,
            "text": text,
            "api_app_id": "A_SAMOPS",
            "is_enterprise_install": "false",
            "response_url": self.slack.response_url(name),
            "trigger_id": self.slack.trigger_id(),
        }

    def send_command(
        self,
        text: str,
        *,
        user: str = "U_VIEWER",
        channel: str | None = None,
        wait: bool = True,
        timeout: float = 15.0,
    ) -> CommandResult:
        """Send `/sam <text>` as `user`; if `wait`, wait for the first message on its response_url."""
        form = self.command_form(text, user=user, channel=channel)
        name = form["response_url"].rsplit("/", 1)[1]
        response = self.post_signed(urlencode(form).encode())
        result = CommandResult(response.status_code, response.text)
        if wait and response.status_code == 200:
            self.slack.wait_for(lambda: self.slack.responses(name), timeout=timeout)
        result.responses = [c.params for c in self.slack.responses(name)]
        return result

    def responses_of(self, result_or_url: str) -> list[dict[str, Any]]:
        name = result_or_url.rsplit("/", 1)[1]
        return [c.params for c in self.slack.responses(name)]

    def send_payload(self, payload: Mapping[str, Any]) -> httpx.Response:
        """An interactivity request: form field `payload` holding the JSON, as Slack sends it."""
        body = urlencode({"payload": json.dumps(payload)}).encode()
        return self.post_signed(body)

    def send_action(self, payload: Mapping[str, Any]) -> httpx.Response:
        """A `block_actions` payload (type is filled in if missing)."""
        return self.send_payload({"type": "block_actions", "team": {"id": TEAM_ID}, **payload})

    def send_view_submission(self, payload: Mapping[str, Any]) -> httpx.Response:
        """A `view_submission` payload; the HTTP answer carries `response_action` errors, if any."""
        return self.send_payload({"type": "view_submission", "team": {"id": TEAM_ID}, **payload})

    def send_event(self, event: Mapping[str, Any]) -> httpx.Response:
        """An Events API callback wrapping `event`."""
        envelope = {
            "token": "legacy-verification-token",
            "team_id": TEAM_ID,
            "api_app_id": "A_SAMOPS",
            "type": "event_callback",
            "event_id": f"Ev{next(_names):08d}",
            "event_time": int(time.time()),
            "event": dict(event),
        }
        return self.post_signed(json.dumps(envelope).encode(), content_type="application/json")

    def output(self) -> str:
        """Everything the bot has logged so far (its stdout and stderr, at DEBUG level)."""
        return (self.data_dir / "bot.log").read_text(errors="replace")


@contextlib.contextmanager
def run_bot(
    tmp_path: Path,
    slack: SlackStandIn,
    *,
    simulator: Simulator | None = None,
    config: str = "",
    env: Mapping[str, str] | None = None,
    db_path: Path | None = None,
    token: str | None = BOT_TOKEN,
    args: Sequence[str] = (),
) -> Iterator[BotProcess]:
    """`samops bot` in HTTP mode on a free port, against `slack` (the Web API stand-in) and `simulator`.

    `config` is the TOML text of `samops.toml`; `env` adds or overrides variables (e.g. SAM_TIMEOUT).
    `token=None` runs it the local way (no SLACK_BOT_TOKEN). `args` are extra `samops bot` options.
    """
    data_dir = tmp_path / "bot-data"
    data_dir.mkdir(mode=0o700, exist_ok=True)
    config_path = tmp_path / "samops.toml"
    config_path.write_text(config, encoding="utf-8")
    db_path = db_path or data_dir / "cache.db"
    port = free_port()
    environment = {
        **os.environ,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": slack.api_url,
        "SAMOPS_BOT_PORT": str(port),
        "SAMOPS_BOT_HOST": "127.0.0.1",
        "SAMOPS_CONFIG": str(config_path),
        "SAMOPS_DATA_DIR": str(data_dir),
        "SAMOPS_DB": str(db_path),
        "SAM_TIMEOUT": "5",
        "SAM_MAX_RETRIES": "0",
    }
    environment.pop("SLACK_APP_TOKEN", None)
    environment.pop("SLACK_BOT_TOKEN", None)
    if token is not None:
        environment["SLACK_BOT_TOKEN"] = token
    if simulator is not None:
        environment["SAM_BASE_URL"] = simulator.base_url
    environment.update(env or {})
    log = (data_dir / "bot.log").open("wb")
    proc = subprocess.Popen(
        samops_cmd("bot", "--log-level", "DEBUG", *args), cwd=ROOT, stdout=log, stderr=log, env=environment
    )
    root = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{root}/healthz", proc, timeout=START_TIMEOUT_S)
        yield BotProcess(
            url=f"{root}/slack/events",
            root_url=root,
            slack=slack,
            data_dir=data_dir,
            db_path=db_path,
            proc=proc,
        )
    finally:
        stop(proc)
        log.close()


# -- what every answer of a read command must be ---------------------------------------------------------

SECRET_WORDS = ("securityCode", "ncCode", "pinCode", "mqPassword", "password")


def no_secrets(result: CommandResult) -> None:
    raw = str(result.responses)
    for word in SECRET_WORDS:
        assert word not in raw
    assert "Traceback" not in raw


def usage(result: CommandResult, line: str) -> None:
    assert result.ephemeral
    assert f"Usage: `{line}`" in result.text
    no_secrets(result)


# -- in-process helpers -----------------------------------------------------------------------------------


def check_limits(blocks: list) -> list[dict]:
    """Blocks as Slack takes them: within its limits, and serializable."""
    dicts = blocks_to_dicts(blocks)
    assert len(dicts) <= MAX_BLOCKS
    for block in dicts:
        if block["type"] == "section":
            assert len(block.get("text", {}).get("text", "")) <= MAX_SECTION_TEXT
            assert len(block.get("fields") or []) <= 10
        if block["type"] == "header":
            assert len(block["text"]["text"]) <= 150
    json.dumps(dicts)  # serializable as Slack needs
    return dicts


def local_context(tmp_path: Path, roles: dict[str, Any], notify: dict[str, Any] | None = None) -> AppContext:
    """An AppContext for in-process tests: the given `[roles]` (and `[notify]`), a cache under `tmp_path`, no
    Slack."""
    config = parse_config({"roles": roles, "notify": notify or {}})
    web = WebClient(token="xoxb-x", base_url="http://127.0.0.1:9/")  # never called: no user groups
    return AppContext(
        config=config,
        settings=Settings(data_dir=tmp_path),
        signing_secret="s",
        web_client=web,
        roles=RoleResolver(config.roles, web),
    )


# -- view submissions, as Slack sends them ---------------------------------------------------------------


def requests_to(sim: Simulator, method: str, path: str) -> list[dict[str, Any]]:
    entries = httpx.get(f"{sim.root_url}/_sim/requests", timeout=5).json()
    return [e for e in entries if e["method"] == method and e["path"] == f"/api{path}"]


def opened_view(slack: SlackStandIn, callback_id: str, after: int = 0, **meta: Any) -> dict[str, Any]:
    """The first view with `callback_id` opened after the first `after` views.open calls, whose
    private_metadata holds `meta`."""

    def matching() -> list[dict[str, Any]]:
        views = slack.opened_views()[after:]
        return [
            v
            for v in views
            if v.get("callback_id") == callback_id
            and meta.items() <= json.loads(v.get("private_metadata") or "{}").items()
        ]

    view = slack.wait_for(matching)[0]
    return {"id": f"V{uuid.uuid4().hex[:10].upper()}", "hash": f"h{uuid.uuid4().hex[:8]}", **view}


def state_of(values: dict[str, Any]) -> dict[str, Any]:
    """A view's `state.values` as Slack sends it, from {field: value} (str, list of option values)."""
    state: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, list):
            element = {"type": "checkboxes", "selected_options": [{"value": v} for v in value]}
        elif name in {"validity_start", "expiry"}:
            element = {"type": "datepicker", "selected_date": value}
        elif name in {"window_start", "window_end"}:
            element = {"type": "timepicker", "selected_time": value}
        elif name == "disposition":  # the Resolve form's menu; None: nothing chosen, as Slack sends it
            chosen = {"value": value} if value is not None else None
            element = {"type": "static_select", "selected_option": chosen}
        else:
            element = {"type": "plain_text_input", "value": value}
        state[name] = {"value": element}
    return {"values": state}


def submit(bot: BotProcess, view: dict[str, Any], values: dict[str, Any], user: str) -> httpx.Response:
    payload_view = {**view, "state": state_of(values)}
    return bot.send_view_submission({"user": {"id": user}, "view": payload_view})


# A small fleet: quick to start, no background alarms to shift what a test counts.
SMALL_FLEET = ("--alarm-rate", "0", "--panels", "6", "--history-days", "1")


def bot_fixtures(
    config: str, *, seed: int, sim_options: Sequence[str] = (), env: Mapping[str, str] | None = None
) -> tuple[Any, Any]:
    """A test module's `sim` (a small fleet of its own) and `bot` (with `config`, against that simulator and
    the module's `slack`) fixtures, module-scoped: `sim, bot = bot_fixtures(CONFIG, seed=5)`."""

    @pytest.fixture(scope="module")
    def sim() -> Iterator[Simulator]:
        with run_simulator(*SMALL_FLEET, *sim_options, seed=seed) as simulator:
            yield simulator

    @pytest.fixture(scope="module")
    def bot(
        tmp_path_factory: pytest.TempPathFactory, sim: Simulator, slack: SlackStandIn
    ) -> Iterator[BotProcess]:
        with run_bot(tmp_path_factory.mktemp("bot"), slack, simulator=sim, config=config, env=env) as process:
            yield process

    return sim, bot
