"""Read the Alarms page's HTML table (dashboard/alarm_table.py) back into a DataFrame, as a browser would see
it: cell text unescaped, the Time column from each `<time datetime>` (ISO 8601 with the viewer's offset); and
the links of a page's HTML (the Overview's figures, dashboard/glance.py)."""

from __future__ import annotations

from html.parser import HTMLParser

import pandas as pd
from streamlit.testing.v1 import AppTest

from dashboard.alarm_table import LABEL


class _Table(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.headers: list[str] = []
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None
        self.times: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table" and found.get("aria-label") == LABEL:
            self.inside = True
        elif not self.inside:
            return
        elif tag == "tr":
            self.rows.append([])
            self.times.append(None)
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "time":
            self.times[-1] = found.get("datetime")

    def handle_endtag(self, tag: str) -> None:
        if not self.inside:
            return
        if tag == "table":
            self.inside = False
        elif tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def read_alarms(body: str) -> pd.DataFrame | None:
    """The table's rows (None when `body` holds no alarms table). "Time" holds UTC instants; the header's
    zone name is in `frame.attrs["time_header"]`."""
    parser = _Table()
    parser.feed(body)
    if not parser.rows:
        return None
    header, *rows = parser.rows
    at = next(i for i, name in enumerate(header) if name.startswith("Time"))
    columns = [*header[:at], "Time", *header[at + 1 :]]
    frame = pd.DataFrame(rows, columns=columns)
    frame["Time"] = pd.to_datetime(pd.Series(parser.times[1:], dtype="string"), utc=True)
    for ints in ("Panel id", "Org"):
        frame[ints] = pd.array([int(v) if v else None for v in frame[ints]], dtype="Int64")
    frame.attrs["time_header"] = header[at]
    frame.attrs["shown_times"] = [row[at] for row in rows]
    return frame


def alarms_table(at: AppTest) -> pd.DataFrame | None:
    """The Alarms page's table as AppTest sees it, or None when the page shows none."""
    for element in at.get("html"):
        found = read_alarms(element.proto.body)
        if found is not None:
            return found
    return None


class _Links(HTMLParser):
    """Every link of the page's HTML: (its aria-label or text, its href, its text)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, str]] = []
        self._open: tuple[str, str] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            found = dict(attrs)
            self._open, self._text = (found.get("aria-label") or "", found.get("href") or ""), []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._open is not None:
            label, href = self._open
            text = "".join(self._text)
            self.links.append((label or text, href, text))
            self._open = None


def links(at: AppTest) -> list[tuple[str, str, str]]:
    """Every link in the page's HTML elements: (its aria-label, else its text; its href; its text)."""
    parser = _Links()
    for element in at.get("html"):
        parser.feed(element.proto.body)
    return parser.links


def linked_figures(at: AppTest) -> dict[str, int]:
    """The page's figures that are links (the Overview's, dashboard/glance.py), by their aria-label."""
    return {label: int(text) for label, _, text in links(at) if text.isdigit() and label}
