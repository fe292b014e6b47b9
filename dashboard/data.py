"""Cached calls of the read API for the pages, and the freshness of what they show.

Pages never open the cache themselves: they call these functions, which take the cache path (so that the
Streamlit cache keys on it) and return the read API's frozen dataclasses. Every read has a short ttl, so
pages refresh without hammering SQLite.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from core import cache, read, timefmt
from core.clock import DAY_MS as DAY_MS  # the pages read the spans from here
from core.clock import HOUR_MS as HOUR_MS
from core.clock import now_ms
from core.config import SamopsConfig, read_config
from core.dispositions import FalseAlarmsConfig
from core.incidents import Evidence
from core.keyholders import contexts
from core.priorities import Priorities, Priority
from core.read import Freshness, IncidentSummary, QuietWindow, windows_in_force
from core.read import assess_freshness as assess
from core.read import incident_timeline as read_incident_timeline
from core.read import open_incidents as open_incidents_of
from core.sqlite_lib import sqlite_utils

TTL_SECONDS = 15
REFRESH_SECONDS = 30


def floor_to(ms: int, step: int) -> int:
    """Round down, so that time windows (and the cache keys holding them) stay put within a step."""
    return ms - ms % step


@contextmanager
def _reader(path: str) -> Iterator[sqlite_utils.Database]:
    from core.cache import open_reader

    db = open_reader(path)
    try:
        yield db
    finally:
        db.conn.close()


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def freshness(path: str) -> list[read.TableFreshness]:
    with _reader(path) as db:
        return read.freshness(db)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def refused_logins(path: str) -> list[read.RefusedLogin]:
    """The parts whose logins the service refuses now (`core.read.refused_logins`)."""
    with _reader(path) as db:
        return read.refused_logins(db)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def backfill(path: str) -> read.Backfill | None:
    """The backfill of the dashboard's week and how far it got (`core.read.history`)."""
    with _reader(path) as db:
        return read.backfill_progress(db)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def newest_activity(path: str) -> int | None:
    with _reader(path) as db:
        return read.newest_activity(db)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def organizations(path: str) -> list[tuple[int, str]]:
    with _reader(path) as db:
        return read.organizations(db)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def at_risk(path: str, org_ids: tuple[int, ...], now: int) -> list[read.AtRisk]:
    """The at-risk list of each organization (`core.read.at_risk`); all of them when `org_ids` is empty."""
    with _reader(path) as db:
        orgs = org_ids or tuple(sorted(read.panel_org_ids(db)))
        return [read.at_risk_of(db, o, now) for o in orgs]


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def users_zone(path: str, org_id: int | None = None) -> str | None:
    """The zone most of the organization's cached users have (`core.read.users_zone`)."""
    with _reader(path) as db:
        return read.users_zone(db, org_id)


def alarm_chunks(path: str, flt: read.AlarmFilter, chunk: int = 1000) -> Iterator[list[read.AlarmRow]]:
    """Every alarm `flt` matches, newest first, a chunk at a time (not cached: for the full export)."""
    with _reader(path) as db:
        yield from read.iter_alarms(db, flt, chunk)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def kpis(path: str, now: int) -> read.Kpis:
    with _reader(path) as db:
        return read.kpis(db, now)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def glance(path: str, now: int, day_start: int, config_path: str) -> read.Glance:
    """The Overview's first screen (core.read.glance), by the config's priorities (the defaults when they
    cannot be used: `config_problem` says why)."""
    with _reader(path) as db:
        return read.glance(db, now, day_start, _priorities(config_path))


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def hourly_counts(path: str, since: int, until: int, org_id: int | None = None) -> list[read.HourCount]:
    with _reader(path) as db:
        return read.hourly_counts(db, since, until, org_id)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def noisiest_panels(path: str, since: int, limit: int = 10) -> list[tuple[read.PanelRow, int]]:
    with _reader(path) as db:
        return read.noisiest_panels(db, since, limit)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def quiet_windows(path: str, now: int) -> list[QuietWindow]:
    """Silences and maintenance windows in force at `now` or planned after it."""
    with _reader(path) as db:
        return windows_in_force(db, now, upcoming=True)


