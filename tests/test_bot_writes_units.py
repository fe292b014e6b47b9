"""The write commands' pure parts: input validation, the one-line task form, Block Kit builders, and the
audit/dedupe/task-state tables on a real SQLite file."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.forms.access import grant_from_values
from bot.forms.camera import camera_from_values
from bot.forms.fields import FieldError
from bot.forms.submission import submitted
from bot.forms.task import TASK_KEYS, parse_task_args, task_body, task_update_errors
from bot.render.access import (
    CONFIRM_ACTION,
    PanelChoice,
    PrivilegeGroup,
    delete_confirmation,
    grant_modal,
    revoke_confirmation,
)
from bot.render.forms import camera_add_modal
from bot.render.tasks import task_modal
from bot.slash.parse import parse_text
from bot.slash.registry import UsageError

# -- the one-line task form ---------------------------------------------------------------------------------


def test_one_line_task_form_parses_every_field() -> None:
    update = parse_task_args(
        [
            "42",
            "name=Night patrol",
            "dates=2026-12-01,2026-12-02",
            "type=2",
            "channels=email,sms",
            "audience=admins",
            "selection=resources",
            "resources=1,2",
            "users=3,4",
        ]
    )
    assert update.task_id == 42
    assert update.name == "Night patrol"
    assert update.dates == ["2026-12-01", "2026-12-02"]
    assert update.task_type == 2
    assert update.channels == ["email", "sms"]
    assert update.audience == ["admins"]
    assert update.selection == "resources"
    assert update.resources == [1, 2]
    assert update.users == [3, 4]


def test_one_line_form_rejoins_a_quoted_name_split_on_spaces() -> None:
    update = parse_task_args(["42", 'name="Night', 'patrol"', "type=1"])
    assert update.name == "Night patrol"
    assert update.given == ("name", "type")


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["x42"], "taskId"),
        (["0"], "taskId"),
        (["42", "dates=2026-13-01"], "dates"),
        (["42", "dates=01.12.2026"], "dates"),
        (["42", "dates=2026-02-30"], "dates"),
        (["42", "name="], "name"),
        (["42", 'name="  "'], "name"),
        (["42", "type=two"], "type"),
        (["42", "resources=1,x"], "resources"),
        (["42", "users=-3"], "users"),
        (["42", "channels=e mail!"], "channels"),
        (["42", "name=a", "name=b"], "name"),
    ],
)
def test_one_line_form_names_the_bad_field(args: list[str], field: str) -> None:
    with pytest.raises(FieldError) as err:
        parse_task_args(args)
    assert err.value.field == field


def test_one_line_form_rejects_unknown_keys_and_bare_words() -> None:
    with pytest.raises(UsageError, match="unknown field"):
        parse_task_args(["42", "colour=red"])
    with pytest.raises(UsageError):
        parse_task_args([])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=30), max_size=8))
def test_one_line_form_never_raises_anything_but_usage_errors(words: list[str]) -> None:
    try:
        update = parse_task_args(words)
    except UsageError:
        return
    assert update.task_id > 0


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_typed_text_through_the_router_split_never_crashes_the_task_form(text: str) -> None:
    words = parse_text(f"task update {text}").words[2:]
    try:
        update = parse_task_args(words)
    except UsageError:
        return
    assert update.task_id > 0 and set(update.changes()) <= set(TASK_KEYS)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["name", "type", "dates", "channels", "audience", "selection", "resources", "users"]),
        st.text(max_size=30),
    )
)
def test_modal_field_errors_never_crash(values: dict[str, str]) -> None:
    errors = task_update_errors(7, values)
    assert set(errors) <= set(values)


def test_task_body_keeps_the_known_state_under_the_changes() -> None:
    known = {
        "taskId": 42,
        "taskName": "Old",
        "taskType": 1,
        "taskDates": ["2026-01-01"],
        "notificationOptions": {"channels": ["push"], "audience": ["admins"], "userId": 9},
        "selection": "resources",
        "resources": [1],
        "users": [2],
        "userType": "organization",
    }
    body = task_body(parse_task_args(["42", "name=New", "channels=email"]), known)
    assert body["taskName"] == "New"
    assert body["notificationOptions"] == {"channels": ["email"], "audience": ["admins"], "userId": 9}
    assert (
        body["taskDates"] == ["2026-01-01"]
        and body["resources"] == [1]
        and body["userType"] == "organization"
    )


# -- the grant and camera modals' checks ---------------------------------------------------------------------


def test_grant_lists_every_group_and_converts_windows() -> None:
    grant, errors = grant_from_values(
        {
            "groups": ["1", "3"],
            "panels": ["1001", "1002"],
            "validity_start": "2026-12-01",
            "expiry": "2026-12-31",
            "days": ["1", "5"],
            "window_start": "08:00",
            "window_end": "18:30",
        },
        [1, 2, 3, 4],
    )
    assert errors == {}
    assert grant is not None
    assert grant.groups == {1: True, 2: False, 3: True, 4: False}
    assert grant.panels == [1001, 1002]
    assert grant.period == [
        {"dayOfWeek": 1, "start": 8 * 3_600_000, "end": 18 * 3_600_000 + 30 * 60_000},
        {"dayOfWeek": 5, "start": 8 * 3_600_000, "end": 18 * 3_600_000 + 30 * 60_000},
    ]
    assert grant.validity_start == int(datetime(2026, 12, 1, tzinfo=UTC).timestamp() * 1000)
    assert grant.expiration == int(datetime(2027, 1, 1, tzinfo=UTC).timestamp() * 1000) - 1  # through Dec 31


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"panels": []}, "panels"),
        ({"panels": ["1"], "days": ["8"], "window_start": "08:00", "window_end": "09:00"}, "days"),
        ({"panels": ["1"], "days": ["0"], "window_start": "08:00", "window_end": "09:00"}, "days"),
        ({"panels": ["1"], "days": ["1"], "window_start": "25:00", "window_end": "09:00"}, "window_start"),
        ({"panels": ["1"], "days": ["1"], "window_start": "10:00", "window_end": "09:00"}, "window_end"),
        ({"panels": ["1"], "days": ["1"], "window_start": "10:00"}, "window_end"),
        ({"panels": ["1"], "window_start": "10:00", "window_end": "11:00"}, "days"),
        ({"panels": ["1"], "validity_start": "2026-12-10", "expiry": "2026-12-01"}, "expiry"),
        ({"panels": ["1"], "expiry": "2026-12-1"}, "expiry"),
        ({"panels": ["1"], "groups": ["99"]}, "groups"),
    ],
)
def test_grant_errors_name_the_field_and_give_no_grant(values: dict, field: str) -> None:
    grant, errors = grant_from_values(values, [1, 2])
    assert grant is None
    assert field in errors


def test_camera_form_checks_fields_and_keeps_codes_out_of_summary_and_repr() -> None:
    form, errors = camera_from_values(
        {
            "name": "Lobby",
            "brand": "Hikvision",
            "serial": "D123",
            "security_code": "SEKRET1",
            "nc_code": "NCX9",
        }
    )
    assert errors == {} and form is not None
    assert "SEKRET1" not in form.summary() + repr(form) and "NCX9" not in form.summary() + repr(form)
    _, errors = camera_from_values({"name": " ", "brand": "", "serial": "a b", "subscription": "x"})
    assert set(errors) == {"name", "brand", "serial", "security_code", "subscription"}


# -- Block Kit -----------------------------------------------------------------------------------------------


def test_confirmations_use_a_danger_dialog_that_says_what_changes() -> None:
    text, blocks = revoke_confirmation(2001, "Ayse Kaya", 1001, "Depot North", 1)
    rendered = json.dumps([b.to_dict() for b in blocks])
    button = next(
        e for b in blocks if b.type == "actions" for e in b.elements if e.action_id == CONFIRM_ACTION
    )
    data = button.to_dict()
    assert data["style"] == "danger" and data["confirm"]["style"] == "danger"
    assert (
        data["confirm"]["text"]["text"]
        == "Ayse Kaya (user 2001) will lose access to Depot North (panel 1001)."
    )
    assert json.loads(data["value"])["op"] == "revoke"
    assert "Ayse Kaya" in text and "Depot North" in rendered
    _, blocks = delete_confirmation(2001, None, 1)
    data = blocks[1].elements[0].to_dict()
    assert (
        data["confirm"]["style"] == "danger"
        and "user 2001 will be deleted" in data["confirm"]["text"]["text"]
    )


def test_grant_modal_lists_every_group_and_prefills_authority() -> None:
    groups = [PrivilegeGroup(i, None, i % 2 == 0) for i in range(1, 13)]  # more than fit in checkboxes
    view = grant_modal(
        7,
        "Can Demir",
        groups,
        [PanelChoice(1001, "Depot")],
        {"user": 7},
        current_days=[1],
        current_window=(0, 60_000),
    ).to_dict()
    assert len(view["blocks"]) <= 100
    groups_block = next(b for b in view["blocks"] if b.get("block_id") == "groups")
    assert [o["value"] for o in groups_block["element"]["options"]] == [str(i) for i in range(1, 13)]
    assert {o["value"] for o in groups_block["element"]["initial_options"]} == {
        str(i) for i in range(2, 13, 2)
    }
    panels = next(b for b in view["blocks"] if b.get("block_id") == "panels")
    assert "initial_options" not in panels["element"]
    view2 = grant_modal(
        7, None, groups, [PanelChoice(1001, "Depot"), PanelChoice(1002, None)], {}, current_panels=[1002]
    )
    panels = next(b for b in view2.to_dict()["blocks"] if b.get("block_id") == "panels")
    assert [o["value"] for o in panels["element"]["initial_options"]] == ["1002"]
    window = next(b for b in view["blocks"] if b.get("block_id") == "window_end")
    assert window["element"]["initial_time"] == "00:01"


def test_task_modal_says_when_nothing_is_known_and_prefills_otherwise() -> None:
    empty = json.dumps(task_modal(42, {"task": 42}, None).to_dict())
    assert "Nothing is known about this task yet" in empty
    known = {"taskName": "Night patrol", "taskDates": ["2026-12-01"], "resources": [1, 2]}
    view = task_modal(42, {"task": 42}, known, 1_795_996_800_000, "U1").to_dict()
    initial = {
        b["block_id"]: b["element"].get("initial_value") for b in view["blocks"] if b["type"] == "input"
    }
    assert (
        initial["name"] == "Night patrol"
        and initial["dates"] == "2026-12-01"
        and initial["resources"] == "1,2"
    )
    assert json.loads(view["private_metadata"]) == {"task": 42}


def test_submitted_reads_every_element_kind() -> None:
    view = camera_add_modal({}).to_dict()
    assert {b.get("block_id") for b in view["blocks"]} >= {"name", "serial", "security_code", "nc_code"}
    state = {
        "values": {
            "name": {"value": {"type": "plain_text_input", "value": "Lobby"}},
            "expiry": {"value": {"type": "datepicker", "selected_date": "2026-12-01"}},
            "window_start": {"value": {"type": "timepicker", "selected_time": "08:00"}},
            "groups": {"value": {"type": "checkboxes", "selected_options": [{"value": "1"}]}},
        }
    }
    assert submitted({"state": state}) == {
        "name": "Lobby",
        "expiry": "2026-12-01",
        "window_start": "08:00",
        "groups": ["1"],
    }
