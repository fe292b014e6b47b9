"""Handling: how fast alarms are acknowledged and resolved (median and p90, per day and per panel), and the
alarms still open, by age. The figures are `core.read.handling`'s; days are the days of the viewer's zone
(`dashboard.zones`)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core import read
from core.lifecycle import State
from core.priorities import Priority
from core.settings import current_settings
from core.text import counted
from dashboard import boundary, data, filters, ui, zones

PERIODS = {"7d": 7, "30d": 30, "90d": 90}
PERIOD_LABELS = {"7d": "Last 7 days", "30d": "Last 30 days", "90d": "Last 90 days"}
OLDEST_SHOWN = 200
OPEN_STATES = [State.OPEN.value, State.ACKNOWLEDGED.value]  # an alarm not resolved is in one of these
STATE_WORDS = {State.OPEN.value: "not acknowledged", State.ACKNOWLEDGED.value: "acknowledged, not resolved"}


def minutes(ms: float | None) -> float | None:
    return None if ms is None else round(ms / 60_000, 1)


def figures_frame(rows: list[read.HandlingFigures], label: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            label: [r.label for r in rows],
            "Alarms": [r.alarms for r in rows],
            "Of them late": [r.late for r in rows],
            "Acknowledged": [r.acknowledged for r in rows],
            "TTA median (min)": pd.Series([minutes(r.tta_median) for r in rows], dtype="Float64"),
            "TTA p90 (min)": pd.Series([minutes(r.tta_p90) for r in rows], dtype="Float64"),
            "Resolved": [r.resolved for r in rows],
            "TTR median (min)": pd.Series([minutes(r.ttr_median) for r in rows], dtype="Float64"),
            "TTR p90 (min)": pd.Series([minutes(r.ttr_p90) for r in rows], dtype="Float64"),
        }
    )


path = ui.start_page("Handling", period=True)
filters.seed("handling_period", "period", filters.choice(list(PERIODS)), default="7d")
period = st.selectbox("Period", list(PERIODS), key="handling_period", format_func=PERIOD_LABELS.__getitem__)
# The Overview's figures link here with the open alarms' filters (dashboard/glance.py).
filters.seed("handling_priority", "priority", filters.choice([p.label for p in Priority]))
filters.seed("handling_state", "state", filters.choice(OPEN_STATES))
filters.seed("handling_overdue", "overdue", filters.flag, default=False)
filters.publish(
    {
        "period": period if period != "7d" else None,
        "priority": st.session_state["handling_priority"],
        "state": st.session_state["handling_state"],
        "overdue": 1 if st.session_state["handling_overdue"] else None,
    }
)
st.caption(
    "Time to acknowledge (TTA) and to resolve (TTR) count from the alarm's own time, or, for an alarm that "
    "reached samops late (counted apart), from when it arrived. Median: the middle "
    f"value; p90: 90 % of the alarms were handled at least this fast. Days are {zones.label()} days."
)


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def handling_figures(period: str) -> None:
    now = data.now_ms()
    until = data.floor_to(now, 60_000) + 60_000
    since = zones.day_start(until - PERIODS[period] * data.DAY_MS)
    days = data.handling_times(path, since, until, "day", zones.label())
    if not days:
        st.info("No alarms were handled in samops in this period (acknowledge them from their Slack cards).")
        return
    st.header("Per day")
    st.dataframe(figures_frame(days, "Day"), hide_index=True, placeholder=ui.EMPTY, width="stretch")
    st.header("Per panel, slowest to acknowledge first")
    panels = data.handling_times(path, since, until, "panel", zones.label())
    st.dataframe(figures_frame(panels, "Panel"), hide_index=True, placeholder=ui.EMPTY, width="stretch")


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def open_by_age() -> None:
    st.header("Open alarms by age")
    now = data.floor_to(data.now_ms(), 60_000)
    config_path = str(current_settings().config_path)
    alarms = data.open_alarms(path, now, config_path)
    buckets = read.open_by_age(alarms)
    tiles = st.columns(len(buckets))
    for tile, (label, still_open, acknowledged) in zip(tiles, buckets, strict=True):
        tile.metric(
            label,
            still_open + acknowledged,
            border=True,
            help=f"{still_open} open, {acknowledged} acknowledged but not resolved",
        )
    if not alarms:
        st.info("No alarm is open: every alarm samops posted has been resolved.")
        return
    if problem := data.config_problem(config_path):
        st.warning(f"The config cannot be used ({problem}); the default priorities are shown.")
    listed, described = narrowed(alarms)
    first, second, third = st.columns([2, 2, 1], vertical_alignment="bottom")
    first.selectbox(
        "Priority",
        [None, *(p.label for p in Priority)],
        key="handling_priority",
        format_func=lambda p: "All priorities" if p is None else p,
    )
    second.selectbox(
        "State",
        [None, *OPEN_STATES],
        key="handling_state",
        format_func=lambda s: "Open or acknowledged" if s is None else STATE_WORDS[s],
    )
    third.toggle("Overdue only", key="handling_overdue")
    if not listed:
        st.info(f"No alarm not resolved matches these filters ({described}).")
        return
    oldest = listed[:OLDEST_SHOWN]
    frame = pd.DataFrame(
        {
            "Priority": [a.priority.label if a.priority else "" for a in oldest],
            "Overdue": ["overdue" if a.overdue else "" for a in oldest],
            "Opened": ui.timestamps([a.opened_at for a in oldest]),
            "Age": [f"{a.age_ms // 3_600_000} h {a.age_ms // 60_000 % 60} min" for a in oldest],
            "State": [a.state.value for a in oldest],
            "Held by": [a.holder or "" for a in oldest],
            "Panel": [f"{a.panel_name or 'panel'} ({a.resource_id})" for a in oldest],
            "Event": [a.event_id for a in oldest],
        }
    )
    st.caption(
        f"The first {len(oldest)} of {counted(len(listed), 'alarm')} not resolved"
        + (f" ({described})" if described else "")
        + ", by priority then oldest first; overdue: still open past its priority's time to acknowledge"
    )
    st.dataframe(
        frame,
        hide_index=True,
        placeholder=ui.EMPTY,
        width="stretch",
        column_config={"Opened": ui.time_column("Opened")},
    )


def narrowed(alarms: list[read.OpenAlarm]) -> tuple[list[read.OpenAlarm], str]:
    """The open alarms the page's priority, state and overdue filters keep, and those filters in words."""
    priority, state = st.session_state["handling_priority"], st.session_state["handling_state"]
    overdue = bool(st.session_state["handling_overdue"])
    kept = [
        a
        for a in alarms
        if (priority is None or (a.priority is not None and a.priority.label == priority))
        and (state is None or a.state.value == state)
        and (not overdue or a.overdue)
    ]
    words = [
        *([priority] if priority else []),
        *([STATE_WORDS[state]] if state else []),
        *(["overdue"] if overdue else []),
    ]
    return kept, ", ".join(words)


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def held_back(period: str) -> None:
    """The alarms a silence or maintenance window held back: never posted, so in no list above, and never
    out of sight (each with why: `QuietWindow.held_reason`)."""
    st.header("Held back by a silence or maintenance")
    now = data.now_ms()
    until = data.floor_to(now, 60_000) + 60_000
    since = zones.day_start(until - PERIODS[period] * data.DAY_MS)
    held = data.held_alarms(path, since, until)
    if not held:
        st.info("No alarm was held back by a silence or maintenance window in this period.")
        return
    shown, tz = held[:OLDEST_SHOWN], zones.tz()
    st.caption(
        f"{counted(len(held), 'alarm')} held back in this period, newest first: recorded, not posted to Slack"
        " (life-safety alarms are never held by a silence, and by maintenance only when planned to)."
        + (f" The newest {len(shown)} are listed." if len(held) > len(shown) else "")
    )
    frame = pd.DataFrame(
        {
            "Time": ui.timestamps([h.alarm.activity_time for h in shown]),
            "State": [h.window.held_reason(tz, named=False) for h in shown],  # Time's header names it
            "Alarm": [h.alarm.violation_name or h.alarm.event_type or "alarm" for h in shown],
            "Panel": [f"{h.alarm.panel_name or 'panel'} ({h.alarm.resource_id})" for h in shown],
            "Event": [h.alarm.event_id for h in shown],
        }
    )
    columns = {"Time": ui.time_column()}
    st.dataframe(frame, hide_index=True, placeholder=ui.EMPTY, width="stretch", column_config=columns)


