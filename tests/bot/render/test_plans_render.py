"""The checklist on the card (bot/render/plans.py): within Slack's limits with the most steps a plan may
have and the longest labels and names, text escaped, a Done button only for steps not ticked while the alarm
is open, and the override said in words (never by colour alone)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.render.alarms import alarm_card
from bot.render.plans import checklist_blocks, override_blocks, progress
from core.action_plans import MAX_LABEL, MAX_STEPS, ActionPlan, Step
from core.alarms import Alarm
from core.cache import PlanOverride, PlanTick
from core.read import Checklist, ChecklistStep, StepData
from core.views import AlarmView
from tests.support.bot import blocks_text, check_limits

UTC = ZoneInfo("UTC")


def big_checklist(ticked: int, override: PlanOverride | None = None) -> Checklist:
    steps = tuple(
        Step(label=f"{i} <@here> " + "x" * (MAX_LABEL - 12), mandatory=i % 2 == 0, shows="cameras")
        for i in range(MAX_STEPS)
    )
    plan = ActionPlan(name="Big & <bold>", steps=steps)
    data = StepData(tuple((f"name {i} " + "y" * 200, "offline") for i in range(8)), more=40)
    items = tuple(
        ChecklistStep(
            i + 1, s, PlanTick("EV-1", s.label, plan.name, "U_TECH", 0) if i < ticked else None, data
        )
        for i, s in enumerate(steps)
    )
    return Checklist(plan, items, override)


def test_the_biggest_checklist_fits_a_card_and_escapes_its_text() -> None:
    checklist = big_checklist(3)
    blocks = checklist_blocks("EV-1", checklist, UTC, resolved=False)
    alarm = Alarm("EV-1", 7, 1001, 0, "Burglary on Depot - Door", "violation", "Burglary", "alarm", "Depot")
    card = alarm_card(AlarmView(alarm, UTC, None, "http://dash", checklist=checklist))
    assert len(blocks) < len(card.attachments[0]["blocks"])  # the card draws the checklist from its view
    dicts = check_limits(card.attachments[0]["blocks"])
    text = blocks_text(dicts)
    assert "<@here>" not in text and "&lt;@here&gt;" in text and "&lt;bold&gt;" in text
    assert "and 40 more" in text
    buttons = [b["accessory"]["action_id"] for b in dicts if "accessory" in b]
    assert buttons == [f"alarm_plan_step_{i}" for i in range(3, MAX_STEPS)]
    assert progress(checklist) == "3 of 10 steps, 3 mandatory left"  # 0, 2 ticked; 4, 6, 8 left


def test_a_resolved_alarm_keeps_its_checklist_without_buttons_and_says_the_override() -> None:
    override = PlanOverride("EV-1", "Big", "U_ADMIN", 0, "police <!channel>", ("a", "b"))
    blocks = [b.to_dict() for b in checklist_blocks("EV-1", big_checklist(0, override), UTC, resolved=True)]
    assert not [b for b in blocks if "accessory" in b]
    text = blocks_text(blocks)
    assert "Resolved with mandatory steps left* (“a”, “b”): overridden by <@U_ADMIN>" in text
    assert "&lt;!channel&gt;" in text and "· to do" in text


def test_the_reason_field_is_only_for_a_form_that_asks() -> None:
    assert override_blocks({"e": "EV-1"}) == []
    [_, field] = [b.to_dict() for b in override_blocks({"e": "EV-1", "ov": True})]
    assert field["block_id"] == "override" and not field.get("optional")
