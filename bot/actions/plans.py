"""Action plans on alarm cards (docs/action_plans.md): the "Done" button of each step, and the checklist's
hold on Resolve.

A tick is role-checked (technicians and admins, as Acknowledge, in the alarm's organization), claimed once
(a Slack retry or a replayed click changes nothing), found from samops' own record of the alarm's card (a
click naming another card is refused and audited), recorded once per alarm and step (a second click says
who was first), audited, and shown through the card's one refresh (`bot/cards.refresh_now`).

Resolve (and a storm or incident card's Resolve all) waits for every mandatory step of every alarm it
resolves: `at_click` refuses a technician naming the steps left and gives an admin's Resolve form a
required reason (`override_meta`); `may_resolve` checks again at the submission; `after_resolve` records an
admin's override (audited, shown on the card) before the card is redrawn. `bot/actions/lifecycle.py` calls
each with one line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from slack_bolt import Ack, Respond

from bot.cards import card_of_alarm, claimed, disagreement, page_disagreement, refresh_now
from bot.context import AppContext
from bot.forms.fields import FieldError, free_text
from bot.forms.submission import submitted
from bot.listener_errors import respond_privately
from bot.payloads import PayloadError, read_json, slack_user
from bot.render.plans import MAX_REASON, OVERRIDE, labels
from bot.roles import Role
from bot.writes import WriteRequest, action_key, audit_denied, record_act, role_denied
from core import cache, lifecycle, read
from core.action_plans import MAX_STEPS, ActionPlan, Step
from core.alarms import Alarm
from core.clock import now_ms
from core.lifecycle import State
from core.text import counted
from core.timefmt import local

NEEDED = Role.TECHNICIAN  # as Acknowledge: ticking a step is handling the alarm
OVERRIDES = Role.ADMIN  # resolving with mandatory steps left
NOT_OURS = "This does not match the card samops posted for it; nothing was recorded (ref {ref})."

Answer = Callable[[str], None]
Left = list[tuple[Alarm, ActionPlan, tuple[Step, ...]]]


class StepValue(BaseModel):
    """A step button's value (bot/render/plans.py `step_value`): the alarm and the step's index."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    e: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    s: Annotated[int, Field(ge=0, lt=MAX_STEPS)]


# --- a tick ----------------------------------------------------------------------------------------------