def adherence_frame(rows: list[read.PlanAdherence], label: str, person: bool = False) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            label: [r.label for r in rows],
            "Alarms resolved": [r.alarms for r in rows],
            "Steps ticked": [r.steps_ticked for r in rows],
            "Steps due": [r.steps_due for r in rows],
            "Ticked (%)": pd.Series(
                [None if r.ticked_share is None else round(100 * r.ticked_share) for r in rows], dtype="Int64"
            ),
            "Mandatory ticked": [r.mandatory_ticked for r in rows],
            "Mandatory due": [r.mandatory_due for r in rows],
            "Resolved over steps left": [r.overridden for r in rows],
        }
    )
    if person:
        frame["Steps they ticked"] = [r.ticks_made for r in rows]
    return frame


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def plan_adherence(period: str) -> None:
    st.header("Action plan adherence")
    config_path = str(current_settings().config_path)
    if problem := data.config_problem(config_path):
        st.warning(f"The config cannot be used ({problem}); the default action plans are counted.")
    now = data.now_ms()
    until = data.floor_to(now, 60_000) + 60_000
    since = zones.day_start(until - PERIODS[period] * data.DAY_MS)
    report = data.plan_adherence(path, since, until, config_path)
    if not report.by_kind:
        st.info("No alarm with an action plan was resolved in this period.")
        return
    st.caption(
        "Of the alarms resolved in the period that have an action plan (by the plans configured now): the "
        "steps ticked on their cards of the steps their plan has, the mandatory ones apart, and how many an "
        "admin resolved with mandatory steps left (docs/action_plans.md)."
    )
    st.subheader("Per alarm kind")
    kinds = adherence_frame(report.by_kind, "Alarm kind")
    st.dataframe(kinds, hide_index=True, placeholder=ui.EMPTY, width="stretch")
    st.subheader("Per person")
    st.caption(
        "Alarms they resolved, the steps ticked on those (by anyone), and the steps they ticked themselves."
    )
    frame = adherence_frame(report.by_person, "Person (Slack id)", person=True)
    st.dataframe(frame, hide_index=True, placeholder=ui.EMPTY, width="stretch")


handling_figures(period)
open_by_age()
held_back(period)
plan_adherence(period)
