"""The task form: the one-line `key=value` form, the modal's fields, and the operation-5 body."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.forms.fields import FieldError
from bot.forms.task import (
    TASK_KEYS,
    parse_task_args,
    refuse_past_dates,
    task_body,
    task_update_errors,
    task_values,
)
from bot.render.tasks import not_sent
from bot.slash.parse import parse_text
from bot.slash.registry import UsageError


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


def test_task_body_with_nothing_known_sends_only_what_was_given() -> None:
    body = task_body(parse_task_args(["42", "dates=2027-06-01"]), None)
    assert body == {"taskId": 42, "taskDates": ["2027-06-01"]}  # no [] nor null for what nobody knows
    assert "channels" in not_sent(body) and "dates" not in not_sent(body)
    body = task_body(parse_task_args(["42", "channels=email"]), {"taskName": "Old", "users": None})
    assert body == {"taskId": 42, "taskName": "Old", "notificationOptions": {"channels": ["email"]}}


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["name", "type", "dates", "channels", "audience", "selection", "resources", "users"]),
        st.sampled_from(["x", "2", "2027-06-01", "a,b", "7,8"]),
    )
)
def test_task_body_holds_no_value_nobody_gave_or_knew(values: dict[str, str]) -> None:
    try:
        update = parse_task_args(["42", *(f"{k}={v}" for k, v in values.items())])
    except FieldError:
        return
    body = task_body(update, None)
    options = body.pop("notificationOptions", {})
    assert len(body) - 1 + len(options) == len(values)
    assert all(v not in (None, []) for v in [*body.values(), *options.values()])


def test_past_task_dates_are_refused_on_the_organizations_clock() -> None:
    zone = ZoneInfo("Pacific/Kiritimati")  # UTC+14: its today is often UTC's tomorrow
    today = datetime.now(zone).date()
    refuse_past_dates(parse_task_args(["42", f"dates={today}"]), zone)
    with pytest.raises(FieldError) as err:
        refuse_past_dates(parse_task_args(["42", f"dates={today},{today - timedelta(days=1)}"]), zone)
    assert err.value.field == "dates" and f"{today - timedelta(days=1)} is in the past" in err.value.message
    assert f"today is {today} in Pacific/Kiritimati" in err.value.message
    errors = task_update_errors(42, {"dates": str(today - timedelta(days=1))}, zone)
    assert set(errors) == {"dates"}


def _view(values: dict[str, str]) -> dict:
    return {
        "state": {
            "values": {
                k: {"value": {"type": "plain_text_input", "value": v or None}} for k, v in values.items()
            }
        }
    }


def test_an_empty_modal_field_is_not_sent_unless_the_form_showed_it_filled() -> None:
    view = _view({"name": "", "dates": "", "channels": "", "users": "", "type": "3"})
    assert task_values(view) == {"type": "3"}
    assert task_values(view, prefilled=("channels", "name")) == {"type": "3", "channels": ""}
