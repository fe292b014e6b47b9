"""Alarms: the recent alarms with filters held in the URL (an HTML table, the grid behind `?grid=1`), CSV
export and a weekday × hour heat map."""

from __future__ import annotations

import functools
from datetime import tzinfo

import streamlit as st

from core import read, timefmt
from core.settings import current_settings
from core.text import counted
from dashboard import alarm_table, boundary, charts, data, export, filters, ui, zones

LIMIT = 500
RANGES: dict[str, int | None] = {
    "1h": data.HOUR_MS,
    "24h": data.DAY_MS,
    "7d": 7 * data.DAY_MS,
    "30d": 30 * data.DAY_MS,
    "all": None,
}
RANGE_LABELS = {
    "1h": "Last hour",
    "24h": "Last 24 hours",
    "7d": "Last 7 days",
    "30d": "Last 30 days",
    "all": "All",
}

path = ui.start_page("Alarms", period=True)
config_path = str(current_settings().config_path)  # the keyholder lines' [notify] zones

orgs = dict(data.organizations(path))
filters.seed("alarms_org", "org", filters.identifier)
filters.seed("alarms_panel", "panel", filters.identifier)
filters.seed("alarms_type", "type", filters.choice(list(read.SEVERITY)))
filters.seed("alarms_range", "range", filters.choice(list(RANGES)), default="7d")
filters.seed("alarms_text", "q", filters.text, default="")
filters.seed("alarms_incidents", "incidents", filters.flag, default=False)
filters.seed("alarms_sort", "sort", filters.choice(list(alarm_table.SORTS)), default=alarm_table.DEFAULT_SORT)
filters.seed("alarms_grid", "grid", filters.flag, default=False)
filters.seed("alarms_every_row", "all_rows", filters.flag, default=False)
# One alarm, as the Overview links to the oldest not acknowledged; no widget: the link's to take off.
filters.seed("alarms_event", "event", filters.text, default="")
if st.session_state["alarms_org"] not in (None, *orgs):
    filters.note(f"Organization {st.session_state['alarms_org']} is not in the cache: showing all of them.")
    st.session_state["alarms_org"] = None

# Two rows of three: in one row of six, at 1280 px, the values were cut ("All organi", "Last 7 day").
org_col, panel_col, type_col = st.columns(3)
range_col, text_col, sort_col = st.columns(3)
org_id = ui.all_or_one(org_col, "Organization", orgs, "alarms_org", "All organizations")
panels = {
    p.resource_id: p.name or f"panel {p.resource_id}" for p in data.find_panels(path, None, org_id, 10_000)
}
if (linked := st.session_state["alarms_panel"]) is not None and linked not in panels:
    panels[linked] = f"panel {linked}"  # a link to a panel the cache does not know (yet) still filters
resource_id = ui.all_or_one(panel_col, "Panel", panels, "alarms_panel", "All panels")
violation_type = type_col.selectbox(
    "Type",
    [None, *read.SEVERITY],
    key="alarms_type",
    placeholder="All types",
    format_func=lambda t: "All types" if t is None else t,
)
range_key = range_col.selectbox(
    "Time range", list(RANGES), key="alarms_range", format_func=RANGE_LABELS.__getitem__
)
text = text_col.text_input(
    "Search", key="alarms_text", placeholder="description or panel name", max_chars=filters.TEXT_MAX
)
sort = sort_col.selectbox(
    "Sort by", list(alarm_table.SORTS), key="alarms_sort", format_func=alarm_table.SORTS.__getitem__
)
# The default range and order stay out of the URL, so links stay short.
filters.publish(
    {
        "org": org_id,
        "panel": resource_id,
        "type": violation_type,
        "range": None if range_key == "7d" else range_key,
        "q": text,
        "incidents": 1 if st.session_state["alarms_incidents"] else None,
        "sort": None if sort == alarm_table.DEFAULT_SORT else sort,
        "grid": 1 if st.session_state["alarms_grid"] else None,
        "all_rows": 1 if st.session_state["alarms_every_row"] else None,
        "event": st.session_state["alarms_event"] or None,
    }
)

span = RANGES[range_key]
now = data.floor_to(data.now_ms(), 60_000)
flt = read.AlarmFilter(
    org_id=org_id,
    resource_id=resource_id,
    violation_type=violation_type,
    since=None if span is None else now - span,
    text=read.clean_text(text) or None,
    event_id=st.session_state["alarms_event"] or None,
)


def described_filters() -> str:
    shown = {
        "organization": orgs.get(org_id, org_id) if org_id is not None else None,
        "panel": f"{panels.get(resource_id)} ({resource_id})" if resource_id is not None else None,
        "type": violation_type,
        "range": RANGE_LABELS[range_key],
        "text": flt.text,
        "event": flt.event_id,
    }
    # One line even when a panel name holds a line break: it heads the CSV export too.
    return read.clean_text("; ".join(f"{name}: {value}" for name, value in shown.items() if value))


def full_export(flt: read.AlarmFilter, described: str, as_of: int | None, tz: tzinfo) -> bytes:
    """Every alarm the filters match, made when the button is clicked, on a thread of Streamlit's without
    the session: everything it needs comes in the arguments."""
    head = export.heading("samops alarms", described, as_of, data.now_ms(), tz)
    closed = functools.partial(data.closed_now, path)
    return export.alarms_csv(data.alarm_chunks(path, flt), head, tz, closed)