@dataclass(frozen=True)
class AlarmList:
    """The Alarms page's rows and what its table says of each, by event id: the lifecycle state
    (core.read.standings), the keyholder line (core/keyholders.py), the disposition it was resolved as, and
    the silence or maintenance window that held it back (core.read.held_reasons: never posted)."""

    rows: list[read.AlarmRow]
    states: dict[str, read.Standing]
    keyholders: dict[str, str]
    closed: dict[str, read.AlarmDisposition]
    held: dict[str, QuietWindow] = field(default_factory=dict)
    priorities: dict[str, Priority] = field(default_factory=dict)  # by the config's [[priorities]]
    marked: dict[str, QuietWindow] = field(default_factory=dict)  # life-safety, posted during maintenance


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def alarm_list(path: str, flt: read.AlarmFilter, limit: int, config_path: str) -> AlarmList:
    """The newest `limit` alarms `flt` matches, with each one's state, keyholder line and disposition, read
    in one go and cached as one value. Keyed on the filter, not on the rows: a cached call keyed on 500 rows
    (or their 500 event ids) hashed them on every run, cache hit or not, which was most of a warm run's CPU
    (docs/dashboard-speed.md)."""
    with _reader(path) as db:
        rows = read.recent_alarms(db, flt, limit)
        event_ids = [r.event_id for r in rows]
        ranked = _priorities(config_path)
        return AlarmList(
            rows,
            read.standings(db, event_ids),
            _keyholder_lines(db, rows, config_path),
            read.dispositions_of(db, event_ids),
            read.held_reasons(db, event_ids),
            {r.event_id: ranked.of(r) for r in rows},
            read.marked_reasons(db, event_ids),
        )


def closed_now(path: str, event_ids: Sequence[str]) -> dict[str, read.AlarmDisposition]:
    """What each listed alarm was resolved as, not cached: for the full export's thread, a chunk at a time."""
    with _reader(path) as db:
        return read.dispositions_of(db, event_ids)


def _keyholder_lines(
    db: sqlite_utils.Database, rows: list[read.AlarmRow], config_path: str
) -> dict[str, str]:
    """Each alarm's keyholder line (core/keyholders.py) by event id, as its card says it: judged at its own
    time in its organization's zone (the config's `[notify]` zone, else its cached users')."""
    notify = config(config_path)[0].notify
    found = contexts(db, rows, lambda org: notify.zone_for(org, fallback=read.users_zone(db, org)))
    return {event_id: context.text for event_id, context in found.items()}


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def weekday_hour_counts(path: str, flt: read.AlarmFilter, zone: str) -> list[read.WeekdayHourCount]:
    """The heat map's cells on the wall clock of `zone` (an IANA name: the cache key)."""
    with _reader(path) as db:
        return read.weekday_hour_counts(db, flt, timefmt.zone(zone))


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def camera_summary(
    path: str, org_id: int | None = None, text: str | None = None, problems_only: bool = False
) -> list[read.CameraRow]:
    with _reader(path) as db:
        return read.camera_summary(db, org_id, text, problems_only)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def find_panels(
    path: str, text: str | None = None, org_id: int | None = None, limit: int = 50
) -> list[read.PanelRow]:
    with _reader(path) as db:
        return read.find_panels(db, text, org_id, limit)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def panel_detail(path: str, resource_id: int, activities: int = 15) -> read.PanelDetail | None:
    with _reader(path) as db:
        return read.panel_detail(db, resource_id, activities)


def cache_state(path: Path) -> Freshness | None:
    """The cache's freshness, or None when there is no usable cache yet (missing, empty, never synced)."""
    # A missing or empty file is "no cache yet", not an error (open_reader would refuse both): look first.
    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        view = assess(freshness(str(path)), now_ms())
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return None
        raise
    return view if view.has_data else None


