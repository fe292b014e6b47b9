"""The one id parser (`bot/forms/fields.py` `parse_id`) and the other field checks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# Importing a command module registers its subcommands with the router.
from bot.forms.fields import MAX_ID, FieldError, looks_like_id, parse_id
from bot.slash.registry import UsageError


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


def test_parse_id_names_the_field() -> None:
    assert parse_id("#42", "taskId") == 42
    with pytest.raises(UsageError, match="taskId: expected a number"):
        parse_id("4x2", "taskId")
    with pytest.raises(UsageError):
        parse_id("\u0663", "taskId")  # Arabic-Indic digit: isdigit() but not an id
