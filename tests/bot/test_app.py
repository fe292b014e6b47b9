"""The bot's framework over real HTTP: signatures, routing, roles, help, the home tab, local runs."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

import bot.commands as subcommands  # noqa: F401  # every /sam subcommand, as the bot imports them
from bot.roles import Role
from bot.slash.registry import SUBCOMMANDS
from tests.support.bot import BotProcess, run_bot
from tests.support.processes import ROOT, samops_cmd
from tests.support.slack_standin import SlackStandIn

CONFIG = """
[roles]
admins = ["U_ADMIN"]
technicians = ["U_TECH", "S_FIELD"]

[channels."C_ORG2"]
org = 2
"""


class GroupedSlack(SlackStandIn):
    """The stand-in, with one user group whose members are known."""

    def _result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "usergroups.users.list" and params.get("usergroup") == "S_FIELD":
            return {"ok": True, "users": ["U_GROUPIE"]}
        return super()._result(method, params)


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotProcess]:
    with GroupedSlack() as slack, run_bot(tmp_path_factory.mktemp("bot"), slack, config=CONFIG) as bot:
        yield bot


def _form(bot: BotProcess, text: str = "help") -> bytes:
    return urlencode(bot.command_form(text, user="U_VIEWER")).encode()


def test_forged_missing_and_stale_signatures_are_refused(bot: BotProcess) -> None:
    body = _form(bot)
    assert bot.post_signed(body, signature="v0=" + "0" * 64).status_code == 401
    assert bot.post_signed(body, signature="").status_code == 401
    stale = int(time.time()) - 10 * 60
    assert bot.post_signed(body, timestamp=stale).status_code == 401
    # the body changed after signing
    signed = bot.post_signed(body)
    assert signed.status_code == 200
    from tests.support.bot import slack_signature

    stamp = str(int(time.time()))
    forged_body = body.replace(b"help", b"user+1")
    bad = bot.post_signed(
        forged_body, timestamp=int(stamp), signature=slack_signature(bot.signing_secret, stamp, body)
    )
    assert bad.status_code == 401


def test_unsigned_post_gets_401_and_healthz_answers(bot: BotProcess) -> None:
    import httpx

    assert httpx.post(bot.url, content=_form(bot)).status_code == 401
    assert httpx.get(f"{bot.root_url}/healthz").json() == {"status": "ok"}


def test_ack_is_empty_and_answer_comes_on_response_url(bot: BotProcess) -> None:
    result = bot.send_command("help")
    assert result.status == 200
    assert result.ack_body == ""
    assert result.ephemeral
    assert "/sam help" in result.text
    assert result.answer["text"]  # a fallback text always


def _all_commands() -> list[Any]:
    return list(SUBCOMMANDS)


def test_help_lists_only_what_the_caller_may_run(bot: BotProcess) -> None:
    commands = _all_commands()
    for user, role in (("U_VIEWER", Role.VIEWER), ("U_TECH", Role.TECHNICIAN), ("U_ADMIN", Role.ADMIN)):
        text = bot.send_command("help", user=user).text
        for cmd in commands:
            shown = f"`{cmd.usage}`" in text
            assert shown == (cmd.role <= role), (user, cmd.usage)


def test_user_group_members_get_the_groups_role(bot: BotProcess) -> None:
    assert "You are a technician" in bot.send_command("help", user="U_GROUPIE").text
    assert "You are a viewer" in bot.send_command("help", user="U_STRANGER").text
    assert "You are a technician" in bot.send_command("help", user="U_GROUPIE").text
    # members are fetched once and cached, not on every command
    assert [c.params["usergroup"] for c in bot.slack.calls_to("usergroups.users.list")] == ["S_FIELD"]


def test_unknown_subcommand_and_bad_org_get_usage(bot: BotProcess) -> None:
    unknown = bot.send_command("frobnicate now")
    assert unknown.ephemeral
    assert "I don't know `/sam frobnicate`" in unknown.text
    assert "/sam help" in unknown.text
    bad_org = bot.send_command("help org:abc")
    assert "`org:` takes an organization number" in bad_org.text
    assert "Usage: `/sam help [command]`" in bad_org.text


def test_help_for_one_command_and_for_a_forbidden_one(bot: BotProcess) -> None:
    assert "/sam help [command]" in bot.send_command("help help").text
    restricted = [c for c in _all_commands() if c.role > Role.VIEWER]
    for cmd in restricted[:1]:
        text = bot.send_command("help " + " ".join(cmd.path), user="U_VIEWER").text
        assert "that you can run" in text


def test_no_traceback_reaches_slack_for_odd_text(bot: BotProcess) -> None:
    for text in ['"', "\u201cunclosed", "<@U1|x> &amp;", "org:1 org:2 help", "\x00 help"]:
        result = bot.send_command(text)
        assert "Traceback" not in result.text
        assert result.answer["text"]


def test_home_tab_is_published_on_app_home_opened(bot: BotProcess) -> None:
    response = bot.send_event({"type": "app_home_opened", "user": "U_ADMIN", "channel": "D1", "tab": "home"})
    assert response.status_code == 200
    [call] = bot.slack.wait_for(lambda: bot.slack.calls_to("views.publish"))
    assert call.params["user_id"] == "U_ADMIN"
    assert call.params["view"]["type"] == "home"
    assert "admin" in str(call.params["view"])


def test_local_run_makes_a_private_secret_and_samops_slash_gets_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import slash
    from tests.support.processes import free_port, stop, wait_http

    port = free_port()
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "SAMOPS_"))}
    env.update(SAMOPS_DATA_DIR=str(data), SAMOPS_BOT_PORT=str(port))
    proc = subprocess.Popen(samops_cmd("bot"), cwd=tmp_path, env=env, stderr=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz", proc)
        secret_file = data / "signing-secret"
        assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
        ok = subprocess.run(
            samops_cmd("slash", "/sam help"), cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert ok.returncode == 0, ok.stderr
        assert "/sam help [command]" in ok.stdout
        assert "You are a viewer" in ok.stdout
        monkeypatch.setenv("SLACK_SIGNING_SECRET", "not-the-secret")
        url = f"http://127.0.0.1:{port}/slack/events"
        assert slash.main(["/sam help", "--url", url]) == 1
        assert "401" in capsys.readouterr().err
    finally:
        stop(proc)
    assert slash.main(["help", "--url", url, "--timeout", "2"]) == 1
    assert "cannot reach the bot" in capsys.readouterr().err


def test_bad_config_stops_the_bot_with_a_clear_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import bot as bot_cli

    config = tmp_path / "samops.toml"
    config.write_text('[roles]\nadmin = ["U1"]\n')
    monkeypatch.setenv("SAMOPS_CONFIG", str(config))
    monkeypatch.setenv("SAMOPS_DATA_DIR", str(tmp_path / "d"))
    assert bot_cli.main(["--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "roles.admin" in err
    assert "Traceback" not in err
    # [notify] is parsed with the rest: a mistake there stops the bot too (it ran on defaults, beside a
    # notifier and a `samops up` that refused the same file).
    config.write_text('[notify]\ntimezone = "Mars/Base"\n')
    assert bot_cli.main(["--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "notify.timezone" in err and "Mars/Base" in err and "Traceback" not in err
    monkeypatch.setenv("SAMOPS_CONFIG", str(tmp_path / "nope.toml"))
    assert bot_cli.main([]) == 2
    assert "no such file" in capsys.readouterr().err
    config.write_text("[roles\n")
    monkeypatch.setenv("SAMOPS_CONFIG", str(config))
    assert bot_cli.main([]) == 2
    assert "not valid TOML" in capsys.readouterr().err


def test_socket_mode_when_an_app_token_is_set(tmp_path: Path) -> None:
    """With SLACK_APP_TOKEN the bot opens a Socket Mode connection (apps.connections.open with the app token)
    instead of listening for HTTP."""
    from tests.support.processes import stop

    with SlackStandIn() as slack:
        env = dict(
            os.environ,
            SLACK_APP_TOKEN="xapp-1-samops-test",
            SLACK_BOT_TOKEN="xoxb-samops-test",
            SLACK_SIGNING_SECRET="s",
            SLACK_API_URL=slack.api_url,
            SAMOPS_DATA_DIR=str(tmp_path),
        )
        env.pop("SAMOPS_CONFIG", None)
        proc = subprocess.Popen(samops_cmd("bot"), cwd=tmp_path, env=env, stderr=subprocess.DEVNULL)
        try:
            [call, *_] = slack.wait_for(lambda: slack.calls_to("apps.connections.open"), timeout=90)
            assert call.headers["Authorization"] == "Bearer xapp-1-samops-test"
        finally:
            stop(proc)
