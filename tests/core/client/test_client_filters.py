"""The filters `list_activities`/`iter_activities` and `get_push_history`/`iter_push_history` share: a
misspelt one is refused before anything is sent, as a misspelt keyword argument is."""

from __future__ import annotations

from typing import Any

import pytest

from core.client.api import SamClient
from core.settings import Settings

# Nothing listens on port 9 (discard): a request that went out would fail with a connection error, not
# the TypeError these tests expect.
NOWHERE = "http://127.0.0.1:9"


@pytest.mark.parametrize(
    ("call", "wrong"),
    [
        (lambda sam, **kw: sam.list_activities([1], **kw), "start"),
        (lambda sam, **kw: next(sam.iter_activities([1], **kw)), "groupIds"),
        (lambda sam, **kw: sam.get_push_history(1, **kw), "types"),
        (lambda sam, **kw: next(sam.iter_push_history(1, **kw)), "start_sec"),
    ],
)
def test_an_unknown_filter_is_a_type_error_naming_it(call: Any, wrong: str) -> None:
    with (
        SamClient(Settings(_env_file=None, base_url=NOWHERE)) as sam,
        pytest.raises(TypeError, match=repr(wrong)),
    ):
        call(sam, **{wrong: 1})
