"""The one validating layer for what Slack hands back (bot/payloads.py), the one id parser
(bot/forms/fields.py), the forms fed tampered values, the escaping of fallback texts, the audit row of a
write that blew up, and who may use the bot (`[roles] viewers`, `default_role`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from slack_sdk import WebClient

# Importing a command module registers its subcommands with the router.
import bot.commands  # noqa: F401  # every /sam subcommand
from bot.config import ConfigError, parse_config
from bot.context import AppContext
from bot.forms.access import grant_from_values
from bot.forms.camera import camera_from_values
from bot.forms.fields import MAX_ID, FieldError, looks_like_id, parse_id
from bot.forms.submission import submitted
from bot.payloads import (
    AccessMeta,
    CameraMeta,
    ConfirmValue,
    DeleteUserValue,
    PayloadError,
    RevokeValue,
    SilenceValue,
    TaskMeta,
    read_event_id,
    read_id,
    read_json,
    slack_user,
)
from bot.render.access import delete_confirmation, revoke_confirmation
from bot.render.users import user_blocks
from bot.roles import Role, RoleResolver, refusal
from bot.slash.registry import UsageError
from bot.slash.router import route
from bot.views import access as access_view
from bot.views import camera as camera_view
from bot.views import task as task_view
from bot.writes import WriteOutcome, WriteRequest, outcome_text, run_write
from core.cache import audit
from core.models import User
from core.settings import Settings

HOSTILE = "<!channel> *x* <@U0001|boss> & <https://evil.example|click>"

# -- the one id parser ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "expected"),
    [("42", 42), ("#42", 42), (" #7 ", 7), ("007", 7), (42, 42), (str(MAX_ID), MAX_ID), ("# 9", 9)],
)
def test_parse_id_accepts_what_people_type(typed: object, expected: int) -> None:
    assert parse_id(typed, "userId") == expected


@pytest.mark.parametrize(
    "typed",
    ["0", "#0", "-1", "1.5", "", "  ", "abc", "4x2", "²", "\u0663", "1e3", "0x10", str(MAX_ID + 1),
     "18446744073709551616", "9" * 5000, None, True, 1.0, 0, -5, 2**64, [1], {"a": 1}],
)  # fmt: skip
def test_parse_id_rejects_everything_else_naming_the_field(typed: object) -> None:
    with pytest.raises(FieldError) as caught:
        parse_id(typed, "panelId")
    assert caught.value.field == "panelId"
    assert str(caught.value).startswith("panelId: ")
    assert isinstance(caught.value, UsageError)  # the router answers it with the usage line
    assert len(str(caught.value)) < 120  # a 5,000-digit input is not echoed whole


@given(st.one_of(st.text(max_size=60), st.integers(), st.none(), st.booleans(), st.floats()))
@settings(max_examples=300, deadline=None, derandomize=True)
def test_parse_id_only_ever_answers_an_int64_id_or_a_field_error(value: object) -> None:
    try:
        number = parse_id(value, "id")
    except FieldError:
        return
    assert isinstance(number, int) and 0 < number <= MAX_ID


def test_looks_like_id_is_for_ascii_digits_only() -> None:
    assert looks_like_id("1001") and looks_like_id("#1001") and looks_like_id(" 99999999999999999999 ")
    assert not looks_like_id("Warehouse 2") and not looks_like_id("²") and not looks_like_id("\u0663")


# -- button values and modal metadata ------------------------------------------------------------------------


def test_confirm_values_made_by_the_confirmations_are_read_back() -> None:
    _, blocks = revoke_confirmation(2001, "Ana", 1001, "Warehouse", 7)
    value = read_json(ConfirmValue, _button_value(blocks), "This button")
    assert isinstance(value, RevokeValue) and (value.user, value.panel, value.org) == (2001, 1001, 7)
    _, blocks = delete_confirmation(2001, None, None)
    value = read_json(ConfirmValue, _button_value(blocks), "This button")
    assert isinstance(value, DeleteUserValue) and value.org is None


@pytest.mark.parametrize(
    "raw",
    [
        '{"op":"revoke","user":2001,"panel":1001,"org":18446744073709551616}',
        '{"op":"revoke","user":2001,"panel":99999999999999999999999}',
        '{"op":"delete_user","user":0}',
        '{"op":"delete_user","user":-3}',
        '{"op":"delete_user","user":"2001"}',
        '{"op":"delete_user","user":true}',
        '{"op":"delete_user","user":2001.0}',
        '{"op":"delete_user","user":null}',
        '{"op":"delete_user","user":2001,"org":"x"}',
        '{"op":"delete_user","user":2001,"who":"' + "x" * 600 + '"}',
        '{"op":"drop_table","user":2001}',
        '{"op":"revoke","user":2001}',
        "[1,2]",
        "null",
        "not json",
        "",
        "9" * 5000,
        None,
        42,
    ],
)
def test_a_tampered_confirm_value_is_a_payload_error(raw: object) -> None:
    with pytest.raises(PayloadError, match="not one samops made"):
        read_json(ConfirmValue, raw, "This button")


def test_silence_values_take_only_our_durations_and_int64_panels() -> None:
    assert read_json(SilenceValue, '{"r": 1001, "m": 120}', "b") == SilenceValue(r=1001, m=120)
    for raw in ('{"r": 1001, "m": 7}', '{"r": 18446744073709551616, "m": 30}', '{"r": null, "m": 30}',
                '{"r": "1001", "m": 30}', '{"m": 30}'):  # fmt: skip
        with pytest.raises(PayloadError):
            read_json(SilenceValue, raw, "b")


def test_bare_ids_and_event_ids() -> None:
    assert read_id("1001", "This card") == 1001
    for raw in ("", "0", "²", "99999999999999999999", "1001 ", None, 1001, "-1"):
        with pytest.raises(PayloadError):
            read_id(raw, "This card")
    assert read_event_id("ev-123") == "ev-123"
    for raw in ("", None, 5, "x" * 201, "a\nb", "\x00"):
        with pytest.raises(PayloadError):
            read_event_id(raw)


def test_modal_metadata_shapes() -> None:
    meta = {"channel": "C1", "response_url": "https://hooks.slack.com/x", "ref": "R-1"}
    access = read_json(AccessMeta, json.dumps({**meta, "user": 5, "org": 1001, "groups": [1, 2]}), "f")
    assert access.groups == [1, 2]
    assert read_json(TaskMeta, json.dumps({"task": 42, "org": None}), "f").task == 42
    assert read_json(CameraMeta, json.dumps({"org": 1001}), "f").org == 1001
    for shape, data in (
        (AccessMeta, {"user": 5, "org": 1001, "groups": []}),
        (AccessMeta, {"user": 5, "org": 1001, "groups": [1, "²"]}),
        (AccessMeta, {"user": 5, "org": 2**63, "groups": [1]}),
        (TaskMeta, {"task": 2**70}),
        (CameraMeta, {"org": 1001, "response_url": "file:///etc/passwd"}),
        (CameraMeta, {"org": 1001, "channel": ["C1"]}),
    ):
        with pytest.raises(PayloadError):
            read_json(shape, json.dumps(data), "f")


def test_slack_user_is_an_id_or_nobody() -> None:
    assert slack_user({"user": {"id": "U_ADMIN"}}) == "U_ADMIN"
    for body in ({}, {"user": None}, {"user": "U1"}, {"user": {"id": 5}}, {"user": {"id": "U1>|<!here"}}):
        assert slack_user(body) == ""


# -- forms with tampered values ------------------------------------------------------------------------------


@pytest.mark.parametrize("groups", [["²"], [None], [{"a": 1}], ["1", "99"], "1", [["1"]], [2**70]])
def test_tampered_grant_checkboxes_are_field_errors(groups: Any) -> None:
    grant, errors = grant_from_values({"groups": groups, "panels": ["1001"]}, [1, 2])
    assert grant is None and "groups" in errors


@pytest.mark.parametrize("days", [["²"], [None], ["8"], ["1" * 5000], [{"d": 1}], "9"])
def test_tampered_day_checkboxes_are_field_errors(days: Any) -> None:
    values = {
        "groups": ["1"],
        "panels": ["1001"],
        "days": days,
        "window_start": "08:00",
        "window_end": "17:00",
    }
    grant, errors = grant_from_values(values, [1, 2])
    assert grant is None and "days" in errors


def test_camera_form_with_values_of_the_wrong_type_names_the_fields() -> None:
    form, errors = camera_from_values(
        {"name": ["a"], "brand": 5, "serial": {"x": 1}, "security_code": None, "subscription": "²"}
    )
    assert form is None
    assert {"serial", "security_code", "subscription"} <= set(errors)


_json = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
_FIELDS = ("groups", "panels", "validity_start", "expiry", "days", "window_start", "window_end", "name",
           "brand", "serial", "security_code", "nc_code", "subscription", "type", "dates", "channels",
           "audience", "selection", "resources", "users")  # fmt: skip
_KINDS = ("plain_text_input", "checkboxes", "multi_static_select", "datepicker", "timepicker", None, 5)


@st.composite
def tampered_views(draw: st.DrawFn) -> dict[str, Any]:
    """A view_submission's `view` as a forger could send it: any element kind, any JSON in any value."""
    values: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(_FIELDS), max_size=8, unique=True)):
        element: dict[str, Any] = {"type": draw(st.sampled_from(_KINDS))}
        key = draw(st.sampled_from(("value", "selected_date", "selected_time", "selected_options")))
        element[key] = draw(
            st.lists(st.fixed_dictionaries({"value": _json}), max_size=3)
            if key == "selected_options"
            else _json
        )
        values[name] = {"value": element} if draw(st.booleans()) else draw(_json)
    meta = draw(
        st.one_of(
            _json.map(json.dumps),
            st.fixed_dictionaries(
                {"user": _json, "org": _json, "groups": _json, "task": _json, "ref": _json}
            ).map(json.dumps),
            st.just('{"user": 5, "org": 1001, "groups": [1, 2], "task": 42}'),
        )
    )
    return {"state": {"values": values} if draw(st.booleans()) else draw(_json), "private_metadata": meta}


