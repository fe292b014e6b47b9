"""Modal building blocks shared by the write commands, the camera modal, and the answers to writes.

Every input block has `block_id` = the field's name and one element with `action_id` "value", so a view
submission reads `state.values[field]["value"]` and errors are keyed by the same field name.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from slack_sdk.models.blocks import (
    Block,
    CheckboxesElement,
    DatePickerElement,
    InputBlock,
    Option,
    PlainTextInputElement,
    PlainTextObject,
    StaticMultiSelectElement,
    TimePickerElement,
)
from slack_sdk.models.views import View

from bot.render.common import context, escape, section
from bot.response_urls import MAC

VALUE = "value"  # the action_id of every input element
MAX_CHECKBOXES = 10  # Slack's limit for a checkboxes element; beyond it a multi-select is used
MAX_SELECT_OPTIONS = 100
MAX_PRIVATE_METADATA = 3000
MAX_PAYLOAD_VALUE = 4000  # what we read back: above Slack's limits, below anything costly to parse

CAMERA_ADD = "sam_camera_add"


def text_input(
    field: str,
    label: str,
    *,
    initial: str | None = None,
    hint: str | None = None,
    placeholder: str | None = None,
    optional: bool = False,
    max_length: int | None = None,
) -> InputBlock:
    element = PlainTextInputElement(
        action_id=VALUE,
        initial_value=initial or None,
        placeholder=placeholder,
        max_length=max_length,
    )
    return InputBlock(block_id=field, label=label, element=element, hint=hint, optional=optional)


def date_input(field: str, label: str, *, initial: str | None = None, hint: str | None = None) -> InputBlock:
    element = DatePickerElement(action_id=VALUE, initial_date=initial)
    return InputBlock(block_id=field, label=label, element=element, hint=hint, optional=True)


def time_input(field: str, label: str, *, initial: str | None = None, hint: str | None = None) -> InputBlock:
    element = TimePickerElement(action_id=VALUE, initial_time=initial)
    return InputBlock(block_id=field, label=label, element=element, hint=hint, optional=True)


def choice_input(
    field: str,
    label: str,
    options: Sequence[tuple[str, str]],
    *,
    selected: Sequence[str] = (),
    hint: str | None = None,
    optional: bool = True,
) -> InputBlock:
    """Several choices among `options` ((value, label) pairs): checkboxes when few, else a multi-select."""
    opts = [Option(value=value, text=PlainTextObject(text=label[:75])) for value, label in options]
    chosen = [o for o in opts if o.value in set(selected)]
    element: CheckboxesElement | StaticMultiSelectElement
    if len(opts) <= MAX_CHECKBOXES:
        element = CheckboxesElement(action_id=VALUE, options=opts, initial_options=chosen or None)
    else:
        element = StaticMultiSelectElement(
            action_id=VALUE, options=opts[:MAX_SELECT_OPTIONS], initial_options=chosen or None
        )
    return InputBlock(block_id=field, label=label, element=element, hint=hint, optional=optional)


def modal(
    callback_id: str, title: str, blocks: Sequence[Block], metadata: dict[str, Any], submit: str = "Save"
) -> View:
    private = json.dumps(metadata, separators=(",", ":"))
    if len(private) > MAX_PRIVATE_METADATA:
        # The response_url is the only long member; without it the answer goes by chat.postEphemeral.
        private = json.dumps(
            {k: v for k, v in metadata.items() if k not in {"response_url", MAC}}, separators=(",", ":")
        )
    return View(
        type="modal",
        callback_id=callback_id,
        title=title[:24],
        submit=submit,
        close="Cancel",
        blocks=list(blocks),
        private_metadata=private,
    )


# -- the camera modal ---------------------------------------------------------------------------------------


def camera_add_modal(meta: dict[str, Any], org_name: str | None = None) -> View:
    where = f"organization *{escape(org_name)}*" if org_name else "the default organization"
    blocks: list[Block] = [
        section(f"Add a camera to {where}."),
        text_input("name", "Camera name", placeholder="Lobby camera", max_length=100),
        text_input("brand", "Brand", placeholder="Hikvision", max_length=50),
        text_input("serial", "Device serial number", placeholder="D12345678", max_length=64),
        text_input(
            "security_code",
            "Security (verification) code",
            hint="Sent to the service only; never shown, logged or audited.",
            max_length=64,
        ),
        text_input(
            "nc_code",
            "NC code",
            optional=True,
            hint="Sent to the service only; never shown, logged or audited.",
            max_length=64,
        ),
        text_input("subscription", "Subscription id", optional=True, placeholder="e.g. 5001", max_length=19),
    ]
    return modal(CAMERA_ADD, "Add a camera", blocks, meta, submit="Add camera")


def write_answer(title: str, lines: Sequence[str], reference: str, ok: bool = True) -> list[Block]:
    """The message after a write: what was done (or why not), and the reference id."""
    mark = "✅" if ok else "❌"
    blocks: list[Block] = [section(f"{mark} *{escape(title)}*" + ("\n" + "\n".join(lines) if lines else ""))]
    blocks.append(context(f"ref {reference}"))
    return blocks
