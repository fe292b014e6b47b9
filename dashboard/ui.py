"""What every page shares: the no-data notice, the freshness banner, severity colours and table helpers."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import tzinfo
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd
import streamlit as st

from core import alarms, read, timefmt
from core.priorities import Priority
from dashboard import boundary, data, zones
from dashboard.markup import literal
from dashboard.paths import db_path

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.elements.lib.column_types import ColumnConfig  # what st.column_config.* return

EMPTY = "—"  # what a table's empty cell shows (Streamlit's grid writes "None" unless told)
NO_DATA = "No data yet — run `samops sync` to fill the cache, then reload this page."

# One colour per violationType, most severe first (core.alarms), shared by tables and charts.
SEVERITY_COLOURS: dict[str, str] = {kind.name: kind.colour for kind in alarms.KINDS}
OTHER_COLOUR = "#8ecae6"

# Streamlit draws st.caption in its text colour at 60 % (#828180 on white: 3.9:1, under WCAG's 4.5:1).
# Inheriting the text colour at 80 % reads at about 6.5:1 and still sets captions apart, in the light theme
# and the dark one alike (docs/accessibility.md).
_READABLE_CAPTIONS = '<style>[data-testid="stCaptionContainer"]{color:inherit;opacity:.8}</style>'


def readable_captions() -> None:
    """Captions at a readable contrast on every page: the frame (dashboard/app.py) calls it on each run."""
    st.html(_READABLE_CAPTIONS)


def _unreadable(path: object, exc: BaseException) -> str:
    """Why the cache cannot be read. Our own reasons name the path and say what to do, so they are shown
    whole: cut to one_line's limit, a long path pushed "run `samops sync`" out of the message."""
    from core.cache import CacheUnavailableError  # the dashboard imports the cache lazily (dashboard/data.py)

    if isinstance(exc, CacheUnavailableError):
        return f"The cache cannot be read: {exc}"
    return f"The cache at `{path}` cannot be read: {data.one_line(str(exc))}"


def start_page(title: str, period: bool = False) -> str:
    """Show the page title and the freshness banner (and, on a page that shows a period, from when its
    data is complete); return the cache path, or stop with a notice."""
    st.title(title)
    path = db_path()
    try:
        state = data.cache_state(path)
    except (sqlite3.DatabaseError, RuntimeError) as exc:
        st.error(_unreadable(path, exc))
        st.stop()
    if state is None:
        st.info(NO_DATA, icon=":material/hourglass_empty:")
        st.stop()
    freshness_banner(str(path))
    if period:
        history_notice(str(path))
    return str(path)


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def history_notice(path: str) -> None:
    """While the backfill fills the dashboard's week (docs/history.md): from when the data is complete."""
    state = data.backfill(path)
    if state is None or state.done:
        return
    st.info(
        f"**Complete from {when(state.until)}** — samops is still filling in the history before that, from "
        f"{when(state.since)} ({state.panels_done} of {state.panels} panels done): counts and charts "
        "before then are partial.",
        icon=":material/history:",
    )


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def freshness_banner(path: str) -> None:
    """What is fresh, each named: the last successful sync and the newest activity in the cache. The oldest
    table's time ("data as of" before issue 22) is a slow tier's, minutes old while the sync runs every few
    seconds; it is named only when it is what makes the cache stale (core/read/freshness.py)."""
    now = data.now_ms()
    tables = data.freshness(path)
    view = data.assess(tables, now)
    synced = f"last successful sync {timefmt.age(view.last_sync, now)} ({when(view.last_sync)})"
    if refused := data.refused_logins(path):
        # Said above all else: a kept session can sync on while the alarm poller cannot log in (issue 37).
        parts = literal(", ".join(r.part for r in refused))
        first = min(refused, key=lambda r: r.since_ms or now)
        st.error(
            f"**The service refuses samops' login** ({parts}) since {when(first.since_ms)}: "
            f"{literal(data.one_line(first.reason))} — what they fetch is not fresh (`samops status`).",
            icon=":material/lock:",
        )
    if view.failing:
        names = literal(", ".join(t.table for t in view.failing))
        latest = max(view.failing, key=lambda t: t.last_error_at or 0)
        st.error(
            f"**Sync failing** ({names}) since {when(latest.last_error_at)}: "
            f"{literal(data.one_line(latest.last_error))} — showing the last cache, {synced}.",
            icon=":material/sync_problem:",
        )
    elif view.stale:
        oldest = min((t for t in tables if t.last_success), key=lambda t: t.last_success or 0, default=None)
        if oldest is None or oldest.last_success == view.last_sync:  # nothing has succeeded since
            st.error(f"**Stale** — {synced}; the sync has not succeeded since.", icon=":material/schedule:")
        else:  # the sync runs, but one table lags (a tier stretched at fleet size: core/tiers.py)
            lags = f"{literal(oldest.table)} synced {timefmt.age(oldest.last_success, now)}"
            st.error(f"**Stale** — {lags}; {synced}.", icon=":material/schedule:")
    else:
        newest = data.newest_activity(path)
        activity = (
            f"newest activity {timefmt.age(newest, now)} ({when(newest)})" if newest else "no activity yet"
        )
        st.caption(f":material/check_circle: Live — {synced} · {activity}")


