"""The read API over the cache: the only way the bot and the dashboard see cached data.

Every function takes an open database (from `core.cache.db.open_cache` or `open_reader`) and returns frozen
dataclasses (`core.read.rows`), never SQL rows, so that pages and listeners hold no SQL. Times are epoch-ms
integers. `from core import read` and `read.X` is how callers use it; the modules are:

- `rows`: the records returned, and reading rows by column name;
- `alarms`: filtered alarm lists and counts; `search`: how a rare search text is found fast;
- `cameras`, `panels`: cameras and their problems, organizations and panels;
- `stats`: counts over time and panels (charts, heatmap, KPIs); `freshness`: how fresh each table is;
- `who_can`: who may operate a panel at a moment (authorizations, privilege groups, validity windows);
  `keyholders`: how each panel's authorizations were last read, which are due, which cards are behind;
- `zones`: the time zone an organization lives in; `sparklines`: the KPI tiles' counts hour by hour;
- `handling`: how fast alarms are acknowledged and resolved, and the states of a card's alarms;
- `glance`: the Overview's first screen (what needs a person now); `home`: what a person's App Home shows;
  `handover`: a shift's summary; `incidents`: site incidents;
- `quiet`: silences and maintenance windows in force, and what a window held back;
- `cards`: the cards the bot posted, found by channel and ts or by alarm; `plans`: an alarm's checklist,
  and plan adherence;
- `at_risk`: per organization, authorizations expiring, overdue bills, silent and noisy panels, cameras down;
- `false_alarms`: dispositions counted: false-alarm rates, flagged panels, a shift's dispositions;
- `history`: from when the data is complete (the backfill), which alarms reached samops late;
- `health`: whether alarms flow (`readiness`: core/health.py's verdict over the notifier's records);
- `activities`, `cursors`, `status`: core's own (the poller, the sync, `samops status`).

A name too generic to stand alone is given its module's word here (`quiet.window` is `quiet_window`).

CONTRACT: these names are what `bot/` and `dashboard/` are written against (docs/architecture.md).
"""

from core.alarms import SEVERITY
from core.read import search
from core.read.alarms import AlarmFilter, count_alarms, iter_alarms, recent_alarms
from core.read.at_risk import AtRisk
from core.read.at_risk import at_risk as at_risk_of
from core.read.cameras import camera_down, camera_problems, camera_summary
from core.read.cards import (
    Card,
    CardKind,
    ConsoleCard,
    card_at,
    card_of_alarm,
    console_card,
    console_card_at,
    console_cards,
    console_ref,
    first_grouped,
    panel_name,
)
from core.read.false_alarms import (
    AlarmDisposition,
    Grouping,
    GroupRates,
    PanelFalseAlarms,
    ShiftDispositions,
    dispositions_of,
    panel_false_alarms,
    shift_dispositions,
)
from core.read.false_alarms import Period as FalseAlarmPeriod
from core.read.false_alarms import rates as false_alarm_rates
from core.read.freshness import SYNCED_TABLES, Freshness, freshness, newest_activity
from core.read.freshness import assess as assess_freshness
from core.read.glance import Glance, PriorityCounts, glance
from core.read.handling import Figures as HandlingFigures
from core.read.handling import (
    OpenAlarm,
    Standing,
    card_alarms,
    card_states,
    handling_times,
    open_alarms,
    open_by_age,
    open_on_cards,
    standings,
    state_counts,
)
from core.read.handover import Handover, handover
from core.read.health import figures as health_figures
from core.read.health import readiness
from core.read.history import LATE_AFTER_MS, Backfill, complete_from, is_late, late_by, lateness, seen_times
from core.read.history import backfill as backfill_progress
from core.read.home import HomeAlarm, HomeData, home_data
from core.read.home import Scope as HomeScope
from core.read.home import fingerprint as home_fingerprint
from core.read.incidents import IncidentSummary, incident_timeline, open_incidents, unrecorded_errors
from core.read.keyholders import StaleCard as KeyholderStaleCard
from core.read.keyholders import cards_behind as keyholder_cards_behind
from core.read.keyholders import edit_key as keyholder_edit_key
from core.read.panels import (
    find_panels,
    organizations,
    panel_detail,
    panel_org,
    panel_org_ids,
    site_panels,
)
from core.read.plans import Adherence as PlanAdherence
from core.read.plans import AdherenceReport as PlanAdherenceReport
from core.read.plans import Checklist, ChecklistStep, StepData
from core.read.plans import adherence as plan_adherence
from core.read.plans import checklist as plan_checklist
from core.read.plans import mandatory_left as plan_steps_left
from core.read.quiet import (
    MAINTENANCE,
    SILENCE,
    HeldBack,
    HeldGroup,
    QuietWindow,
    held_alarms,
    held_back,
    held_count,
    held_reasons,
    marked_during,
    marked_reasons,
    windows_in_force,
)
from core.read.quiet import window as quiet_window
from core.read.rows import (
    AlarmRow,
    CameraRow,
    ControllerRow,
    HourCount,
    Kpis,
    PanelDetail,
    PanelRow,
    SensorRow,
    TableFreshness,
    WeekdayHourCount,
    clean_text,
)
from core.read.sparklines import KpiHours, kpi_hours
from core.read.stats import hourly_counts, kpis, noisiest_panels, weekday_hour_counts
from core.read.status import RefusedLogin, refused_logins
from core.read.who_can import PanelUser, WhoCan, WhoCanEntry, who_can
from core.read.zones import UsersZones, organization_time_zone, users_zone

