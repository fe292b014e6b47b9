"""The error boundary: a page that fails shows a short message with a reference id, never a traceback.

The whole traceback goes to the dashboard's log under the same reference, at ERROR: input from the URL is
parsed before any page uses it (dashboard/filters.py), so what reaches here is a fault of ours or of the
cache, which someone should look at. Streamlit's own `st.stop()` and `st.rerun()` are BaseExceptions, not
Exceptions, so they pass through untouched.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import streamlit as st

from core.reference import new_reference

log = logging.getLogger(__name__)


@contextmanager
def guard(what: str) -> Iterator[None]:
    try:
        yield
    except Exception:
        reference = new_reference()
        log.error("%s failed, reference %s", what, reference, exc_info=True)
        st.error(
            f"Something went wrong while showing {what}. Reference {reference}: the dashboard's log has "
            "the details. Reloading the page may help.",
            icon=":material/error:",
        )


def fragment(run_every: float | None = None) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """`st.fragment`, guarded: a fragment's own reruns (`run_every`) do not pass through the page's guard."""

    def decorate(func: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(func)
        def guarded(*args: Any, **kwargs: Any) -> None:
            with guard("this part of the page"):
                func(*args, **kwargs)

        return st.fragment(guarded, run_every=run_every)

    return decorate
