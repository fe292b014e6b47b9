"""The at-risk list in Slack (`/sam at-risk` and the digest): one organization after another, each section
with the age of the data it was read from, every time in the organization's zone, named."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block

from bot.render.common import MAX_BLOCKS, Rendered, context, escape, header, join_lines, section
from core.read import AtRisk
from core.text import counted
from core.timefmt import age, day, local


def _read(what: str, at: int | None, now: int) -> str:
    return f"{what} read {age(at, now)}" if at is not None else f"{what} not read yet"


def org_sections(risk: AtRisk, zone: ZoneInfo, now: int) -> list[Block]:
    """One organization's part: a heading and five sections."""
    blocks: list[Block] = [section(f"*Organization {risk.org_id}*")]
    expiring = [
        f"• {escape(e.name)} on {escape(e.panel or 'panel')} ({e.resource_id}): expires"
        f" {local(e.expires_at, zone)}"
        for e in risk.expiring
    ]
    auth_age = _read("authorizations", risk.authorizations_read, now)
    coverage = f"{risk.authorized_panels} of {counted(risk.panels, 'panel')} read"
    blocks.append(
        section(
            f"*Authorizations expiring within 7 days: {len(expiring)}*"
            + ("\n" + join_lines(expiring) if expiring else "")
        )
    )
    blocks.append(context(f"{auth_age} (oldest) · {coverage}"))
    overdue = [
        f"• bill {escape(b.bill_no or '?')} of subscription {b.subscription_id}: due {day(b.due_at)}"
        + (f", {b.amount:,.2f} {escape(b.unit or '')}".rstrip() if b.amount is not None else "")
        for b in risk.overdue
    ]
    blocks.append(
        section(f"*Overdue bills: {len(overdue)}*" + ("\n" + join_lines(overdue) if overdue else ""))
    )
    read = f"{risk.subscriptions_read} of {counted(risk.subscriptions, 'subscription')} read"
    blocks.append(context(f"{_read('bills', risk.bills_read, now)} (oldest) · {read}"))
    silent = [
        f"• {escape(s.panel or 'panel')} ({s.resource_id}): "
        + (
            f"silent since {local(s.since, zone)}"
            if s.now
            else f"was silent from {local(s.since, zone)}, reported again"
        )
        for s in risk.silent
    ]
    blocks.append(
        section(
            f"*Panels silent now or this week: {len(silent)}*" + ("\n" + join_lines(silent) if silent else "")
        )
    )
    word = "false alarm" if risk.noisy_false else "alarm"
    noisy = [
        f"• {escape(n.panel or 'panel')} ({n.resource_id}): {counted(n.alarms, word)}" for n in risk.noisy
    ]
    title = "*Most false alarms this week*" if risk.noisy_false else "*Most alarms this week*"
    blocks.append(section(title + "\n" + (join_lines(noisy) if noisy else "none: no alarms this week")))
    blocks.append(context(f"{_read('alarms', risk.alarms_read, now)} · silent panels: samops' supervision"))
    cams = [f"• {escape(c.name or 'camera')} ({c.resource_id}): {c.why}" for c in risk.cameras_down]
    blocks.append(section(f"*Cameras down: {len(cams)}*" + ("\n" + join_lines(cams) if cams else "")))
    blocks.append(context(_read("cameras", risk.cameras_read, now)))
    return blocks


def at_risk_message(
    risks: Sequence[AtRisk], zone_for: Callable[[int | None], ZoneInfo], now: int
) -> Rendered:
    blocks: list[Block] = [header("At risk")]
    if not risks:
        blocks.append(section("No organization in the cache yet: nothing to list."))
    for risk in risks:
        blocks += org_sections(risk, zone_for(risk.org_id), now)
    if len(blocks) > MAX_BLOCKS:  # many organizations: the first ones whole, and where to see the rest
        blocks = [
            *blocks[: MAX_BLOCKS - 1],
            context("More organizations: `/sam at-risk org:<id>` or the dashboard's At risk page."),
        ]
    summary = "; ".join(
        f"organization {r.org_id}: {len(r.expiring)} authorizations expiring, {len(r.overdue)} overdue bills,"
        f" {len(r.silent)} silent panels, {len(r.cameras_down)} cameras down"
        for r in risks
    )
    return Rendered.of("At risk: " + (summary or "nothing cached yet"), blocks)
