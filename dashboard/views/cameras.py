"""Cameras: enabled, and status, binding, SD card, version and capabilities when the service reports them;
problems first."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core import read
from dashboard import boundary, data, filters, ui

path = ui.start_page("Cameras")

orgs = dict(data.organizations(path))
filters.seed("cameras_org", "org", filters.identifier)
filters.seed("cameras_text", "q", filters.text, default="")
filters.seed("cameras_problems", "problems", filters.flag, default=False)
if st.session_state["cameras_org"] not in (None, *orgs):
    filters.note(f"Organization {st.session_state['cameras_org']} is not in the cache: showing all of them.")
    st.session_state["cameras_org"] = None

org_col, text_col, toggle_col = st.columns([2, 3, 2], vertical_alignment="bottom")
org_id = ui.all_or_one(org_col, "Organization", orgs, "cameras_org", "All organizations")
text = text_col.text_input(
    "Search", key="cameras_text", placeholder="name, model, version…", max_chars=filters.TEXT_MAX
)
problems_only = toggle_col.toggle("Problems only", key="cameras_problems")
filters.publish({"org": org_id, "q": text, "problems": problems_only})


# Columns from the Camera record: operation 17 promises only a Resource summary, so each is shown only
# when the service sent it for some camera of the view.
REPORTED_COLUMNS = ("Status", "Binding", "SD card", "Version", "Capabilities")


NOT_REPORTED = "Camera status is not reported by the service: shown are what it lists (enabled, model)."


def status_reported(cameras: list[read.CameraRow]) -> bool:
    """Whether the service sent a status, binding or SD-card state for any of these cameras."""
    return any(c.status or c.bind_status or c.sd_card_status for c in cameras)


def cameras_frame(rows: list[read.CameraRow]) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "Camera": [c.name or f"camera {c.resource_id}" for c in rows],
            "Problems": [list(c.problems) for c in rows],
            "Enabled": pd.Series([c.enabled for c in rows], dtype="boolean"),
            "Status": [c.status or "" for c in rows],
            "Binding": [c.bind_status or "" for c in rows],
            "SD card": [c.sd_card_status or "" for c in rows],
            "Version": [c.version or "" for c in rows],
            "Capabilities": [", ".join(c.capabilities) for c in rows],
            "Brand": [c.brand or "" for c in rows],
            "Model": [c.model or "" for c in rows],
            "Id": [c.resource_id for c in rows],
            "Org": pd.Series([c.org_id for c in rows], dtype="Int64"),
        }
    )
    empty = [c for c in REPORTED_COLUMNS if not bool(frame[c].astype(bool).any())]
    return frame.drop(columns=empty)


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def camera_table(org_id: int | None, text: str, problems_only: bool) -> None:
    rows = data.camera_summary(path, org_id, text.strip() or None, problems_only)
    everyone = data.camera_summary(path, org_id)
    total, second, third = st.columns(3)
    total.metric("Cameras", len(everyone), border=True)
    if status_reported(everyone) or not everyone:
        troubled = sum(1 for c in everyone if c.problems)
        second.metric("With problems", troubled, border=True)
        third.metric("Healthy", len(everyone) - troubled, border=True)
    else:
        # "Healthy" would claim a status nobody sent; what the summary does say is whether each is enabled.
        second.metric("Enabled", sum(1 for c in everyone if c.enabled is True), border=True)
        third.metric("Disabled", sum(1 for c in everyone if c.enabled is False), border=True)
        st.caption(NOT_REPORTED)
    if not rows:
        st.info("No cameras match these filters.")
        return
    frame = cameras_frame(rows)
    problems = sorted({p for c in rows for p in c.problems})
    ui.table(
        frame,
        700,
        {
            "Problems": st.column_config.MultiselectColumn(
                "Problems", options=problems, color="#d62728", width="medium"
            ),
            "Capabilities": st.column_config.TextColumn("Capabilities", width="medium"),
            "Id": st.column_config.NumberColumn("Id", format="%d"),
            "Org": st.column_config.NumberColumn("Org", format="%d"),
        },
    )


camera_table(org_id, text, problems_only)