@st.cache_data(ttl=data.TTL_SECONDS, show_spinner=False)
def table_html(
    path: str, flt: read.AlarmFilter, sort: str, zone: str, config_path: str, first: int | None = None
) -> str:
    """The table as `st.html` shows it (its `first` rows only, if given), cached as one string: a warm tab
    takes it as it is instead of making 500 rows of cells again (docs/dashboard-speed.md)."""
    found = data.alarm_list(path, flt, LIMIT, config_path)
    shown = alarm_table.sort_rows(found.rows, sort)[:first]
    tz = zones.tz_named(zone)
    return alarm_table.alarms_html(
        shown,
        tz,
        zone,
        found.states,
        found.keyholders,
        found.closed,
        found.held,
        found.priorities,
        found.marked,
    )


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def alarms_table(flt: read.AlarmFilter, sort: str, grid: bool, every_row: bool) -> None:
    found = data.alarm_list(path, flt, LIMIT, config_path)
    rows = found.rows
    as_of = data.assess(data.freshness(path), data.now_ms()).as_of
    head, button = st.columns([4, 1], vertical_alignment="bottom")
    more = " (the newest; the CSV holds them all)" if len(rows) == LIMIT else ""
    head.markdown(f"**{counted(len(rows), 'alarm')}{more}**")
    head.text(described_filters() or "no filters")  # holds the URL's search text: never markdown
    described = described_filters()
    export_all = functools.partial(full_export, flt, described, as_of, zones.tz())
    every_alarm = "Every alarm these filters match, not only the ones shown."
    ui.csv_button(button, export_all, "samops-alarms.csv", every_alarm)
    if not rows:
        st.info("No alarms match these filters.")
        return
    if grid:  # the interactive grid, for column sorting and resizing: slower to open (alarm_table)
        shown = alarm_table.sort_rows(rows, sort)
        # Every alarm's event type is "violation": the Type column (its kind) says what it is.
        frame = ui.alarms_frame(shown, found.states, found.held, found.priorities, found.marked).drop(
            columns="Event"
        )
        frame[alarm_table.KEYHOLDERS] = [found.keyholders.get(r.event_id, "") for r in shown]
        frame[alarm_table.DISPOSITION] = [alarm_table.label_of(found.closed.get(r.event_id)) for r in shown]
        ui.show_alarms(frame, height=min(36 + 35 * len(shown), alarm_table.MAX_HEIGHT))
        return
    first = None if every_row or len(rows) <= alarm_table.FIRST_ROWS else alarm_table.FIRST_ROWS
    st.html(table_html(path, flt, sort, zones.current(), config_path, first))
    if first is not None:
        st.caption(
            f"The first {first} of these {len(rows)} alarms: switch on *{alarm_table.EVERY_ROW}* below"
            " for all of them."
        )


alarms_table(flt, sort, bool(st.session_state["alarms_grid"]), bool(st.session_state["alarms_every_row"]))


def incidents_section(org_id: int | None, resource_id: int | None) -> None:
    """Site incidents (alarms, tampers, errors and cameras down on one site together: README "Site
    incidents"), each with its timeline, for the page's organization and panel."""
    found = data.open_incidents(path, org_id, resource_id)
    if not found:
        st.info("No open or acknowledged incident for these filters.")
        return
    tz = zones.tz()
    for incident in found:
        # The label is markdown: it holds only ids and our own words; the panel's name goes in plain text.
        kinds = ", ".join(incident.kinds)
        with st.expander(
            f"Incident {incident.id} on panel {incident.resource_id}: {kinds} — {incident.state}"
        ):
            first, last = timefmt.local(incident.first_time, tz), timefmt.local(incident.last_time, tz)
            st.text(
                f"{incident.panel_name or 'panel'}: {counted(incident.evidence, 'piece')} of evidence"
                f" from {first} to {last}, {counted(len(incident.alarms), 'alarm')}"
            )
            timeline = data.incident_timeline(path, incident.id)
            st.dataframe(
                {
                    ui.timed("Time"): [timefmt.wall(e.time, tz, seconds=True) for e in timeline],
                    "What": [e.kind for e in timeline],
                    "Detail": [e.text for e in timeline],
                },
                hide_index=True,
                placeholder=ui.EMPTY,
                width="stretch",
            )


def below_the_table() -> None:
    """The toggles (every row, grid, incidents) and the heat map."""
    rows_col, grid_col, incidents_col = st.columns(3)
    found = data.alarm_list(path, flt, LIMIT, config_path)  # the table's, cached
    rows_col.toggle(
        alarm_table.EVERY_ROW,
        key="alarms_every_row",
        # Nothing to show: the grid holds every row, and so does a table of FIRST_ROWS or fewer.
        disabled=bool(st.session_state["alarms_grid"]) or len(found.rows) <= alarm_table.FIRST_ROWS,
        help=f"The table opens with its first {alarm_table.FIRST_ROWS} rows, which is faster; this shows all",
    )
    grid_col.toggle(
        "Interactive grid",
        key="alarms_grid",
        help="The table as a grid: click a column to sort, drag to resize",
    )
    if incidents_col.toggle(
        "Group by incident", key="alarms_incidents", help="Open site incidents, each with its timeline"
    ):
        incidents_section(org_id, resource_id)

    st.header("When alarms happen")
    st.caption(
        f"Alarms by weekday and hour of day ({zones.label()}) for the filters above."
        + (
            f" {zones.label()} is off UTC by part of an hour; alarms are counted per UTC hour, each placed"
            " in the local hour it starts in."
            if zones.off_the_hour(data.now_ms())
            else ""
        )
    )
    heat = data.weekday_hour_counts(path, flt, zones.label())
    if heat:
        st.html(charts.weekday_hour_table(heat, zones.label()))
    else:
        st.info("Nothing to map for these filters.")


below_the_table()
