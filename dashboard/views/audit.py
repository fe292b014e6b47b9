"""Audit: who did what through the bot, when, the outcome and the reference id, newest first; filters in the
URL and a CSV export. The same rows as `/sam audit` and `samops audit` (`core.cache.audit.recent`)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core import cache
from core.read import clean_text
from dashboard import boundary, data, export, filters, ui, zones

RANGES = {"24h": data.DAY_MS, "7d": 7 * data.DAY_MS, "30d": 30 * data.DAY_MS, "all": None}
RANGE_LABELS = {"24h": "Last 24 hours", "7d": "Last 7 days", "30d": "Last 30 days", "all": "All time"}
OUTCOMES = list(cache.AUDIT_OUTCOMES)
LIMIT = 5000


def audit_frame(rows: list[cache.AuditEntry]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "When": ui.timestamps([r.at for r in rows]),
            "Who": [r.slack_user for r in rows],
            "Command": [r.command for r in rows],
            "Outcome": [r.outcome for r in rows],
            "Summary": [r.summary for r in rows],
            "Reference": [r.reference for r in rows],
            "Org": pd.Series([r.org_id for r in rows], dtype="Int64"),
        }
    )


path = ui.start_page("Audit")
filters.seed("audit_range", "range", filters.choice(list(RANGES)), default="7d")
filters.seed("audit_outcome", "outcome", filters.choice(OUTCOMES))
filters.seed("audit_user", "user", filters.text, default="")
filters.seed("audit_command", "command", filters.text, default="")
range_col, outcome_col, user_col, command_col = st.columns([2, 2, 2, 3])
range_key = range_col.selectbox(
    "Time range", list(RANGES), key="audit_range", format_func=RANGE_LABELS.__getitem__
)
outcome = outcome_col.selectbox(
    "Outcome", [None, *OUTCOMES], key="audit_outcome", format_func=lambda o: "Any outcome" if o is None else o
)
user = user_col.text_input("Slack user id", key="audit_user", placeholder="U0123ABCD", max_chars=64)
command = command_col.text_input(
    "Command starts with", key="audit_command", placeholder="alarm resolve", max_chars=filters.TEXT_MAX
)
filters.publish(
    {"range": range_key if range_key != "7d" else None, "outcome": outcome, "user": user, "command": command}
)
user_filter = clean_text(user) or None
command_filter = clean_text(command) or None


def described_filters() -> str:
    shown = {
        "range": RANGE_LABELS[range_key],
        "outcome": outcome,
        "user": user_filter,
        "command": command_filter,
    }
    return clean_text("; ".join(f"{name}: {value}" for name, value in shown.items() if value))


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def audit_table() -> None:
    now = data.now_ms()
    span = RANGES[range_key]
    since = None if span is None else data.floor_to(now, 60_000) - span
    rows = data.audit_rows(path, LIMIT, since, user_filter, command_filter, outcome)
    frame = audit_frame(rows)
    head, button = st.columns([4, 1], vertical_alignment="bottom")
    more = " (the newest)" if len(rows) == LIMIT else ""
    head.markdown(f"**{len(rows)} audit rows{more}**")
    head.text(described_filters())  # holds the URL's text: never markdown
    heading = export.heading("samops audit log", described_filters(), now, now, zones.tz())
    ui.csv_button(button, export.table_csv(frame, heading, zones.tz()), "samops-audit.csv")
    if frame.empty:
        st.info("No audit rows match these filters.")
        return
    ui.table(frame, 560, {"When": ui.time_column("When")})


audit_table()