def on_step(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()

    def answer(text: str) -> None:
        respond_privately(respond, text)

    user = slack_user(body)
    try:
        value = read_json(StepValue, action.get("value"), "This button")
    except PayloadError as err:
        answer(str(err))
        return
    db = ctx.db()
    alarm = cache.get_alarm(db, value.e)
    org = alarm.org_id if alarm is not None else None
    command = f"plan tick {value.e} step {value.s + 1}"
    if denied := role_denied(ctx, user, NEEDED, org):
        audit_denied(ctx, user, command, org)
        answer(denied)
        return
    if alarm is None:
        answer("This alarm is not in samops' cache (a full sync may have removed it); nothing was recorded.")
        return
    card = card_of_alarm(db, alarm.event_id)
    claim = claimed(db, body)
    if (why := disagreement(claim, card) or page_disagreement(claim, alarm.event_id)) is not None:
        answer(NOT_OURS.format(ref=audit_denied(ctx, user, command, org, why)))
        return
    plan = ctx.config.plan_book().of(alarm)
    if plan is None or value.s >= len(plan.steps):
        answer(
            "This step is no longer in the alarm's action plan (the config changed); nothing was recorded."
        )
        return
    state = lifecycle.get(db, alarm.event_id)
    if state is not None and state.state is State.RESOLVED:
        answer("This alarm is resolved: its checklist is closed; nothing was recorded.")
        return
    step, at = plan.steps[value.s], now_ms()
    summary = f"ticked step {value.s + 1} “{step.label}” of the plan “{plan.name}” on alarm {alarm.event_id}"
    # Once per click: a Slack retry, or the captured request replayed, finds it claimed; the first answered.
    # The claim, the tick and its audit row commit together; a step ticked first by another has no row.
    ran, tick = record_act(
        ctx,
        lambda: cache.tick_plan_step(db, alarm.event_id, step.label, plan.name, user, at),
        lambda t: WriteRequest(user, command, summary, "", org) if (t.by_user, t.at) == (user, at) else None,
        claim=action_key(body, action),
    )
    if not ran or tick is None:
        return
    zone = ctx.reader_zones(user)(org)  # an answer to this person alone: their clock
    if (tick.by_user, tick.at) != (user, at):
        answer(f"Already done by <@{tick.by_user}> at {local(tick.at, zone, seconds=True)}.")
        return
    if card is None or not refresh_now(ctx, card):
        answer(f"Done: “{step.label}” is ticked.")


# --- Resolve waits for the mandatory steps ----------------------------------------------------------------


def _alarms(ctx: AppContext, event_ids: Iterable[str]) -> list[Alarm]:
    db = ctx.db()
    return [alarm for e in event_ids if (alarm := cache.get_alarm(db, e)) is not None]


def steps_left(ctx: AppContext, event_ids: Iterable[str], resolved_too: bool = False) -> Left:
    """(alarm, plan, mandatory steps not ticked) of each of these alarms that has any left; an alarm already
    resolved (a storm's, resolved on its own before) holds nothing back unless `resolved_too`."""
    ids = list(event_ids)
    if not resolved_too:
        states = lifecycle.states(ctx.db(), ids)
        ids = [e for e in ids if e not in states or states[e].state is not State.RESOLVED]
    return read.plan_steps_left(ctx.db(), ctx.config.plan_book(), _alarms(ctx, ids))


def _org(left: Left) -> int | None:
    """The one organization of the alarms (a card's are one panel's); None when they are of several."""
    orgs = {alarm.org_id for alarm, _, _ in left}
    return orgs.pop() if len(orgs) == 1 else None


def _is_admin(ctx: AppContext, user: str, left: Left) -> bool:
    return role_denied(ctx, user, OVERRIDES, _org(left)) is None


def left_text(left: Left) -> str:
    """What Resolve waits for, in words."""
    if len(left) == 1:
        _, plan, steps = left[0]
        return (
            f"the action plan “{plan.name}” has {counted(len(steps), 'mandatory step')} left: {labels(steps)}"
        )
    names = ", ".join(f"`{alarm.event_id}`" for alarm, _, _ in left[:10])
    more = f" and {len(left) - 10} more" if len(left) > 10 else ""
    return f"{counted(len(left), 'alarm')} of this card have mandatory action-plan steps left ({names}{more})"


def at_click(ctx: AppContext, user: str, event_ids: Iterable[str], answer: Answer) -> dict[str, Any] | None:
    """At a Resolve click: the Resolve form's extra metadata ({}; for an admin with steps left, the override
    reason field: `override_meta`), or None once a technician was told which steps are left."""
    left = steps_left(ctx, event_ids)
    if not left:
        return {}
    if _is_admin(ctx, user, left):
        return override_meta()
    answer(f"Not resolved yet: {left_text(left)}. Tick them on the card first (an admin may resolve anyway).")
    return None


def override_meta() -> dict[str, Any]:
    return {"ov": True}


def read_override(asked: bool, view: dict[str, Any]) -> tuple[str | None, dict[str, str]]:
    """The admin's reason to resolve over mandatory steps left (the form asked when `asked`)."""
    if not asked:
        return None, {}
    try:
        reason = free_text(submitted(view).get(OVERRIDE), OVERRIDE).strip()
    except FieldError as err:
        return None, {OVERRIDE: err.message}
    if not reason:
        return None, {OVERRIDE: "give the reason to resolve with mandatory steps left"}
    if len(reason) > MAX_REASON:
        return None, {OVERRIDE: f"at most {MAX_REASON} characters"}
    return reason, {}


def may_resolve(
    ctx: AppContext, user: str, event_ids: Iterable[str], reason: str | None, command: str, answer: Answer
) -> bool:
    """At a Resolve submission: True when nothing mandatory is left, or an admin gave a reason; else the
    refusal is audited and said (the steps may have been left since the form opened, or a technician's form
    was replayed)."""
    left = steps_left(ctx, event_ids)
    if not left or (reason and _is_admin(ctx, user, left)):
        return True
    why = f"mandatory action-plan steps left: {left_text(left)}"
    reference = audit_denied(ctx, user, command, _org(left), why)
    answer(f"Not resolved: {left_text(left)}. Tick them on the card first (ref {reference}).")
    return False


def after_resolve(ctx: AppContext, user: str, event_ids: Iterable[str], reason: str | None) -> None:
    """Record an admin's override on the alarms just resolved with mandatory steps left (audited; each card
    shows it), before their card is redrawn."""
    left = steps_left(ctx, event_ids, resolved_too=True)
    if not left or not reason:
        return
    alarms = ", ".join(alarm.event_id for alarm, _, _ in left[:20]) + (" …" if len(left) > 20 else "")
    summary = f"resolved with mandatory steps left ({left_text(left)}): {reason}"
    request = WriteRequest(user, f"plan override {alarms}", summary, "", _org(left))
    overrides = [(a.event_id, plan.name, tuple(s.label for s in steps)) for a, plan, steps in left]
    at = now_ms()
    # The overrides and their audit row, together.
    record_act(
        ctx, lambda: cache.record_plan_overrides(ctx.db(), overrides, user, at, reason), lambda _: request
    )
