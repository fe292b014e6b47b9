"""Filling a modal as Slack would, for `samops slash --submit field=value …`: each input block's state the
way a view_submission carries it (its block_id, the element's action_id, the element's own value keys),
the fields not named keeping the form's initial values."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

LISTS = frozenset({"checkboxes", "multi_static_select"})


class FormError(ValueError):
    """A field the form does not have, or a choice it does not offer."""


def form_of(answers: Sequence[Mapping[str, Any]], event_type: str) -> dict[str, Any] | None:
    """The view an answer carries in its metadata (`Reply.form`), if any."""
    for answer in answers:
        metadata = answer.get("metadata")
        if isinstance(metadata, dict) and metadata.get("event_type") == event_type:
            view = (metadata.get("event_payload") or {}).get("view")
            if isinstance(view, dict):
                return view
    return None


def parse_pairs(pairs: Sequence[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for pair in pairs:
        field, sep, value = pair.partition("=")
        if not sep or not field.strip():
            raise FormError(f"{pair!r} is not field=value")
        values[field.strip()] = value
    return values


def _option_label(option: Mapping[str, Any]) -> str:
    return str((option.get("text") or {}).get("text") or option.get("value"))


def _choose(field: str, options: Sequence[Mapping[str, Any]], wanted: str) -> dict[str, Any]:
    for option in options:
        if wanted in {str(option.get("value")), _option_label(option)}:
            return dict(option)
    offered = ", ".join(f"{o.get('value')} ({_option_label(o)})" for o in options)
    raise FormError(f"{field}: {wanted!r} is not one of its choices: {offered}")


def element_state(field: str, element: Mapping[str, Any], given: str | None) -> dict[str, Any]:
    """The element's state in a view_submission: `given` (text) or else its initial value."""
    kind = str(element.get("type"))
    state: dict[str, Any] = {"type": kind}
    if kind == "datepicker":
        state["selected_date"] = given or element.get("initial_date")
    elif kind == "timepicker":
        state["selected_time"] = given or element.get("initial_time")
    elif kind in LISTS:
        options = element.get("options") or []
        if given is None:
            state["selected_options"] = list(element.get("initial_options") or [])
        else:
            words = [w.strip() for w in given.split(",") if w.strip()]
            state["selected_options"] = [_choose(field, options, w) for w in words]
    elif kind in {"static_select", "radio_buttons"}:
        options = element.get("options") or []
        chosen = _choose(field, options, given) if given else element.get("initial_option")
        state["selected_option"] = chosen
    else:  # plain_text_input, number_input, email and url inputs
        value = given if given is not None else element.get("initial_value")
        state["value"] = value or None
    return state


def fill(view: Mapping[str, Any], given: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """`state.values` of the view with the `given` fields (by block_id); FormError names a field it lacks."""
    inputs = [b for b in view.get("blocks") or [] if b.get("type") == "input" and b.get("block_id")]
    names = {str(b["block_id"]) for b in inputs}
    unknown = sorted(set(given) - names)
    if unknown:
        raise FormError(f"the form has no field {', '.join(unknown)}; its fields: {', '.join(sorted(names))}")
    values: dict[str, dict[str, Any]] = {}
    for block in inputs:
        field, element = str(block["block_id"]), block.get("element") or {}
        action = str(element.get("action_id") or "value")
        values[field] = {action: element_state(field, element, given.get(field))}
    return values


def submission(view: Mapping[str, Any], values: Mapping[str, Any], user: str, team: str) -> dict[str, Any]:
    """The view_submission payload Slack would send for `view` filled with `values`."""
    return {
        "type": "view_submission",
        "team": {"id": team, "domain": "samops"},
        "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": team},
        "api_app_id": "A_SAMOPS",
        "token": "samops-local",
        "trigger_id": f"0.{secrets.token_hex(6)}",
        "view": {
            **view,
            "id": f"V{secrets.token_hex(5).upper()}",
            "hash": secrets.token_hex(8),
            "team_id": team,
            "state": {"values": values},
        },
        "response_urls": [],
        "is_enterprise_install": False,
    }
