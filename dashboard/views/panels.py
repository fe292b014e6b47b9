"""Panels & sensors: pick a panel; its sensors by type, controllers with latest values, last activities."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core import read
from dashboard import boundary, data, filters, ui, who_can
from dashboard.markup import literal

path = ui.start_page("Panels & sensors")

filters.seed("panels_q", "q", filters.text, default="")
filters.seed("panels_panel", "panel", filters.identifier)

search_col, pick_col = st.columns([2, 3])
text = search_col.text_input(
    "Search panels", key="panels_q", placeholder="name or id", max_chars=filters.TEXT_MAX
)
found = {p.resource_id: p for p in data.find_panels(path, text.strip() or None, None, 200)}
if (linked := st.session_state["panels_panel"]) is not None and linked not in found:
    found.update({p.resource_id: p for p in data.find_panels(path, str(linked), None, 1)})
    if linked not in found:
        filters.note(f"Panel {linked} is not in the cache.")
if st.session_state["panels_panel"] not in found:
    st.session_state["panels_panel"] = next(iter(found), None)
resource_id = pick_col.selectbox(
    "Panel",
    list(found),
    key="panels_panel",
    format_func=lambda p: f"{found[p].name or 'panel'} ({p})",
    placeholder="No panel matches",
)
filters.publish({"q": text, "panel": resource_id})


def sensors_frame(sensors: list[read.SensorRow]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Sensor": [s.name or "" for s in sensors],
            "No": pd.Series([s.sensor_id for s in sensors], dtype="Int64"),
            "Description": [s.description or "" for s in sensors],
            "I/O": [" / ".join(filter(None, (s.io_type, s.io_direction))) for s in sensors],
            "Partitions": [", ".join(s.partitions) for s in sensors],
        }
    )


def controllers_frame(controllers: list[read.ControllerRow]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Controller": [c.name or "" for c in controllers],
            "Value": [c.value if c.value is not None else "—" for c in controllers],
            "Updated": ui.timestamps([c.last_update for c in controllers]),
            "Partitions": [", ".join(c.partitions) for c in controllers],
        }
    )


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def panel_view(resource_id: int) -> None:
    detail = data.panel_detail(path, resource_id, 15)
    if detail is None:
        st.warning(f"Panel {resource_id} is not in the cache.")
        return
    panel = detail.panel
    st.header(literal(panel.name) if panel.name else f"panel {panel.resource_id}")
    facts: list[str | None] = [
        f"id {panel.resource_id}",
        literal(panel.brand or ""),
        literal(panel.model or ""),
        f"org {panel.org_id}",
    ]
    facts.append("enabled" if panel.enabled else "disabled" if panel.enabled is False else None)
    if detail.data_as_of:
        facts.append(f"data as of {ui.when(detail.data_as_of)}")
    st.caption(" · ".join(str(f) for f in facts if f))
    st.page_link(
        "views/alarms.py",
        label="This panel's alarms",
        icon=":material/notifications_active:",
        query_params={"panel": str(panel.resource_id)},
    )

    sensors_col, controllers_col = st.columns([3, 2], gap="large")
    with sensors_col:
        st.markdown(f"### Sensors · {sum(map(len, detail.sensors_by_type.values()))}")
        if not detail.sensors_by_type:
            st.info("This panel has no sensors.")
        for sensor_type, sensors in sorted(detail.sensors_by_type.items()):
            st.markdown(f"**{literal((sensor_type or 'other').capitalize())}** · {len(sensors)}")
            st.dataframe(sensors_frame(sensors), hide_index=True, placeholder=ui.EMPTY, width="stretch")
    with controllers_col:
        st.markdown(f"### Controllers · {len(detail.controllers)}")
        if detail.controllers:
            st.dataframe(
                controllers_frame(detail.controllers),
                hide_index=True,
                placeholder=ui.EMPTY,
                width="stretch",
                column_config={"Updated": ui.time_column("Updated")},
            )
        else:
            st.info("This panel has no controllers.")
    st.markdown(f"### Last activities · {len(detail.last_activities)}")
    if detail.last_activities:
        ui.show_alarms(ui.alarms_frame(detail.last_activities))
    else:
        st.info("No activities cached for this panel.")
    who_can.section(path, panel)


if resource_id is None:
    st.info("No panel matches this search.")
else:
    panel_view(resource_id)
