"""The read API over the cache: the only way the bot and the dashboard see cached data.

Every function takes an open database (from `core.cache.db.open_cache` or `open_reader`) and returns frozen
dataclasses (`core.read.rows`), never SQL rows, so that pages and listeners hold no SQL. Times are epoch-ms
integers. `from core import read` and `read.X` is how callers use it; the modules are:

- `rows`: the records returned, and reading rows by column name;
- `alarms`: filtered alarm lists and counts; `search`: how a rare search text is found fast;
- `cameras`, `panels`: cameras and their problems, organizations and panels;
- `stats`: counts over time and panels (charts, heatmap, KPIs); `freshness`: how fresh each table is;
- `who_can`: who may operate a panel at a moment (authorizations, privilege groups, validity windows);
- `zones`: the time zone an organization lives in; `sparklines`: the KPI tiles' counts hour by hour.

CONTRACT: these names are what `bot/` and `dashboard/` are written against (docs/architecture.md).
"""

from core.alarms import SEVERITY
from core.read import search
from core.read.alarms import AlarmFilter, count_alarms, iter_alarms, recent_alarms
from core.read.cameras import camera_problems, camera_summary
from core.read.freshness import SYNCED_TABLES, freshness
from core.read.panels import find_panels, organizations, panel_detail
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
from core.read.who_can import PanelUser, WhoCan, WhoCanEntry, who_can
from core.read.zones import UsersZones, organization_time_zone, users_zone

__all__ = [
    "SEVERITY",
    "SYNCED_TABLES",
    "AlarmFilter",
    "AlarmRow",
    "CameraRow",
    "ControllerRow",
    "HourCount",
    "KpiHours",
    "Kpis",
    "PanelDetail",
    "PanelRow",
    "PanelUser",
    "SensorRow",
    "TableFreshness",
    "UsersZones",
    "WeekdayHourCount",
    "WhoCan",
    "WhoCanEntry",
    "camera_problems",
    "camera_summary",
    "clean_text",
    "count_alarms",
    "find_panels",
    "freshness",
    "hourly_counts",
    "iter_alarms",
    "kpi_hours",
    "kpis",
    "noisiest_panels",
    "organization_time_zone",
    "organizations",
    "panel_detail",
    "recent_alarms",
    "search",
    "users_zone",
    "weekday_hour_counts",
    "who_can",
]
