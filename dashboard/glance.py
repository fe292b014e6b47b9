"""The Overview's first screen as HTML for `st.html`: open alarms by priority, the oldest one not
acknowledged, and tiles, every figure a link to the filtered page behind it
(the pages take these URL filters).

HTML rather than `st.metric`: a metric cannot be a link, and its label is cut with an ellipsis when the tile
is narrow (the tiles here wrap instead). Every text from the cache (a panel's name) is HTML-escaped here.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import tzinfo
from urllib.parse import urlencode

from core import read, timefmt
from core.text import counted

LABEL = "Open alarms by priority"  # the table's aria-label: how tests find it
TILES = "At a glance"  # the tiles' aria-label
LINK = "#0b4f9c"  # reads at 7:1 on white and on the header grey (axe: color-contrast)

CSS = f"""<style>
.samops-glance table {{border-collapse:collapse;font-variant-numeric:tabular-nums;margin-bottom:0.5rem}}
.samops-glance th, .samops-glance td {{padding:4px 14px 4px 0;text-align:left;white-space:nowrap;
  border-bottom:1px solid #eceef1}}
.samops-glance thead th {{font-weight:600;border-bottom:1px solid #d5d8de}}
.samops-glance td {{text-align:right;font-size:1.15rem}}
.samops-glance td:first-child {{text-align:left;white-space:normal;font-size:1rem}}
.samops-glance a {{color:{LINK}}}
.samops-glance .zero {{color:#5c5f66}}
.samops-glance .oldest {{margin:0.25rem 0 0.75rem 0}}
.samops-tiles {{display:flex;flex-wrap:wrap;gap:10px;margin:0 !important;padding:0 !important;
  list-style:none}}
.samops-tiles li {{margin:0 !important;border:1px solid #d5d8de;border-radius:8px;padding:8px 12px;
  min-width:9rem;flex:1 1 9rem}}
.samops-tiles .label {{font-size:0.85rem;color:#31333f}}
.samops-tiles .figure {{font-size:1.7rem;font-weight:600;line-height:1.3}}
.samops-tiles .figure a {{color:{LINK};text-decoration:none}}
.samops-tiles .figure a:hover, .samops-tiles .figure a:focus-visible {{text-decoration:underline}}
.samops-tiles .note {{font-size:0.75rem;color:#5c5f66}}
</style>"""


def link(page: str, **params: object) -> str:
    """A page's URL with its filters (None left out), as the page reads them (dashboard/filters.py)."""
    query = urlencode({k: v for k, v in params.items() if v is not None})
    return f"/{page}" + (f"?{query}" if query else "")


def _figure(value: int, href: str, what: str) -> str:
    """A count as a link; `what` names it for a screen reader (the cell alone says only "3")."""
    zero = ' class="zero"' if value == 0 else ""
    return f'<a href="{html.escape(href)}" aria-label="{html.escape(what)}"{zero}>{value}</a>'


def priorities_html(found: read.Glance, tz: tzinfo, now: int) -> str:
    """The table of open alarms by priority, with the totals, and the oldest alarm not acknowledged."""
    rows: list[str] = []
    for counts in (*found.by_priority, found.totals):
        key = None if counts is found.totals else counts.priority.label
        name = "All" if key is None else key
        cells = (
            (counts.open, link("handling", priority=key, state="open"), f"{name}: open, not acknowledged"),
            (counts.overdue, link("handling", priority=key, overdue=1), f"{name}: overdue"),
            (
                counts.acknowledged,
                link("handling", priority=key, state="acknowledged"),
                f"{name}: acknowledged, not resolved",
            ),
        )
        body = "".join(f"<td>{_figure(*c)}</td>" for c in cells)
        rows.append(f'<tr><th scope="row">{name}</th>{body}</tr>')
    head = "".join(
        f'<th scope="col">{h}</th>'
        for h in ("Priority", "Not acknowledged", "Overdue", "Acknowledged, not resolved")
    )
    table = (
        f'<table aria-label="{LABEL}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )
    return f'{CSS}<div class="samops-glance">{table}{_oldest(found.oldest_open, tz, now)}</div>'


def _oldest(alarm: read.OpenAlarm | None, tz: tzinfo, now: int) -> str:
    if alarm is None:
        return '<p class="oldest">No alarm is waiting to be acknowledged.</p>'
    panel = f"{alarm.panel_name or 'panel'} ({alarm.resource_id})" if alarm.resource_id else "an alarm"
    age = max(0, now - alarm.opened_at) // 60_000
    waited = f"{age // 60} h {age % 60} min" if age >= 60 else counted(age, "minute")
    priority = f"{alarm.priority.label} " if alarm.priority else ""
    href = link("alarms", event=alarm.event_id, range="all")
    return (
        '<p class="oldest">Oldest not acknowledged: '
        f'<a href="{html.escape(href)}">{priority}alarm on {html.escape(panel)}</a>'
        f", since {html.escape(timefmt.wall(alarm.opened_at, tz))} ({waited} ago)</p>"
    )


@dataclass(frozen=True)
class Tile:
    label: str
    value: int | None  # None: nothing to count (the tile says why in `note`)
    href: str | None  # None: no page lists what it counts
    note: str = ""


def tiles_html(tiles: list[Tile]) -> str:
    items = []
    for t in tiles:
        if t.value is None or t.href is None:
            figure = "—" if t.value is None else str(t.value)
        else:
            figure = _figure(t.value, t.href, f"{t.label}: {t.value}")
        note = f'<div class="note">{html.escape(t.note)}</div>' if t.note else ""
        label = f'<div class="label">{html.escape(t.label)}</div>'
        items.append(f'<li>{label}<div class="figure">{figure}</div>{note}</li>')
    return f'{CSS}<ul class="samops-tiles" aria-label="{TILES}">{"".join(items)}</ul>'
