"""Filters held in the URL: a widget starts from its query parameter and writes it back when it changes.

Widgets bound through `bind="query-params"` key the URL on the formatted label; ours key on ids (the Slack
alarm card links to `/alarms?panel=<resourceId>`), hence this small helper.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st


def seed(key: str, param: str, parse: Callable[[str], Any], default: Any = None) -> None:
    """Give widget `key` its starting value from `?param=` once per session (bad values give the default)."""
    if key in st.session_state:
        return
    raw = st.query_params.get(param)
    value = None
    if raw:
        try:
            value = parse(raw)
        except ValueError:
            value = None
    st.session_state[key] = default if value is None else value


def publish(params: Mapping[str, Any]) -> None:
    """Make the URL reproduce the view: non-empty filters only, so a default view has a clean URL."""
    wanted = {name: str(value) for name, value in params.items() if value not in (None, "", False)}
    if wanted != st.query_params.to_dict():
        st.query_params.from_dict(wanted)


def int_or_none(raw: str) -> int | None:
    return int(raw.strip())


def text(raw: str) -> str:
    return raw.strip()


def flag(raw: str) -> bool:
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def choice(options: list[Any]) -> Callable[[str], Any]:
    def parse(raw: str) -> Any:
        for option in options:
            if str(option) == raw.strip():
                return option
        raise ValueError(raw)

    return parse
