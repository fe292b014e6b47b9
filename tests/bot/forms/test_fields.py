"""The one id parser (`bot/forms/fields.py` `parse_id`) and the other field checks."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.actions.lifecycle import ResolveMeta, read_note

# Importing a command module registers its subcommands with the router.
from bot.forms.fields import MAX_ID, FieldError, free_text, looks_like_id, parse_id, parse_name
from bot.render.alarms import NOTE
from bot.render.forms import VALUE
from bot.slash.registry import UsageError
from core.text import is_control


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


# --- free text (parse_name) --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("Front\x00door", "U+0000"),
        ("\x1b[31mRed", "U+001B"),
        ("exit\u202etxt.exe", "U+202E"),
        ("\u2066isolated\u2069", "U+2066"),
        ("\u202aembedded", "U+202A"),
        ("del\x7f", "U+007F"),
        ("next\x85line", "U+0085"),
        ("unit\x1fsep", "U+001F"),
    ],
)
def test_parse_name_refuses_control_and_bidi_characters_naming_the_field(typed: str, code: str) -> None:
    with pytest.raises(FieldError) as caught:
        parse_name(typed, "description")
    assert caught.value.field == "description" and code in caught.value.message
    assert not any(is_control(c) for c in str(caught.value))  # the answer does not echo them back


def test_parse_name_makes_layout_whitespace_one_space_and_keeps_other_text() -> None:
    assert parse_name("  Back\tdoor\r\n  left \x0b\x0c ", "name") == "Back door left"
    for text in ("Kapı — giriş", "مدخل", "Caf\u00e9 \U0001f600", "family \U0001f468\u200d\U0001f469"):
        assert parse_name(text, "name") == text


@given(st.text(max_size=60))
@settings(max_examples=300, deadline=None)
def test_parse_name_never_passes_a_control_character_on(value: str) -> None:
    try:
        text = parse_name(value, "name")
    except FieldError as exc:
        assert exc.field == "name"
        return
    assert text and not any(is_control(c) for c in text)


# --- lone surrogates (issue 26): refused by the form, never accepted and then failed at the write ---------

# Half of a UTF-16 pair alone, what JSON's "\ud800" decodes to: no UTF-8 encodes it, so SQLite refuses it.
with_surrogates = st.lists(
    st.one_of(st.characters(), st.characters(whitelist_categories=["Cs"])), max_size=40
).map("".join)


@pytest.mark.parametrize("typed", ["\ud800", "Door left open \udfff", "\udbff\udc00x\ud83d", "\ud83d"])
def test_free_text_refuses_a_lone_surrogate_naming_the_field(typed: str) -> None:
    for parse in (free_text, parse_name):
        with pytest.raises(FieldError) as caught:
            parse(typed, "note")
        assert caught.value.field == "note" and "surrogate" in caught.value.message
        str(caught.value).encode()  # the answer itself is sendable


def test_the_resolve_note_with_a_lone_surrogate_is_answered_under_the_field() -> None:
    view = {"state": {"values": {NOTE: {VALUE: {"type": "plain_text_input", "value": "fixed \ud800"}}}}}
    form, errors = read_note(ResolveMeta(e="EV-1"), view)
    assert form is None and "surrogate" in errors[NOTE]


@given(with_surrogates)
@settings(max_examples=300, deadline=None)
def test_what_free_text_accepts_can_be_written(value: str) -> None:
    try:
        text = free_text(value, "note")
    except FieldError as exc:
        assert exc.field == "note"
        return
    db = sqlite3.connect(":memory:")  # the write that failed at ERROR: the audit row and the note
    db.execute("CREATE TABLE t (note TEXT)")
    db.execute("INSERT INTO t VALUES (?)", [text])
    assert db.execute("SELECT note FROM t").fetchone() == (text,)
