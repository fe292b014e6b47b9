"""The task modal's Block Kit."""

from __future__ import annotations

import json

from bot.render.tasks import task_modal


def test_task_modal_says_when_nothing_is_known_and_prefills_otherwise() -> None:
    empty = json.dumps(task_modal(42, {"task": 42}, None).to_dict())
    assert "Nothing is known about this task yet" in empty
    known = {"taskName": "Night patrol", "taskDates": ["2026-12-01"], "resources": [1, 2]}
    view = task_modal(42, {"task": 42}, known, 1_795_996_800_000, "U1").to_dict()
    initial = {
        b["block_id"]: b["element"].get("initial_value") for b in view["blocks"] if b["type"] == "input"
    }
    assert (
        initial["name"] == "Night patrol"
        and initial["dates"] == "2026-12-01"
        and initial["resources"] == "1,2"
    )
    assert json.loads(view["private_metadata"]) == {"task": 42}