@given(tampered_views())
@settings(max_examples=300, deadline=None, derandomize=True)
def test_every_modal_check_answers_field_errors_and_never_raises(view: dict[str, Any]) -> None:
    submitted(view)
    for check in (access_view.GRANT.check, camera_view.ADD.check, task_view.UPDATE.check):
        result, errors = check(view)
        assert (result is None) == bool(errors)
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in errors.items())


def _button_value(blocks: list[Any]) -> str:
    actions = next(b for b in blocks if b.to_dict()["type"] == "actions").to_dict()
    return str(actions["elements"][0]["value"])


# -- service text in fallback texts --------------------------------------------------------------------------


def test_service_names_are_escaped_in_fallback_texts() -> None:
    user = User.model_validate({"userId": 5, "firstName": HOSTILE, "screenName": "<!here>"})
    text, _ = user_blocks(user)
    revoke_text, _ = revoke_confirmation(5, HOSTILE, 1001, "<!everyone>", None)
    delete_text, _ = delete_confirmation(5, HOSTILE, None)
    failed = WriteOutcome(True, False, "The service answered 400: <!channel> (ref r)", "r")
    done = outcome_text(f"{HOSTILE} deleted", WriteOutcome(True, True, "Done.", "r"))
    for shown in (text, revoke_text, delete_text, outcome_text(HOSTILE, failed), done):
        assert "<!" not in shown and "<@" not in shown and "<http" not in shown
        assert "&lt;!channel&gt;" in shown


