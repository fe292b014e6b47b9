"""The Resolve modal's disposition menu: required, every configured option, nothing chosen even with a
suggestion, which is shown as the menu's hint only."""

from __future__ import annotations

from bot.render.alarms import resolve_modal
from core.dispositions import Dispositions


def test_the_menu_offers_the_list_and_shows_a_suggestion_as_a_hint_only() -> None:
    listed = Dispositions()
    hint = listed.suggestion("false_user_error", "during the access window of Ana Yılmaz")
    view = resolve_modal({"e": "EV-1"}, "alarm `EV-1`", listed.options(), hint).to_dict()
    [menu] = [b for b in view["blocks"] if b.get("block_id") == "disposition"]
    assert not menu.get("optional") and menu["label"]["text"] == "Disposition"
    element = menu["element"]
    assert element["type"] == "static_select" and "initial_option" not in element
    assert [o["value"] for o in element["options"]] == [d.code for d in listed.entries]
    assert (
        menu["hint"]["text"] == "Suggested: False alarm: user error — during the access window of Ana Yılmaz"
    )
    assert [b.get("block_id") for b in view["blocks"]][1:] == ["disposition", "note"]  # the choice first
    plain = resolve_modal({"e": "EV-1"}, "alarm `EV-1`", listed.options()).to_dict()
    assert "hint" not in next(b for b in plain["blocks"] if b.get("block_id") == "disposition")
