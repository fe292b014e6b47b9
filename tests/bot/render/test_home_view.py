"""The App Home view within Slack's limits for a Home (100 blocks, 3000 characters a section) however long
the lists and texts, names shown as the cache holds them (masked stays masked, markup escaped), and its
digest equal for equal data (so an unchanged cache publishes nothing) and different otherwise."""

from __future__ import annotations

from dataclasses import replace
from zoneinfo import ZoneInfo

from bot.render.home import MAX_HOME_BLOCKS, home_view, view_hash
from core.alarms import Alarm
from core.read.freshness import Freshness
from core.read.home import HomeAlarm, HomeData, Scope
from core.read.incidents import IncidentSummary
from core.read.quiet import SILENCE, QuietWindow
from tests.support.bot import blocks_text

NOW = 1_790_000_000_000
UTC = ZoneInfo("UTC")


def data(count: int, name: str = "J*** D** <b>", stale: bool = False, quiet: int = 0) -> HomeData:
    alarms = tuple(
        HomeAlarm(Alarm(f"EV-{i}", 777, 1001, NOW - i, f"{name} - {'Door ' * 400}", "violation", name * 50,
                        "alarm", name), None, "C_ALARMS")
        for i in range(count)
    )  # fmt: skip
    windows = tuple(
        QuietWindow(
            i, SILENCE, 777, None, NOW, NOW + 60_000, "x" * 500, "U_X", NOW, None, None, None, None, name
        )
        for i in range(quiet)
    )
    scope = Scope(channels=frozenset({"C_ALARMS"}))
    return HomeData("U_TECH", scope, (), alarms, count * 3, alarms, count * 2, windows,
                    Freshness(NOW, (), stale, True), NOW)  # fmt: skip


def test_a_huge_home_stays_within_slacks_limits() -> None:
    view = home_view(data(60, quiet=40), "You are a technician: listed.", lambda _org: UTC, "http://dash")
    blocks = view.to_dict()["blocks"]
    assert len(blocks) <= MAX_HOME_BLOCKS
    for block in blocks:
        if block["type"] == "section":
            assert len(block["text"]["text"]) <= 3000
        if block["type"] == "actions":
            assert {e["action_id"] for e in block["elements"]} <= {"alarm_ack", "alarm_take", "alarm_resolve"}
    assert "… more" in blocks_text(blocks)


def test_names_stay_masked_and_markup_is_escaped() -> None:
    text = blocks_text(home_view(data(2), "role", lambda _org: UTC, "http://dash").to_dict()["blocks"])
    assert "J*** D** &lt;b&gt;" in text and "<b>" not in text
    assert "and 4 more" in text  # 6 in all, 2 shown: the rest in the dashboard
    assert "Live" in text and "<#C_ALARMS>" in text


def test_stale_data_is_red_and_the_digest_follows_the_content() -> None:
    live = home_view(data(3), "role", lambda _org: UTC, "http://dash")
    stale = home_view(data(3, stale=True), "role", lambda _org: UTC, "http://dash")
    assert ":red_circle: *Stale*" in blocks_text(stale.to_dict()["blocks"])
    assert view_hash(live) == view_hash(home_view(data(3), "role", lambda _org: UTC, "http://dash"))
    assert view_hash(live) != view_hash(stale)
    viewer = home_view(data(3), "role", lambda _org: UTC, "http://dash", can_act=False)
    assert not [b for b in viewer.to_dict()["blocks"] if b["type"] == "actions"]


def incident(i: int) -> IncidentSummary:
    kinds = ("tamper", "camera offline")
    return IncidentSummary(i, 777, "Depot <b>", 1001, NOW - 60_000, NOW, 3, kinds, "open", (f"EV-{i}",),
                           "C_ALARMS", f"{i}.1")  # fmt: skip


def test_site_incidents_come_first_as_lines_with_their_kinds_and_channel() -> None:
    incidents = tuple(incident(i) for i in range(200))
    view = home_view(
        replace(data(3), incidents=incidents), "You are a technician.", lambda _org: UTC, "http://dash"
    )
    blocks = view.to_dict()["blocks"]
    assert len(blocks) <= MAX_HOME_BLOCKS
    text = blocks_text(blocks)
    assert (
        "Site incidents* (200)" in text
        and "Incident on Depot &lt;b&gt; (777)*: tamper, camera offline" in text
    )
    assert (
        "<#C_ALARMS>" in text and "… and" in text
    )  # long lists are cut with a count, within 3000 characters
    assert text.index("Site incidents") < text.index("Open and acknowledged alarms")


def test_each_alarm_is_shown_in_its_organizations_zone_as_on_its_card() -> None:
    zones = {1001: ZoneInfo("Europe/Berlin")}
    view = home_view(data(1), "role", lambda org: zones.get(org, UTC) if org else UTC, "http://dash")
    text = blocks_text(view.to_dict()["blocks"])
    assert "2026-09-21 16:13 Europe/Berlin" in text  # the alarm of organization 1001 (NOW is 14:13 UTC)
    assert "data as of 2026-09-21 14:13 UTC" in text  # the freshness: the default zone
