"""Filters held in the URL: a widget starts from its query parameter and writes it back when it changes.

Widgets bound through `bind="query-params"` key the URL on the formatted label; ours key on ids (the Slack
alarm card links to `/alarms?panel=<resourceId>`), hence this small helper.

The URL is input from anyone. Every parameter is parsed and bounded by one of the parsers below: ids are
positive int64 values, choices are one of their values, text is cleaned of control characters and capped.
A value that does not parse leaves the filter at its default, with a small notice on the page (naming the
parameter, never echoing the value) and a log line at INFO: a bad link is not a fault of the dashboard.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from core import timefmt
from core.models import INT64_MAX
from core.read import clean_text

log = logging.getLogger(__name__)

TEXT_MAX = 200  # characters of search text; longer is no search anyone types
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}

# A parser returns the value, and a notice when it had to change what the URL said; it raises
# ValueError(reason) when nothing usable is left, and the filter keeps its default.
Parser = Callable[[str], tuple[Any, str | None]]


def seed(key: str, param: str, parse: Parser, default: Any = None) -> None:
    """Give widget `key` its starting value from `?param=` once per session (bad values give the default)."""
    if key in st.session_state:
        return
    raw = st.query_params.get(param)
    value, notice = default, None
    if raw:
        try:
            value, notice = parse(raw)
        except ValueError as exc:
            value, notice = default, f"{exc}, so it was ignored"
    if notice:
        log.info("query parameter %s=%.80r: %s", param, raw, notice)
        note(f"The link's `{param}` value {notice}.")
    st.session_state[key] = default if value is None else value


def note(text: str) -> None:
    """A small notice about the link. `text` is ours: user text never goes through markdown."""
    st.caption(f":material/info: {text}")


_SHARED = "_filters_shared"  # session key: the parameters every page keeps in the URL (the time zone)


def share(param: str, value: Any) -> None:
    """Keep `?param=value` in the URL on every page (None or "" takes it out), whatever the page publishes."""
    shared = st.session_state.setdefault(_SHARED, {})
    shared[param] = value
    if value in (None, ""):
        st.query_params.pop(param, None)
    elif st.query_params.get(param) != str(value):
        st.query_params[param] = str(value)


def publish(params: Mapping[str, Any]) -> None:
    """Make the URL reproduce the view: non-empty filters only, so a default view has a clean URL."""
    every = {**st.session_state.get(_SHARED, {}), **params}
    wanted = {name: str(value) for name, value in every.items() if value not in (None, "", False)}
    if wanted != st.query_params.to_dict():
        st.query_params.from_dict(wanted)


def identifier(raw: str) -> tuple[int, None]:
    """An organization, panel or camera id: decimal ASCII digits, 1 to 2**63 - 1 (what SQLite holds)."""
    digits = raw.strip()
    # isdigit() alone also takes "²" and "٣"; int() also takes "1_000" and " +1".
    if not (digits.isascii() and digits.isdigit()) or len(digits) > len(str(INT64_MAX)):
        raise ValueError("is not an id")
    value = int(digits)
    if not 1 <= value <= INT64_MAX:
        raise ValueError("is not an id")
    return value, None


def text(raw: str) -> tuple[str, str | None]:
    """Search text: control characters removed (a NUL once matched every alarm), at most TEXT_MAX long."""
    cleaned = clean_text(raw)
    notices = []
    if cleaned != raw.strip():
        notices.append("had control characters, which were removed")
    if len(cleaned) > TEXT_MAX:
        cleaned = cleaned[:TEXT_MAX].rstrip()
        notices.append(f"was cut to {TEXT_MAX} characters")
    return cleaned, " and ".join(notices) or None


def zone_name(raw: str) -> tuple[str, None]:
    """An IANA time zone name, as the tz database spells it (Europe/Istanbul, UTC)."""
    name = raw.strip()
    if timefmt.zone(name) is None:
        raise ValueError("is not a known time zone")
    return name, None


def flag(raw: str) -> tuple[bool, None]:
    word = raw.strip().lower()
    if word in _TRUE | _FALSE:
        return word in _TRUE, None
    raise ValueError("is neither true nor false")


def choice(options: list[Any]) -> Parser:
    """One of `options`, compared with their text, case-insensitively."""

    def parse(raw: str) -> tuple[Any, None]:
        wanted = raw.strip().lower()
        for option in options:
            if str(option).lower() == wanted:
                return option, None
        raise ValueError(f"is not one of {', '.join(map(str, options))}")

    return parse
