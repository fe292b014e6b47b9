"""An alarm's action plan on its card: a progress line, one section per step with a "Done" button while the
alarm is not resolved (who ticked it and when, once ticked), and, for an alarm an admin resolved over
mandatory steps left, what was overridden and why (core/read/plans.py reads it all; docs/action_plans.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    Block,
    ButtonElement,
    InputBlock,
    PlainTextInputElement,
    PlainTextObject,
    SectionBlock,
)

from bot.render.common import MAX_SECTION_TEXT, clip, context, escape, section, typed
from bot.render.forms import VALUE
from core.action_plans import CAMERAS, KEYHOLDERS, SENSORS, Step
from core.read import Checklist, ChecklistStep, StepData
from core.text import counted
from core.timefmt import local

STEP_PREFIX = "alarm_plan_step_"  # + the step's index; the button's value names the alarm and the step
OVERRIDE = "override"  # the Resolve modal's field an admin gives a reason in (steps left)
MAX_REASON = 500
SHOWN = {KEYHOLDERS: "Authorized now", CAMERAS: "Cameras of the site", SENSORS: "Sensors"}  # a step's `shows`


def step_value(event_id: str, index: int) -> str:
    return json.dumps({"e": event_id, "s": index}, separators=(",", ":"))


def progress(checklist: Checklist) -> str:
    """ "2 of 3 steps, 1 mandatory left" (or "all mandatory done")."""
    total = len(checklist.steps)
    left = len(checklist.mandatory_left)
    mandatory = f"{left} mandatory left" if left else "no mandatory step left"
    return f"{checklist.done} of {counted(total, 'step')}, {mandatory}"


def labels(steps: Sequence[Step]) -> str:
    """Steps named for a sentence: "“Call a keyholder”, “Dispatch or stand down”"."""
    return ", ".join(f"“{step.label}”" for step in steps)


def _data_line(data: StepData) -> str:
    if not data.items:
        return f"_{escape(data.none)}_"
    shown = [f"{escape(name)} ({escape(state)})" if state else escape(name) for name, state in data.items]
    more = f" and {data.more} more" if data.more else ""
    return ", ".join(shown) + more


def _step_block(event_id: str, item: ChecklistStep, zone: ZoneInfo, can_tick: bool) -> SectionBlock:
    step = item.step
    mandatory = " (mandatory)" if step.mandatory else ""
    if item.tick is not None:
        mark = ":white_check_mark:"
        status = f"done by <@{escape(item.tick.by_user)}> at {local(item.tick.at, zone, seconds=True)}"
    else:
        mark, status = ":white_large_square:", "to do"
    lines = [f"{mark} *{item.number}. {escape(step.label)}*{mandatory} · {status}"]
    if item.data is not None and step.shows is not None:
        lines.append(f"{SHOWN[step.shows]}: {_data_line(item.data)}")
    accessory = None
    if can_tick and item.tick is None:
        accessory = ButtonElement(
            text=PlainTextObject(text=f"Done: step {item.number}"),
            action_id=f"{STEP_PREFIX}{item.number - 1}",
            value=step_value(event_id, item.number - 1),
        )
    return SectionBlock(text=clip("\n".join(lines), MAX_SECTION_TEXT), accessory=accessory)


def override_line(checklist: Checklist, zone: ZoneInfo) -> str | None:
    found = checklist.override
    if found is None:
        return None
    left = ", ".join(f"“{escape(label)}”" for label in found.steps_left)
    return (
        f":warning: *Resolved with mandatory steps left* ({left}): overridden by <@{escape(found.by_user)}>"
        f" at {local(found.at, zone, seconds=True)} — {typed(clip(found.reason, 500))}"  # their words
    )


def override_blocks(metadata: dict[str, Any]) -> list[Block]:
    """The Resolve form's reason field, for an admin resolving with mandatory steps left (bot/actions/plans.py
    puts `ov` in the form's metadata then)."""
    if not metadata.get("ov"):
        return []
    return [
        section(
            ":warning: Mandatory steps of the action plan are not done. As an admin you may resolve anyway:"
            " say why. The reason is kept in the audit log and shown on the card."
        ),
        InputBlock(
            block_id=OVERRIDE,
            label="Why resolve with steps left",
            element=PlainTextInputElement(action_id=VALUE, multiline=True, max_length=MAX_REASON),
        ),
    ]


def checklist_blocks(event_id: str, checklist: Checklist, zone: ZoneInfo, resolved: bool) -> list[Block]:
    """The plan's blocks for the card: steps can be ticked until the alarm is resolved."""
    head = f":clipboard: *Action plan: {escape(checklist.plan.name)}* · {progress(checklist)}"
    blocks: list[Block] = [context(head)]
    blocks += [_step_block(event_id, item, zone, not resolved) for item in checklist.steps]
    if (line := override_line(checklist, zone)) is not None:
        blocks.append(context(line))
    return blocks
