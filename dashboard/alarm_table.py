"""The Alarms page's table as plain HTML for `st.html`, and the orders it can be sorted in.

Not `st.dataframe`: its grid (about 1.2 MB of JavaScript, loaded when the first one appears, then drawn on a
canvas) took 0.7-1.2 s of a tab's opening on the development machine, more than the warm goal allows
(docs/dashboard-speed.md). A table of at most 500 rows is ordinary HTML the browser lays out at once. The
grid stays one toggle away (`?grid=1`).

Every cell is text from the cache (descriptions, panel names: what a panel's installer typed), so each is
HTML-escaped here; `st.html` also sanitizes what it is given, which is a second guard, not the first.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from datetime import tzinfo

from core import alarms, read, timefmt
from core.contrast import ink_on
from core.priorities import Priority
from dashboard import ui

LABEL = "Alarm list"  # the table's aria-label: how tests and the bench find it among the page's HTML

# Sort orders of the shown rows, by their URL value (`?sort=`); the default stays out of the URL.
SORTS: dict[str, str] = {"newest": "Newest first", "severity": "Most severe first", "panel": "By panel"}
DEFAULT_SORT = "newest"


def _newest(rows: list[read.AlarmRow]) -> list[read.AlarmRow]:
    return sorted(rows, key=lambda r: -(r.activity_time or 0))


def _severity(rows: list[read.AlarmRow]) -> list[read.AlarmRow]:
    # Stable over the newest-first order: within one severity the newest come first.
    return sorted(_newest(rows), key=lambda r: alarms.severity_rank(r.violation_type))


def _panel(rows: list[read.AlarmRow]) -> list[read.AlarmRow]:
    return sorted(_newest(rows), key=lambda r: ((r.panel_name or "").casefold(), r.resource_id or 0))


_ORDERS: dict[str, Callable[[list[read.AlarmRow]], list[read.AlarmRow]]] = {
    "newest": _newest,
    "severity": _severity,
    "panel": _panel,
}


def sort_rows(rows: list[read.AlarmRow], order: str) -> list[read.AlarmRow]:
    return _ORDERS.get(order, _newest)(rows)


# Priority and State first: what a supervisor reads a row for. The Type is the violation's kind (its
# violationType); the event type is not a column: it is "violation" on every alarm. The time's zone is named
# once, in its header.
HEADERS = (
    "Priority",
    "State",
    "Held by",
    "Time",
    "Type",
    "Violation",
    "Panel",
    "Panel id",
    "Description",
    "Org",
)
KEYHOLDERS = "Keyholders"  # the column of each alarm's keyholder line (docs/keyholders.md), last
# How many rows the table opens with (views/alarms.py): 500 rows of HTML (~170 KB, 6,000 cells) kept a warm
# tab's main thread busy for most of a second on the development machine, 100 about a fifth of it, and 100 are
# more than the 560 px box shows (docs/dashboard-speed.md). Every cell is one line (the box scrolls sideways),
# so a row is about 23 px and the box shows 20 or more. The toggle below the table shows every row.
FIRST_ROWS = 100
EVERY_ROW = "Show every row"
MAX_HEIGHT = 560  # px, as the grid had: the page below the table stays in reach
# One style sheet, not a style on every cell: 500 rows of inline styles made a 475 KB message for the browser
# to parse and sanitize. The class name is ours alone, so the rules touch nothing else on the page.
_CSS = f"""<style>
.samops-alarms {{max-height:{MAX_HEIGHT}px;overflow:auto;border:1px solid #e6e9ef;border-radius:6px}}
.samops-alarms:focus-visible {{outline:2px solid #1c83e1;outline-offset:2px}}
.samops-alarms table {{width:100%;border-collapse:collapse;font-size:0.8rem;line-height:1.3;
  font-variant-numeric:tabular-nums}}
.samops-alarms th {{position:sticky;top:0;background:#f0f2f6;text-align:left;font-weight:600;padding:6px 8px;
  border-bottom:1px solid #d5d8de;white-space:nowrap}}
.samops-alarms td {{padding:2px 8px;border-bottom:1px solid #eceef1;vertical-align:top;white-space:nowrap}}
.samops-alarms td:nth-child(5) span {{display:inline-block;padding:0 8px;border-radius:10px}}
</style>"""


def _type_cell(violation_type: str | None) -> str:
    if not violation_type:
        return "<td></td>"
    colour = ui.colour_of(violation_type)  # ours, from a fixed table: never the cache's text
    style = f"background:{colour};color:{ink_on(colour)}"  # the ink that reads on it at 4.5:1 or better
    return f'<td><span style="{style}">{html.escape(violation_type)}</span></td>'


def _time_cell(epoch_ms: int | None, tz: tzinfo) -> str:
    """The time as people read it in `tz`, and as machines do (ISO 8601 in `datetime`): for tests, scrapers
    and screen readers alike."""
    if epoch_ms is None:
        return "<td></td>"
    shown = html.escape(timefmt.wall(epoch_ms, tz, seconds=True))  # the zone is named in the header
    return f'<td><time datetime="{html.escape(timefmt.iso(epoch_ms, tz))}">{shown}</time></td>'


DISPOSITION = "Disposition"


def label_of(closed: read.AlarmDisposition | None) -> str:
    """The Disposition cell: the label the alarm was resolved as, empty while it has none."""
    return closed.label if closed is not None else ""


def _cells(*texts: object) -> str:
    return "".join(f"<td>{html.escape(str(text))}</td>" for text in texts)


def alarms_html(
    rows: list[read.AlarmRow],
    tz: tzinfo,
    zone_label: str,
    states: Mapping[str, read.Standing] | None = None,
    keyholders: Mapping[str, str] | None = None,
    closed: Mapping[str, read.AlarmDisposition] | None = None,
    held: Mapping[str, read.QuietWindow] | None = None,
    priorities: Mapping[str, Priority] | None = None,
    marked: Mapping[str, read.QuietWindow] | None = None,
) -> str:
    """The rows as one scrollable HTML table, times in `tz` (named in the Time header), each alarm's
    lifecycle state from `states` (by event id), newest first unless the rows come sorted otherwise; with
    `keyholders` (each alarm's keyholder line by event id, core/keyholders.py), a Keyholders column; with
    `closed`, a last column: what each alarm was resolved as (core/dispositions.py); the State of an alarm a
    silence or maintenance window held back (`held`) says why, and that of a life-safety alarm posted during
    maintenance (`marked`) says so after its state; each alarm's priority from `priorities`."""
    states, held, marked, priorities = states or {}, held or {}, marked or {}, priorities or {}
    extra = [
        *([KEYHOLDERS] if keyholders is not None else []),
        *([DISPOSITION] if closed is not None else []),
    ]
    heads = [*HEADERS[:3], f"Time ({zone_label})", *HEADERS[4:], *extra]
    head = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in heads)
    body = "".join(
        "<tr>"
        + _cells(
            priority.label if (priority := priorities.get(r.event_id)) else "",
            *ui.state_cells(
                states.get(r.event_id),
                ui.held_words(held, r.event_id, tz),
                ui.during_words(marked, r.event_id, tz),
            ),
        )
        + _time_cell(r.activity_time, tz)
        + _type_cell(r.violation_type)
        + _cells(
            r.violation_name or "",
            r.panel_name or "",
            "" if r.resource_id is None else r.resource_id,
            r.description or "",
            "" if r.org_id is None else r.org_id,
        )
        + (_cells(keyholders.get(r.event_id, "")) if keyholders is not None else "")
        + (_cells(label_of(closed.get(r.event_id))) if closed is not None else "")
        + "</tr>"
        for r in rows
    )
    return (
        # A scrolling region takes keyboard focus (tabindex), so it scrolls with the arrow keys too.
        f'{_CSS}<div class="samops-alarms" tabindex="0" role="region" aria-label="{LABEL}, scrollable">'
        f'<table aria-label="{LABEL}">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )
