"""What an alarm is, in SQL: the one SQL spelling of `core.alarms.is_alarm`, and the columns of an Alarm.

Kept here, with the rest of the cache's SQL, rather than in core/alarms.py (which holds no SQL): the cache's
hourly rollup (core/cache/schema.py), the read API and the notifier's outbox all select alarms with these.
In core/cache rather than core/read because the schema needs it and core/read builds on core/cache.
"""

from __future__ import annotations

from core.alarms import SUPERVISION_PREFIX, VIOLATION


def alarm_sql(alias: str = "") -> str:
    """The SQL test for an alarm over the activities columns, optionally qualified by a table alias."""
    a = f"{alias}." if alias else ""
    return f"({a}event_type = '{VIOLATION}' OR {a}violation_type IS NOT NULL)"


def service_event_sql(alias: str = "") -> str:
    """The SQL test for an activity of the service, not samops' own supervision alarm (`is_supervision`)."""
    a = f"{alias}." if alias else ""
    return f"{a}event_id NOT LIKE '{SUPERVISION_PREFIX}%'"


# The SELECT list of an Alarm over `activities a LEFT JOIN panels p`, each column named as its field.
ALARM_COLUMNS = (
    "a.event_id AS event_id, a.resource_id AS resource_id, a.org_id AS org_id,"
    " a.activity_time AS activity_time, a.description AS description, a.event_type AS event_type,"
    " a.violation_name AS violation_name, a.violation_type AS violation_type, p.name AS panel_name"
)

__all__ = ["ALARM_COLUMNS", "alarm_sql", "service_event_sql"]