# -- who may use the bot -------------------------------------------------------------------------------------


def _context(tmp_path: Path, roles: dict[str, Any]) -> AppContext:
    config = parse_config({"roles": roles})
    web = WebClient(token="xoxb-x", base_url="http://127.0.0.1:9/")  # never called: no user groups
    return AppContext(
        config=config,
        settings=Settings(data_dir=tmp_path),
        signing_secret="s",
        web_client=web,
        roles=RoleResolver(config.roles, web),
    )


def test_default_role_none_refuses_the_unlisted_and_names_the_admins(tmp_path: Path) -> None:
    roles = {"admins": ["U_ADMIN", "U_BOSS"], "viewers": ["U_VIEW"], "default_role": "none"}
    ctx = _context(tmp_path, roles)
    assert ctx.roles.role_of("U_STRANGER") == Role.NONE
    assert ctx.roles.role_of("U_VIEW") == Role.VIEWER
    assert ctx.roles.role_of("U_ADMIN") == Role.ADMIN
    for text in ("help", "alarms", "customer +905551112233", "user delete 5", "nonsense"):
        reply = route(ctx, text=text, user_id="U_STRANGER")
        assert reply is not None
        assert "Sorry" in reply.text and "<@U_ADMIN>" in reply.text and "<@U_BOSS>" in reply.text
    assert "Sorry" not in (route(ctx, text="help", user_id="U_VIEW") or pytest.fail()).text
    groups = parse_config({"roles": {"admins": ["S_LEADS"], "default_role": "none"}}).roles
    assert "<!subteam^S_LEADS>" in refusal(groups)
    assert "ask whoever runs samops" in refusal(parse_config({"roles": {"default_role": "none"}}).roles)


