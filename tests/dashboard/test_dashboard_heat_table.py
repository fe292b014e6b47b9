"""The Alarms page's weekday x hour heat map, an HTML table (no Vega: docs/dashboard-speed.md)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from core import read
from core.contrast import READABLE, contrast
from dashboard import charts


class Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str]] = []
        self.text: list[str] = []
        self._in_cell = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "td":
            self.cells.append({k: v or "" for k, v in attrs})
            self.text.append("")
            self._in_cell = True

    def handle_endtag(self, tag: str) -> None:
        self._in_cell = self._in_cell and tag != "td"

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.text[-1] += data


def background(cell: dict[str, str]) -> str:
    found = re.search(r"background:(#[0-9a-f]{6})", cell["style"])
    assert found, cell
    return found.group(1)


def test_every_hour_of_the_week_is_a_cell_holding_its_count() -> None:
    counts = [
        read.WeekdayHourCount(weekday=0, hour=0, count=1),
        read.WeekdayHourCount(weekday=2, hour=13, count=8),
        read.WeekdayHourCount(weekday=6, hour=23, count=4),
    ]
    parsed = Cells()
    parsed.feed(charts.weekday_hour_table(counts))
    assert len(parsed.cells) == 7 * 24
    by_title = {
        cell["title"]: (background(cell), text) for cell, text in zip(parsed.cells, parsed.text, strict=True)
    }
    assert by_title["Mon 00:00 UTC: 1 alarm"][1] == "1"
    assert by_title["Wed 13:00 UTC: 8 alarms"] == ("#b30000", "8")  # the most: the darkest
    assert by_title["Sun 23:00 UTC: 4 alarms"][1] == "4"
    assert by_title["Tue 05:00 UTC: 0 alarms"] == (charts.QUIET, "")  # quiet hours grey and blank


def test_the_colour_scale_grows_with_the_count() -> None:
    shades = [charts.heat_colour(n, 10) for n in range(11)]
    assert shades[0] == charts.QUIET and shades[10] == "#b30000" and shades[5] == "#fc8d59"
    reds = [int(s[1:3], 16) + int(s[3:5], 16) + int(s[5:7], 16) for s in shades[1:]]
    assert reds == sorted(reds, reverse=True)  # darker with every alarm more


def test_no_alarms_at_all_draws_a_grey_week() -> None:
    parsed = Cells()
    parsed.feed(charts.weekday_hour_table([]))
    assert {background(cell) for cell in parsed.cells} == {charts.QUIET}


def test_the_cells_name_the_zone_they_are_in() -> None:
    table = charts.weekday_hour_table([read.WeekdayHourCount(weekday=1, hour=9, count=3)], "America/New_York")
    assert 'title="Tue 09:00 America/New_York: 3 alarms"' in table
    assert 'aria-label="Alarms by weekday and hour of day (America/New_York)"' in table and "UTC" not in table


def test_every_cell_reads_at_wcag_contrast_and_every_header_has_a_name() -> None:
    counts = [read.WeekdayHourCount(weekday=0, hour=h, count=h) for h in range(24)]  # every shade
    parsed = Cells()
    table = charts.weekday_hour_table(counts)
    parsed.feed(table)
    for cell in parsed.cells:
        ink = re.search(r";color:(#[0-9a-f]{6})", cell["style"])
        assert ink and contrast(ink.group(1), background(cell)) >= READABLE, cell
    assert "<th></th>" not in table and '<th style="width:3em"></th>' not in table
    assert ">Day</span></th>" in table  # the weekday column's header, for screen readers
