"""The `/sam` router in-process: error replies, references, role checks and the write hooks.

Handlers here are test doubles registered for the test; the router, parser, registry and roles are real.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from slack_sdk import WebClient

from bot.context import AppContext
from bot.roles import Role, RoleResolver
from bot.slash import registry
from bot.slash.registry import Handler, Invocation, Reply, UsageError, on_write, subcommand
from bot.slash.router import route
from core.config import parse_config
from core.errors import NotFoundError, ResponseFormatError, ServerError, TransportError
from core.settings import Settings


@pytest.fixture
def ctx(tmp_path: Path) -> AppContext:
    config = parse_config(
        {"roles": {"admins": ["U_ADMIN"], "technicians": ["U_TECH"]}, "channels": {"C_2": {"org": 2}}}
    )
    web = WebClient(token="xoxb-x", base_url="http://127.0.0.1:9/")  # never called: no groups configured
    return AppContext(
        settings=Settings(_env_file=None, data_dir=tmp_path),
        config=config,
        signing_secret="s",
        web_client=web,
        roles=RoleResolver(config.roles, web),
    )


@pytest.fixture
def fake_commands() -> Iterator[list[Invocation]]:
    seen: list[Invocation] = []
    before = list(registry.SUBCOMMANDS)
    hooks_before = list(registry.WRITE_HOOKS)

    def raising(err: Exception) -> Handler:
        def handler(inv: Invocation, ctx: AppContext) -> Reply:
            seen.append(inv)
            raise err

        return handler

    subcommand("zz", "missing", usage="/sam zz missing <id>", summary="t")(
        raising(NotFoundError(404, "NOT_FOUND", "gone", "/api/x", "GET"))
    )
    subcommand("zz", "boom", usage="/sam zz boom", summary="t")(raising(ServerError(503, "INTERNAL", "down")))
    subcommand("zz", "slow", usage="/sam zz slow", summary="t")(raising(TransportError("timed out")))
    subcommand("zz", "garbled", usage="/sam zz garbled", summary="t")(
        raising(ResponseFormatError("not json"))
    )
    subcommand("zz", "crash", usage="/sam zz crash", summary="t")(raising(RuntimeError("secret internals")))
    subcommand("zz", "bad", usage="/sam zz bad <n>", summary="t", examples=("/sam zz bad 1",))(
        raising(UsageError("n must be small"))
    )

    def ok(inv: Invocation, ctx: AppContext) -> Reply:
        seen.append(inv)
        return Reply(text=f"wrote {inv.args}", audit_summary="changed x")

    subcommand("zz", "write", usage="/sam zz write <x>", summary="t", role=Role.TECHNICIAN, write=True)(ok)
    subcommand("zz", "destroy", usage="/sam zz destroy", summary="t", role=Role.ADMIN, write=True)(ok)
    try:
        yield seen
    finally:
        registry.SUBCOMMANDS[:] = before
        registry.WRITE_HOOKS[:] = hooks_before


def test_service_errors_become_sentences_with_a_logged_reference(
    ctx: AppContext, fake_commands: list, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    missing = route(ctx, text="zz missing 42", user_id="U1")
    assert missing and missing.text.startswith("Not found: zz `42`")
    boom = route(ctx, text="zz boom", user_id="U1", reference="R-ABC123")
    assert boom and boom.text == "The service answered 503: down (reference `R-ABC123`)."
    assert "R-ABC123" in caplog.text
    slow = route(ctx, text="zz slow", user_id="U1")
    assert slow and "did not answer in time" in slow.text
    garbled = route(ctx, text="zz garbled", user_id="U1")
    assert garbled and "could not read" in garbled.text
    crash = route(ctx, text="zz crash", user_id="U1", reference="R-00C0DE")
    assert crash and crash.text == "Something went wrong on samops' side (reference `R-00C0DE`)."
    assert "secret internals" not in crash.text
    assert "Traceback" in caplog.text and "R-00C0DE" in caplog.text  # the log has what Slack must not see


def test_usage_errors_carry_usage_and_examples(ctx: AppContext, fake_commands: list) -> None:
    reply = route(ctx, text="zz bad 99", user_id="U1")
    assert reply and reply.text == "n must be small\nUsage: `/sam zz bad <n>`\n• `/sam zz bad 1`"


def test_roles_gate_commands_and_writes_reach_the_hooks(ctx: AppContext, fake_commands: list) -> None:
    calls: list[tuple[str, str, str, str]] = []
    on_write(
        lambda _ctx, inv, cmd, outcome, summary: calls.append(
            (inv.user_id, " ".join(cmd.path), outcome, summary)
        )
    )
    denied = route(ctx, text="zz write a", user_id="U_VIEWER")
    assert denied and "needs the technician role; you are a viewer" in denied.text
    done = route(ctx, text="zz write a", user_id="U_TECH")
    assert done and done.text == "wrote ('a',)"
    assert "admin role" in (route(ctx, text="zz destroy", user_id="U_TECH") or Reply("")).text
    assert route(ctx, text="zz destroy", user_id="U_ADMIN")
    assert calls == [
        ("U_VIEWER", "zz write", "denied", denied.text),
        ("U_TECH", "zz write", "ok", "changed x"),
        ("U_TECH", "zz destroy", "denied", calls[2][3]),
        ("U_ADMIN", "zz destroy", "ok", "changed x"),
    ]
    assert len(fake_commands) == 2  # denied handlers never ran


def test_org_from_text_else_from_the_channel(ctx: AppContext, fake_commands: list) -> None:
    route(ctx, text="zz write a org:7", user_id="U_ADMIN", channel_id="C_2")
    route(ctx, text="zz write b", user_id="U_ADMIN", channel_id="C_2")
    route(ctx, text="ZZ WRITE c", user_id="U_ADMIN", channel_id="C_other")
    assert [(i.args, i.org_id) for i in fake_commands] == [(("a",), 7), (("b",), 2), (("c",), None)]
    assert all(i.role == Role.ADMIN for i in fake_commands)


def test_a_failing_hook_does_not_change_the_answer(ctx: AppContext, fake_commands: list) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("audit down")

    on_write(broken)
    reply = route(ctx, text="zz write a", user_id="U_TECH")
    assert reply and reply.text == "wrote ('a',)"