def test_default_role_viewer_keeps_everyone_a_viewer_and_customer_needs_a_technician(tmp_path: Path) -> None:
    ctx = _context(tmp_path, {"technicians": ["U_TECH"]})
    assert ctx.roles.role_of("U_ANYONE") == Role.VIEWER
    reply = route(ctx, text="customer +905551112233", user_id="U_ANYONE")
    assert reply is not None and "needs the technician role" in reply.text


def test_roles_config_checks_its_values() -> None:
    for roles in ({"default_role": "admin"}, {"viewers": ["not an id"]}, {"viewer": ["U1"]}):
        with pytest.raises(ConfigError):
            parse_config({"roles": roles})


# -- a write always leaves its audit row ---------------------------------------------------------------------


def test_a_write_that_blows_up_after_sending_is_audited_as_unknown(tmp_path: Path) -> None:
    ctx = _context(tmp_path, {})
    request = WriteRequest(
        slack_user="U1", command="user delete 5", summary="deleted user 5", dedupe_key="k1"
    )

    def sent_then_interrupted() -> None:
        raise KeyboardInterrupt  # escapes every handler of ours, as a crash after the request left would

    with pytest.raises(KeyboardInterrupt):
        run_write(ctx, request, sent_then_interrupted)
    (row,) = audit.recent(ctx.db(), command="user delete")
    assert row.outcome == "unknown" and row.slack_user == "U1"


def test_a_write_that_fails_is_audited_as_failed(tmp_path: Path) -> None:
    ctx = _context(tmp_path, {})
    request = WriteRequest(slack_user="U1", command="sensor rename 5", summary="renamed", dedupe_key="k2")

    def bug() -> None:
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    outcome = run_write(ctx, request, bug)
    assert outcome.ran and not outcome.ok and "Traceback" not in outcome.message
    (row,) = audit.recent(ctx.db(), command="sensor rename")
    assert row.outcome == "failed"


# -- slash-command ids ---------------------------------------------------------------------------------------

BAD_IDS = ("99999999999999999999", str(2**63), "0", "²", "#0")
ID_COMMANDS = (
    ("access grant {}", "userId"),
    ("access revoke {} 1001", "userId"),
    ("access revoke 2001 {}", "panelId"),
    ("alarms {} 2h", "panel"),
    ("bills {}", "subscriptionId"),
    ("user {}", "userId"),
    ("user delete {}", "userId"),
    ("panel {}", "resourceId"),
    ("privileges {}", "userId"),
    ("role {}", "roleId"),
    ("sensor rename {} Back door", "sensorId"),
    ("task update {}", "taskId"),
)


@pytest.mark.parametrize(
    ("command", "field", "bad"),
    # `/sam panel ²` and `/sam alarms ²` look for a panel by that name: ids there are ASCII digits
    [(c, f, b) for c, f in ID_COMMANDS for b in BAD_IDS if not (f in {"panel", "resourceId"} and b == "²")],
)
def test_every_id_argument_is_bounded_with_a_usage_answer(
    tmp_path: Path, command: str, field: str, bad: str
) -> None:
    ctx = _context(tmp_path, {"admins": ["U_ADMIN"]})
    reply = route(ctx, text=command.format(bad), user_id="U_ADMIN")
    assert reply is not None
    assert reply.text.startswith(f"{field}: ") and "Usage:" in reply.text


def test_usage_answers_quote_what_was_typed_escaped(tmp_path: Path) -> None:
    ctx = _context(tmp_path, {"admins": ["U_ADMIN"]})
    # A literally typed "<" reaches us as Slack's "&lt;", which the parser undoes.
    for text in ("customer &lt;!channel&gt;", "sensor rename &lt;!here&gt; x", "user &lt;!everyone&gt;@"):
        reply = route(ctx, text=text, user_id="U_ADMIN")
        assert reply is not None and "Usage:" in reply.text
        assert "<!" not in reply.text and "&lt;!" in reply.text
