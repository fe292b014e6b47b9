"""Issue 26: a maintenance reason or a Resolve note (a person's words, posted to Slack) kept Slack's
formatting: `*bold*`, `_italic_`, `~strike~`, code and quotes took effect. `typed` (bot/render/common.py)
shows them as typed, and escapes mentions and links as `escape` does; the audit log's `plain` gets the words
back unchanged."""

from __future__ import annotations

import dataclasses
import re
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from bot.render.alarms import group_handled
from bot.render.common import plain, typed
from bot.render.plans import override_line
from bot.render.quiet import window_line
from core.action_plans import ActionPlan, Step
from core.cache import PlanOverride
from core.lifecycle import Change
from core.read import Checklist
from core.read.quiet import MAINTENANCE, QuietWindow

T = 1_764_000_000_000
# A formatting mark that Slack would read as an opener: at the start, or after a space or a sign.
OPENER = re.compile(r"(?:^|(?<=[^0-9A-Za-z\u200b]))[*_~`]|^&gt;", re.MULTILINE)


def test_a_maintenance_reason_is_shown_as_typed() -> None:
    reason = "*urgent* _now_ ~old~ `rm -rf` <!channel> <@U1> <https://x.example|click> & more\n> quoted"
    window = QuietWindow(7, MAINTENANCE, 777, None, T, T + 3_600_000, None, "U_TECH", T, None, None, None,
                         None, "Depot")  # fmt: skip
    line = window_line(dataclasses.replace(window, reason=reason), ZoneInfo("UTC"), T)
    said = line.split(" — ", 1)[1]
    assert not OPENER.search(said), said
    assert "<" not in said and ">" not in said.replace("&gt;", "")  # no mention, no link, no <!channel>
    assert plain(said) == reason  # what was typed, for the record


def test_marks_inside_words_are_left_alone() -> None:
    assert typed("U_TECH snake_case 2*3") == "U_TECH snake_case 2*3"


@given(st.text(alphabet=st.sampled_from("ab *_~`>&<!@ \n.:/"), max_size=40))
def test_no_text_opens_formatting_and_the_words_come_back(text: str) -> None:
    shown = typed(text)
    assert not OPENER.search(shown), shown
    assert "<" not in shown and ">" not in shown
    assert plain(shown) == text


def test_a_resolve_note_on_a_storm_thread_is_shown_as_typed() -> None:
    note = "*false* alarm <!here> _again_"
    rendered = group_handled("U_TECH", Change.RESOLVED, [("EV-1", T)], ZoneInfo("UTC"), note)
    said = rendered.text.split(" — ", 1)[1]
    assert not OPENER.search(said) and "<!here>" not in said, said


def test_a_plan_override_reason_reads_as_the_resolve_note_does() -> None:
    """Issue 33: an admin's override reason on the card took Slack's formatting (`escape`, not `typed`); the
    same words in a Resolve note did not. One function shows a person's words: the two read the same."""
    words = "a *drill* <!channel> _again_"
    override = PlanOverride("EV-1", "Plan", "U_ADMIN", T, words, ("Call the site",))
    plan = ActionPlan(name="Plan", steps=(Step(label="Call the site", mandatory=True),))
    line = override_line(Checklist(plan, (), override), ZoneInfo("UTC"))
    assert line is not None
    said = line.rsplit(" — ", 1)[1]
    assert not OPENER.search(said) and "<!channel>" not in said, said
    note = group_handled("U_TECH", Change.RESOLVED, [("EV-1", T)], ZoneInfo("UTC"), words).text
    assert said == note.split(" — ", 1)[1] == typed(words)
