"""False-alarm accountability: how many alarms were closed as false, per panel, organization and alarm kind,
over 7, 30 and 90 days; which panels are over the `[false_alarms]` threshold; a panel's count for `/sam
panel`; the shift's dispositions and its worst panels for the handover. Every SQL statement of it is here.

What is counted (docs/dispositions.md): alarms resolved with a disposition (`alarm_dispositions`, written by
the Resolve form), by the alarm's own time (an alarm of Monday closed on Tuesday counts on Monday), and by
the class stored with it. The rate of a group is its false alarms over its alarms resolved with a
disposition; alarms still open, or resolved before dispositions existed, are in neither. The handover counts
by when the alarm was resolved instead: what the shift closed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from core.clock import DAY_MS
from core.dispositions import PERIODS, DispositionClass
from core.read.rows import query, scalar
from core.sqlite_lib import sqlite_utils

_FALSE = DispositionClass.FALSE.value
_BASE = "FROM alarm_dispositions d JOIN activities a ON a.event_id = d.event_id"
# An alarm's kind, as the handover names it: its violationName, else its violationType, else its eventType.
KIND_SQL = "COALESCE(a.violation_name, a.violation_type, a.event_type, '')"


class Grouping(StrEnum):
    PANEL = "panel"
    ORGANIZATION = "organization"
    KIND = "kind"


# (the key's SQL, its name's SQL and the join that gives the name)
_GROUPS: dict[Grouping, tuple[str, str, str]] = {
    Grouping.PANEL: ("a.resource_id", "p.name", "LEFT JOIN panels p ON p.resource_id = a.resource_id"),
    Grouping.ORGANIZATION: ("a.org_id", "o.name", "LEFT JOIN organizations o ON o.id = a.org_id"),
    Grouping.KIND: (KIND_SQL, KIND_SQL, ""),
}


@dataclass(frozen=True)
class Period:
    """One period's counts of a group."""

    days: int
    false_alarms: int
    resolved: int  # resolved with a disposition, false or not

    @property
    def rate(self) -> float | None:
        """False over resolved with a disposition; None when none was."""
        return self.false_alarms / self.resolved if self.resolved else None


@dataclass(frozen=True)
class GroupRates:
    """A panel's, organization's or kind's counts over each period (PERIODS, shortest first)."""

    key: str  # the panel's or organization's id as text, or the kind
    name: str | None
    periods: tuple[Period, ...]
    flagged: bool = False  # a panel at or over the threshold (`FalseAlarmsConfig`)
    recent_false: int | None = None  # given a threshold: its false alarms within the threshold's days

    def period(self, days: int) -> Period:
        return next(p for p in self.periods if p.days == days)


def _org_filter(org_id: int | None) -> tuple[str, list[int]]:
    return ("AND a.org_id = ?", [org_id]) if org_id is not None else ("", [])


def rates(
    db: sqlite_utils.Database,
    by: Grouping,
    now: int,
    *,
    org_id: int | None = None,
    periods: Sequence[int] = PERIODS,
    threshold: int | None = None,
    threshold_days: int = 30,
) -> list[GroupRates]:
    """Every group with an alarm resolved with a disposition in the longest period, most false alarms
    (longest period) first. With `threshold`, a panel with that many false alarms or more in the last
    `threshold_days` is flagged."""
    key, name, join = _GROUPS[by]
    days: list[int] = sorted({*periods, *([threshold_days] if threshold is not None else [])})
    sums: list[str] = []
    params: list[object] = []
    for n in days:
        sums.append(f"SUM(a.activity_time >= ? AND d.class = '{_FALSE}') AS f{n}")
        sums.append(f"SUM(a.activity_time >= ?) AS r{n}")
        params += [now - n * DAY_MS, now - n * DAY_MS]
    org, org_params = _org_filter(org_id)
    rows = query(
        db,
        f"SELECT {key} AS k, MAX({name}) AS name, {', '.join(sums)} {_BASE} {join}"
        f" WHERE a.activity_time >= ? AND a.activity_time < ? AND {key} IS NOT NULL {org}"
        f" GROUP BY {key} ORDER BY f{max(days)} DESC, r{max(days)} DESC, {key}",
        [*params, now - max(days) * DAY_MS, now, *org_params],
    )
    found: list[GroupRates] = []
    for r in rows:
        counts = tuple(Period(n, int(r[f"f{n}"] or 0), int(r[f"r{n}"] or 0)) for n in sorted(periods))
        recent = int(r[f"f{threshold_days}"] or 0) if threshold is not None else None
        over = recent is not None and by is Grouping.PANEL and recent >= (threshold or 0)
        found.append(GroupRates(str(r["k"]), r["name"], counts, over, recent))
    return found