def one_line(text: str | None, limit: int = 160) -> str:
    first = (text or "unknown error").strip().splitlines()[0] if text and text.strip() else "unknown error"
    return first if len(first) <= limit else first[: limit - 1] + "…"


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def open_incidents(
    path: str, org_id: int | None = None, resource_id: int | None = None, limit: int = 50
) -> list[IncidentSummary]:
    """Open or acknowledged site incidents (the Alarms page's "Group by incident"), of one panel if given."""
    with _reader(path) as db:
        return open_incidents_of(db, None if org_id is None else [org_id], limit, resource_id)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def incident_timeline(path: str, incident_id: int) -> list[Evidence]:
    with _reader(path) as db:
        return read_incident_timeline(db, incident_id)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def handling_times(path: str, since: int, until: int, by: str, zone: str) -> list[read.HandlingFigures]:
    """The Handling page's time to acknowledge and to resolve, per day (the days of `zone`) or per panel."""
    with _reader(path) as db:
        return read.handling_times(db, since, until, by=by, zone=timefmt.zone(zone))


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def held_alarms(path: str, since: int, until: int) -> list[read.HeldBack]:
    """The alarms of [since, until) a silence or maintenance window held back, newest first, with the
    window (the Handling page lists them beside the open ones)."""
    with _reader(path) as db:
        return read.held_alarms(db, since, until)


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def open_alarms(path: str, now: int, config_path: str | None = None) -> list[read.OpenAlarm]:
    """The alarms not yet resolved, oldest first; given the config, by priority then oldest first, with
    each one's priority (the Handling page; a config whose priorities are bad gives the defaults, and the
    page says why: `config_problem`)."""
    with _reader(path) as db:
        if config_path is None:
            return read.open_alarms(db, now)
        return read.open_alarms(db, now, priorities=_priorities(config_path))


def _priorities(config_path: str) -> Priorities:
    """The config's priorities, the defaults when it cannot be used (`config_problem` says why)."""
    return config(config_path)[0].priority_book()


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def false_alarm_rates(
    path: str,
    by: str,
    now: int,
    org_id: int | None,
    threshold: int | None = None,
    threshold_days: int = 30,
) -> list[read.GroupRates]:
    """False-alarm counts per panel, organization or kind over 7, 30 and 90 days (the False alarms page)."""
    with _reader(path) as db:
        return read.false_alarm_rates(
            db, read.Grouping(by), now, org_id=org_id, threshold=threshold, threshold_days=threshold_days
        )


def config(config_path: str) -> tuple[SamopsConfig, str | None]:
    """The one configuration model (core/config/), read as the bot reads it; when the file cannot be used,
    the defaults and why (one line naming the field), which the pages that show a configured value say."""
    return read_config(Path(config_path))


def false_alarm_limits(config_path: str) -> tuple[FalseAlarmsConfig, str | None]:
    """`[false_alarms]` of the config, and why the config cannot be used (one line naming a field), if so."""
    model, problem = config(config_path)
    return model.false_alarms, problem


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def plan_adherence(path: str, since: int, until: int, config_path: str) -> read.PlanAdherenceReport:
    """The Handling page's action-plan adherence over the alarms resolved in [since, until), by the config's
    plans (the defaults when the file cannot be used: `config_problem` says why)."""
    with _reader(path) as db:
        return read.plan_adherence(db, config(config_path)[0].plan_book(), since, until)


def config_problem(config_path: str) -> str | None:
    """Why the config cannot be used (one line naming the field), or None."""
    return config(config_path)[1]


@st.cache_data(ttl=TTL_SECONDS, show_spinner=False)
def audit_rows(
    path: str, limit: int, since: int | None, user: str | None, command: str | None, outcome: str | None
) -> list[cache.AuditEntry]:
    """The audit log, newest first, filtered as the Audit page asks."""
    with _reader(path) as db:
        return cache.recent_audit(db, limit, user, command, outcome=outcome, since=since)