def when(epoch_ms: int | None) -> str:
    """A time in the viewer's zone, as every page writes one outside tables."""
    return timefmt.local(epoch_ms, zones.tz(), missing="—")


def cell(epoch_ms: int | None, seconds: bool = False) -> str:
    """A time in the viewer's zone in a table cell: the zone is named once, in the header (`timed`)."""
    return timefmt.wall(epoch_ms, zones.tz(), missing="—", seconds=seconds)


def timed(header: str) -> str:
    """A time column's header, naming the viewer's zone its cells (`cell`) are in: "Expires (UTC)"."""
    return f"{header} ({zones.label()})"


def colour_of(violation_type: str | None) -> str:
    kind = alarms.kind_of(violation_type)
    return kind.colour if kind else OTHER_COLOUR


def timestamps(values: list[int | None]) -> pd.Series:
    return pd.to_datetime(pd.Series(values, dtype="Int64"), unit="ms", utc=True)


def state_cells(state: read.Standing | None, held: str = "", during: str = "") -> tuple[str, str]:
    """An alarm's State and Held by cells: open, acknowledged or resolved, and who holds it (the rule is
    core/lifecycle.py's, read through core.read.standings); for an alarm a silence or maintenance window held
    back, `held`: why (`QuietWindow.held_reason`); for a life-safety alarm posted during maintenance,
    `during` after its state ("open · during maintenance of … : a test?", as its card says); both blank for
    an alarm samops does not track (older than samops, or not delivered yet)."""
    if state is None:
        return held or during, ""
    shown = state.state.value + (f" · {during}" if during else "")
    return shown, state.holder or ""


def held_words(held: Mapping[str, read.QuietWindow], event_id: str, tz: tzinfo) -> str:
    """Why the alarm was held back, on the viewer's clock ("held: maintenance by @U… until …"), else "";
    the zone unnamed: the Time column's header names it."""
    window = held.get(event_id)
    return window.held_reason(tz, named=False) if window is not None else ""


def during_words(marked: Mapping[str, read.QuietWindow], event_id: str, tz: tzinfo) -> str:
    """What maintenance a life-safety alarm was posted during, on the viewer's clock, the zone unnamed; else
    ""."""
    window = marked.get(event_id)
    return window.during(tz, named=False) if window is not None else ""


