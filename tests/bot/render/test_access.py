"""The access Block Kit: danger-style confirmations and the grant modal."""

from __future__ import annotations

import json

from bot.render.access import (
    CONFIRM_ACTION,
    PanelChoice,
    PrivilegeGroup,
    delete_confirmation,
    grant_modal,
    revoke_confirmation,
)


def test_confirmations_use_a_danger_dialog_that_says_what_changes() -> None:
    message = revoke_confirmation(2001, "Ayse Kaya", 1001, "Depot North", 1)
    text, blocks = message.text, message.blocks
    rendered = json.dumps(blocks)  # a Rendered message's blocks are Block Kit JSON
    data = next(
        e for b in blocks if b["type"] == "actions" for e in b["elements"] if e["action_id"] == CONFIRM_ACTION
    )
    assert data["style"] == "danger" and data["confirm"]["style"] == "danger"
    assert (
        data["confirm"]["text"]["text"]
        == "Ayse Kaya (user 2001) will lose access to Depot North (panel 1001)."
    )
    assert json.loads(data["value"])["op"] == "revoke"
    assert "Ayse Kaya" in text and "Depot North" in rendered
    blocks = delete_confirmation(2001, None, 1).blocks
    data = blocks[1]["elements"][0]
    assert (
        data["confirm"]["style"] == "danger"
        and "user 2001 will be deleted" in data["confirm"]["text"]["text"]
    )


def test_grant_modal_lists_every_group_and_prefills_authority() -> None:
    groups = [PrivilegeGroup(i, None, i % 2 == 0) for i in range(1, 13)]  # more than fit in checkboxes
    view = grant_modal(
        7,
        "Can Demir",
        groups,
        [PanelChoice(1001, "Depot")],
        {"user": 7},
        current_days=[1],
        current_window=(0, 60_000),
    ).to_dict()
    assert len(view["blocks"]) <= 100
    groups_block = next(b for b in view["blocks"] if b.get("block_id") == "groups")
    assert [o["value"] for o in groups_block["element"]["options"]] == [str(i) for i in range(1, 13)]
    assert {o["value"] for o in groups_block["element"]["initial_options"]} == {
        str(i) for i in range(2, 13, 2)
    }
    panels = next(b for b in view["blocks"] if b.get("block_id") == "panels")
    assert "initial_options" not in panels["element"]
    view2 = grant_modal(
        7, None, groups, [PanelChoice(1001, "Depot"), PanelChoice(1002, None)], {}, current_panels=[1002]
    )
    panels = next(b for b in view2.to_dict()["blocks"] if b.get("block_id") == "panels")
    assert [o["value"] for o in panels["element"]["initial_options"]] == ["1002"]
    window = next(b for b in view["blocks"] if b.get("block_id") == "window_end")
    assert window["element"]["initial_time"] == "00:01"
