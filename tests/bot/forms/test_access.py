"""The access-grant form: every privilege group listed, windows converted, errors naming the field."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.forms.access import grant_from_values


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