def alarms_frame(
    rows: list[read.AlarmRow],
    states: Mapping[str, read.Standing] | None = None,
    held: Mapping[str, read.QuietWindow] | None = None,
    priorities: Mapping[str, Priority] | None = None,
    marked: Mapping[str, read.QuietWindow] | None = None,
) -> pd.DataFrame:
    """The rows as a frame for the grid; with `states`, each alarm's State and Held by (the Alarms page),
    the State of one held back saying why (`held`, in the viewer's zone); with `priorities`, a Priority column
    first. The columns are dashboard/alarm_table.py's, in its order."""
    lifecycle: dict[str, list[str]] = {}
    if states is not None:
        tz, held, marked = zones.tz(), held or {}, marked or {}
        cells = [
            state_cells(
                states.get(r.event_id), held_words(held, r.event_id, tz), during_words(marked, r.event_id, tz)
            )
            for r in rows
        ]
        lifecycle = {"State": [c[0] for c in cells], "Held by": [c[1] for c in cells]}
    ranked: dict[str, list[str]] = {}
    if priorities is not None:
        ranked = {"Priority": [p.label if (p := priorities.get(r.event_id)) else "" for r in rows]}
    return pd.DataFrame(
        {
            **ranked,
            **lifecycle,
            "Time": timestamps([r.activity_time for r in rows]),
            "Type": [r.violation_type or "" for r in rows],
            "Violation": [r.violation_name or "" for r in rows],
            "Panel": [r.panel_name or "" for r in rows],
            "Panel id": pd.Series([r.resource_id for r in rows], dtype="Int64"),
            "Event": [r.event_type or "" for r in rows],
            "Description": [r.description or "" for r in rows],
            "Org": pd.Series([r.org_id for r in rows], dtype="Int64"),
        }
    )


def type_column(label: str = "Type") -> ColumnConfig:
    """Severity as a coloured pill: cheaper to render than a Styler on hundreds of rows."""
    return st.column_config.MultiselectColumn(
        label, options=list(SEVERITY_COLOURS), color=list(SEVERITY_COLOURS.values()), width="small"
    )


def show_alarms(frame: pd.DataFrame, height: int | Literal["auto"] = "auto") -> None:
    """The alarms table, sortable, its type coloured by severity."""
    shown = frame.assign(Type=[[t] if t else [] for t in frame["Type"]])
    st.dataframe(
        shown,
        hide_index=True,
        placeholder=EMPTY,
        width="stretch",
        height=height,
        column_config={
            "Time": time_column(),
            "Type": type_column(),
            "Panel id": st.column_config.NumberColumn("Panel id", format="%d"),
            "Org": st.column_config.NumberColumn("Org", format="%d"),
            "Description": st.column_config.TextColumn("Description", width="large"),
        },
    )


def table(frame: pd.DataFrame, max_height: int, column_config: dict[str, Any] | None = None) -> None:
    """A table of `frame` as tall as its rows (Streamlit's row and header heights), at most `max_height`."""
    st.dataframe(
        frame,
        hide_index=True,
        placeholder=EMPTY,
        width="stretch",
        height=min(36 + 35 * len(frame), max_height),
        column_config=column_config,
    )


def time_column(label: str = "Time") -> ColumnConfig:
    """Times in the viewer's zone (the frame holds UTC instants), named in the column's label."""
    return st.column_config.DatetimeColumn(
        f"{label} ({zones.label()})", format="YYYY-MM-DD HH:mm:ss", timezone=zones.current()
    )


def all_or_one(
    column: DeltaGenerator, label: str, names: dict[int, str], key: str, everything: str
) -> int | None:
    """A select box of `everything` (None) or one of `names` (id -> name), shown as "name (id)"."""
    return column.selectbox(
        label,
        [None, *names],
        key=key,
        placeholder=everything,
        format_func=lambda i: everything if i is None else f"{names[i]} ({i})",
    )


def csv_button(column: DeltaGenerator, data: Any, file_name: str, explains: str | None = None) -> None:
    """A "Download CSV" button of `data` (text, or a callable making it only when clicked) without a rerun."""
    column.download_button(
        "Download CSV",
        data,
        file_name=file_name,
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",
        width="stretch",
        help=explains,
    )