def panel_false_alarms(db: sqlite_utils.Database, resource_id: int, now: int, days: int = 30) -> int:
    """How many alarms of the panel in the last `days` days were resolved as false (`/sam panel`)."""
    return int(
        scalar(
            db,
            f"SELECT count(*) {_BASE} WHERE a.resource_id = ? AND d.class = ? AND a.activity_time >= ?"
            " AND a.activity_time < ?",
            [resource_id, _FALSE, now - days * DAY_MS, now],
        )
    )


@dataclass(frozen=True)
class PanelFalseAlarms:
    resource_id: int
    name: str | None
    false_alarms: int


@dataclass(frozen=True)
class ShiftDispositions:
    """What a shift closed: alarms resolved in [since, until) per disposition class, and the panels with the
    most of them closed as false."""

    per_class: dict[str, int]  # DispositionClass value -> count; classes with none left out
    worst_panels: tuple[PanelFalseAlarms, ...]


WORST_SHOWN = 5


def shift_dispositions(
    db: sqlite_utils.Database, since: int, until: int, org_id: int | None = None, limit: int = WORST_SHOWN
) -> ShiftDispositions:
    org, org_params = _org_filter(org_id)
    window = f"WHERE d.at >= ? AND d.at < ? {org}"
    classes = query(
        db,
        f"SELECT d.class AS class, count(*) AS n {_BASE} {window} GROUP BY d.class",
        [since, until, *org_params],
    )
    order = [c.value for c in DispositionClass]
    per_class = {
        r["class"]: int(r["n"])
        for r in sorted(classes, key=lambda r: order.index(r["class"]) if r["class"] in order else len(order))
    }
    worst = query(
        db,
        "SELECT a.resource_id AS resource_id, MAX(p.name) AS name, count(*) AS false_alarms"
        f" {_BASE} LEFT JOIN panels p ON p.resource_id = a.resource_id"
        f" {window} AND d.class = ? AND a.resource_id IS NOT NULL"
        " GROUP BY a.resource_id ORDER BY false_alarms DESC, a.resource_id LIMIT ?",
        [since, until, *org_params, _FALSE, limit],
    )
    return ShiftDispositions(per_class, tuple(PanelFalseAlarms(**r) for r in worst))


@dataclass(frozen=True)
class AlarmDisposition:
    """What an alarm of a list (the dashboard's Alarms page, the CSV) was resolved as."""

    code: str
    label: str
    klass: str


def dispositions_of(db: sqlite_utils.Database, event_ids: Sequence[str]) -> dict[str, AlarmDisposition]:
    """The dispositions of these alarms (those resolved with one), by event id."""
    found: dict[str, AlarmDisposition] = {}
    ids = list(event_ids)
    for start in range(0, len(ids), 500):  # SQLite's variable limit
        chunk = ids[start : start + 500]
        rows = query(
            db,
            "SELECT event_id, code, label, class FROM alarm_dispositions"
            f" WHERE event_id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        for r in rows:
            found[str(r["event_id"])] = AlarmDisposition(str(r["code"]), str(r["label"]), str(r["class"]))
    return found
