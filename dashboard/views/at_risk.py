"""At risk: per organization, authorizations expiring within 7 days, overdue bills, panels silent now or this
week, the panels with the most alarms this week and cameras down, each with the age of its data; thin over
`core.read.at_risk` (docs/at_risk.md). Everything from the service is shown as text, in tables."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core import read
from core.timefmt import age, day
from dashboard import boundary, data, filters, ui, zones

path = ui.start_page("At risk")

orgs = dict(data.organizations(path))
filters.seed("at_risk_org", "org", filters.identifier)
if st.session_state["at_risk_org"] not in (None, *orgs):
    filters.note(f"Organization {st.session_state['at_risk_org']} is not in the cache: showing all of them.")
    st.session_state["at_risk_org"] = None
org_col, _ = st.columns([2, 5])
org_id = ui.all_or_one(org_col, "Organization", orgs, "at_risk_org", "All organizations")
filters.publish({"org": org_id})


def _read(what: str, at: int | None, now: int) -> str:
    return f"{what} read {age(at, now)}" if at is not None else f"{what} not read yet"


def _table(frame: pd.DataFrame, empty: str) -> None:
    if frame.empty:
        st.text(empty)
        return
    ui.table(frame, 420)


def organization(risk: read.AtRisk, now: int) -> None:
    name = orgs.get(risk.org_id)
    st.header(f"Organization {risk.org_id}", divider="gray")
    if name:
        st.text(name)
    st.subheader(f"Authorizations expiring within 7 days: {len(risk.expiring)}")
    st.caption(
        f"{_read('Authorizations', risk.authorizations_read, now)} (oldest) · "
        f"{risk.authorized_panels} of {risk.panels} panels read"
    )
    _table(
        pd.DataFrame(
            {
                "Who": [e.name for e in risk.expiring],
                "Panel": [e.panel or f"panel {e.resource_id}" for e in risk.expiring],
                "Panel id": [str(e.resource_id) for e in risk.expiring],
                ui.timed("Expires"): [ui.cell(e.expires_at) for e in risk.expiring],
            }
        ),
        "None.",
    )
    st.subheader(f"Overdue bills: {len(risk.overdue)}")
    st.caption(
        f"{_read('Bills', risk.bills_read, now)} (oldest) · "
        f"{risk.subscriptions_read} of {risk.subscriptions} subscriptions read · overdue: past its due date"
        " with no payment date"
    )
    _table(
        pd.DataFrame(
            {
                "Bill": [b.bill_no or "" for b in risk.overdue],
                "Subscription": [str(b.subscription_id) for b in risk.overdue],
                "Due": [day(b.due_at) for b in risk.overdue],  # a date: no time of day, no zone
                "Amount": [
                    "" if b.amount is None else f"{b.amount:,.2f} {b.unit or ''}".strip()
                    for b in risk.overdue
                ],
            }
        ),
        "None.",
    )
    st.subheader(f"Panels silent now or this week: {len(risk.silent)}")
    st.caption(f"{_read('Alarms', risk.alarms_read, now)} · from samops' supervision (Communication lost)")
    _table(
        pd.DataFrame(
            {
                "Panel": [s.panel or f"panel {s.resource_id}" for s in risk.silent],
                "Panel id": [str(s.resource_id) for s in risk.silent],
                ui.timed("Silent since"): [ui.cell(s.since) for s in risk.silent],
                "Now": ["silent" if s.now else "reported again" for s in risk.silent],
            }
        ),
        "None.",
    )
    st.subheader("Most false alarms this week" if risk.noisy_false else "Most alarms this week")
    st.caption(_read("Alarms", risk.alarms_read, now))
    _table(
        pd.DataFrame(
            {
                "Panel": [n.panel or f"panel {n.resource_id}" for n in risk.noisy],
                "Panel id": [str(n.resource_id) for n in risk.noisy],
                "False alarms" if risk.noisy_false else "Alarms": [n.alarms for n in risk.noisy],
            }
        ),
        "No alarms this week.",
    )
    st.subheader(f"Cameras down: {len(risk.cameras_down)}")
    st.caption(_read("Cameras", risk.cameras_read, now))
    _table(
        pd.DataFrame(
            {
                "Camera": [c.name or f"camera {c.resource_id}" for c in risk.cameras_down],
                "Camera id": [str(c.resource_id) for c in risk.cameras_down],
                "Why": [c.why for c in risk.cameras_down],
            }
        ),
        "None.",
    )


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def at_risk(org_id: int | None) -> None:
    now = data.floor_to(data.now_ms(), 60_000)  # a minute's answers cached together
    st.caption(f"Times in {zones.label()}. Authorizations expire within 7 days of {ui.when(now)}.")
    risks = data.at_risk(path, (org_id,) if org_id is not None else (), now)
    if not risks:
        st.info("No organization in the cache yet.")
    for risk in risks:
        organization(risk, now)


at_risk(org_id)