__all__ = [
    "LATE_AFTER_MS",
    "MAINTENANCE",
    "SEVERITY",
    "SILENCE",
    "SYNCED_TABLES",
    "AlarmDisposition",
    "AlarmFilter",
    "AlarmRow",
    "AtRisk",
    "Backfill",
    "CameraRow",
    "Card",
    "CardKind",
    "Checklist",
    "ChecklistStep",
    "ConsoleCard",
    "ControllerRow",
    "FalseAlarmPeriod",
    "Freshness",
    "Glance",
    "GroupRates",
    "Grouping",
    "HandlingFigures",
    "Handover",
    "HeldBack",
    "HeldGroup",
    "HomeAlarm",
    "HomeData",
    "HomeScope",
    "HourCount",
    "IncidentSummary",
    "KeyholderStaleCard",
    "KpiHours",
    "Kpis",
    "OpenAlarm",
    "PanelDetail",
    "PanelFalseAlarms",
    "PanelRow",
    "PanelUser",
    "PlanAdherence",
    "PlanAdherenceReport",
    "PriorityCounts",
    "QuietWindow",
    "RefusedLogin",
    "SensorRow",
    "ShiftDispositions",
    "Standing",
    "StepData",
    "TableFreshness",
    "UsersZones",
    "WeekdayHourCount",
    "WhoCan",
    "WhoCanEntry",
    "assess_freshness",
    "at_risk_of",
    "backfill_progress",
    "camera_down",
    "camera_problems",
    "camera_summary",
    "card_alarms",
    "card_at",
    "card_of_alarm",
    "card_states",
    "clean_text",
    "complete_from",
    "console_card",
    "console_card_at",
    "console_cards",
    "console_ref",
    "count_alarms",
    "dispositions_of",
    "false_alarm_rates",
    "find_panels",
    "first_grouped",
    "freshness",
    "glance",
    "handling_times",
    "handover",
    "health_figures",
    "held_alarms",
    "held_back",
    "held_count",
    "held_reasons",
    "home_data",
    "home_fingerprint",
    "hourly_counts",
    "incident_timeline",
    "is_late",
    "iter_alarms",
    "keyholder_cards_behind",
    "keyholder_edit_key",
    "kpi_hours",
    "kpis",
    "late_by",
    "lateness",
    "marked_during",
    "marked_reasons",
    "newest_activity",
    "noisiest_panels",
    "open_alarms",
    "open_by_age",
    "open_incidents",
    "open_on_cards",
    "organization_time_zone",
    "organizations",
    "panel_detail",
    "panel_false_alarms",
    "panel_name",
    "panel_org",
    "panel_org_ids",
    "plan_adherence",
    "plan_checklist",
    "plan_steps_left",
    "quiet_window",
    "readiness",
    "recent_alarms",
    "refused_logins",
    "search",
    "seen_times",
    "shift_dispositions",
    "site_panels",
    "standings",
    "state_counts",
    "unrecorded_errors",
    "users_zone",
    "weekday_hour_counts",
    "who_can",
    "windows_in_force",
]
