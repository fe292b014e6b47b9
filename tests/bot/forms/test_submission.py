"""The write modals' checks fed tampered submissions: field errors, never an exception."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.forms import access as access_view
from bot.forms import camera as camera_view
from bot.forms import task as task_view

# Importing a command module registers its subcommands with the router.
from bot.forms.access import grant_from_values
from bot.forms.camera import camera_from_values
from bot.forms.submission import submitted
from bot.render.forms import camera_add_modal

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


@given(tampered_views())
@settings(max_examples=300, deadline=None, derandomize=True)
def test_every_modal_check_answers_field_errors_and_never_raises(view: dict[str, Any]) -> None:
    submitted(view)
    for check in (access_view.GRANT.check, camera_view.ADD.check, task_view.UPDATE.check):
        result, errors = check(view)
        assert (result is None) == bool(errors)
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in errors.items())


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
