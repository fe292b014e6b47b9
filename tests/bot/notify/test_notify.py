"""The notifier in-process against a real cache file and the Slack stand-in: routing, exactly once,
first-start summary, storm grouping, 429s, console mode, silences."""

from __future__ import annotations

import io
import logging
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from slack_sdk import WebClient

from bot.notify.delivery import ConsoleDelivery, SlackDelivery
from bot.notify.service import Notifier
from core.cache import outbox
from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.config import parse_notify
from core.notify.source import CacheSource
from core.views import AlarmView, StormView
from tests.support.slack_standin import SlackStandIn

PANELS = {101: (1001, "Warehouse"), 102: (1001, "Office"), 201: (1002, "Harbor gate")}
_seq = iter(range(1, 1_000_000))


def now_ms() -> int:
    return int(time.time() * 1000)


def add_alarms(db: Any, rid: int, count: int = 1, kind: str = "alarm", at: int | None = None) -> list[str]:
    """Activities as the sync would write them; returns their eventIds."""
    org = PANELS[rid][0]
    at = at or now_ms()
    rows = []
    for i in range(count):
        n = next(_seq)
        event_type = "event" if kind == "event" else "violation"
        description = f"{kind} on {PANELS[rid][1]} - Door {n}"
        violation = None if kind == "event" else kind
        name = f"{kind.title()} {n % 3}"
        rows.append(
            (f"EV-{rid}-{n:06d}", rid, org, at + i, description, event_type, name, violation, 2, 1, 1)
        )
    with write_transaction(db):
        upsert_activities(db, "activities", rows)
    return [r[0] for r in rows]


@pytest.fixture
def db(tmp_path: Path) -> Any:
    cache = open_cache(tmp_path / "cache.db", check_same_thread=False)
    with write_transaction(cache):
        panels = [{"resource_id": r, "org_id": o, "name": n} for r, (o, n) in PANELS.items()]
        upsert_dicts(cache, "panels", panels, "resource_id")
    return cache


def notifier(db: Any, slack: SlackStandIn | None, **config: Any) -> Notifier:
    cfg = parse_notify({"default_channel": "C_ALL", **config})
    if slack is None:
        delivery: Any = ConsoleDelivery(io.StringIO())
    else:
        delivery = SlackDelivery(
            WebClient(token="xoxb-test", base_url=slack.api_url), cfg.storm.posts_per_second
        )
    n = Notifier(db, cfg, delivery, CacheSource(), "http://dash.local")
    n.start()
    return n


def drain(n: Notifier, timeout: float = 20.0) -> None:
    """Run cycles until nothing is left to deliver."""
    deadline = time.monotonic() + timeout
    while True:
        wait = n.cycle()
        if not n._has_work():
            return
        assert time.monotonic() < deadline, "the notifier did not finish delivering"
        time.sleep(min(max(wait, 0.01), 0.2))


def posted_events(slack: SlackStandIn) -> list[tuple[str, str]]:
    """(channel, eventId) of every alarm card posted, read from the Acknowledge button."""
    out = []
    for call in slack.calls_to("chat.postMessage"):
        for attachment in call.params.get("attachments") or []:
            for block in attachment["blocks"]:
                for element in block.get("elements", []):
                    if element.get("action_id") == "alarm_ack":
                        out.append((call.params["channel"], element["value"]))
    return out


def test_routing_posts_each_alarm_once_in_its_channel(db: Any) -> None:
    routes = [
        {"channel": "C_FIRE", "violation_types": ["warning"]},
        {"channel": "C_ORG2", "org": 1002},
        {"channel": "C_OFFICE", "panels": [102]},
    ]
    with SlackStandIn() as slack:
        n = notifier(db, slack, routes=routes, storm={"posts_per_second": 50})
        warning = add_alarms(db, 101, kind="warning")
        org2 = add_alarms(db, 201, 2)
        office = add_alarms(db, 102)
        other = add_alarms(db, 101)
        add_alarms(db, 101, kind="event")  # not an alarm: never posted
        drain(n)
        drain(n)  # a second pass finds nothing new
        got = posted_events(slack)
        assert sorted(got) == sorted(
            [("C_FIRE", warning[0]), ("C_ORG2", org2[0]), ("C_ORG2", org2[1]), ("C_OFFICE", office[0]),
             ("C_ALL", other[0])]
        )  # fmt: skip
        card = next(c for c in slack.calls_to("chat.postMessage") if c.params["channel"] == "C_OFFICE")
        assert card.params["attachments"][0]["color"] == "#D0021B"
        text = str(card.params["attachments"][0]["blocks"])
        assert "Office (102)" in text and "Door" in text and "http://dash.local/alarms?panel=102" in text
        channel, state, ts = outbox.entry(db, office[0]) or ("", "", None)
        assert (channel, state) == ("C_OFFICE", "posted") and ts


def test_alarms_from_before_the_first_start_are_summarized_not_replayed(db: Any) -> None:
    old = add_alarms(db, 101, 5, at=now_ms() - 3_600_000)
    with SlackStandIn() as slack:
        n = notifier(db, slack, storm={"posts_per_second": 50})
        new = add_alarms(db, 102)
        drain(n)
        assert [e for _, e in posted_events(slack)] == new
        summaries = [c for c in slack.calls_to("chat.postMessage") if not c.params.get("attachments")]
        assert len(summaries) == 1 and "5 alarms" in summaries[0].params["text"]
        assert all(outbox.entry(db, e) is None for e in old)
        # A restart is not a first start: no second summary.
        again = notifier(db, slack, storm={"posts_per_second": 50})
        drain(again)
        assert len([c for c in slack.calls_to("chat.postMessage") if not c.params.get("attachments")]) == 1


def test_a_storm_is_grouped_per_panel_paced_and_every_alarm_counted(db: Any) -> None:
    with SlackStandIn() as slack:
        n = notifier(
            db,
            slack,
            storm={"threshold": 3, "posts_per_second": 20, "details_per_reply": 40, "behind_after": 1},
        )
        ids = add_alarms(db, 101, 120) + add_alarms(db, 102, 30)
        drain(n)
        states = Counter(outbox.entry(db, e)[1] for e in ids)  # type: ignore[index]
        assert states == {"posted": 3, "grouped": 147}
        cards = outbox.cards(db, "C_ALL")
        assert {c.resource_id for c in cards} == {101, 102}
        assert sum(outbox.card_counts(db, c.ts).count for c in cards) == 147
        replies = [c for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts")]
        assert {r.params["thread_ts"] for r in replies} == {c.ts for c in cards}
        assert all(r.params.get("reply_broadcast") in (None, False, "false", "0") for r in replies)
        listed = " ".join(str(r.params["blocks"]) for r in replies)
        grouped = [e for e in ids if outbox.entry(db, e)[1] == "grouped"]  # type: ignore[index]
        assert all(e in listed for e in grouped)
        behind = [c for c in slack.calls_to("chat.postMessage") if "is behind" in c.params["text"]]
        assert len(behind) == 1  # told once, not once per pass
        # More alarms within the window land in the same card, which is edited in place.
        more = add_alarms(db, 101, 5)
        drain(n)
        card = next(c for c in outbox.cards(db, "C_ALL") if c.resource_id == 101)
        assert {outbox.entry(db, e)[2] for e in more} == {card.ts}  # type: ignore[index]
        updates = [u for u in slack.calls_to("chat.update") if u.params["ts"] == card.ts]
        assert updates and f"{outbox.card_counts(db, card.ts).count} alarms" in updates[-1].params["text"]


def test_429_is_honoured_and_nothing_is_posted_twice(db: Any) -> None:
    with SlackStandIn() as slack:
        n = notifier(db, slack, storm={"posts_per_second": 50})
        slack.throttle("chat.postMessage", times=2, retry_after=1)
        ids = add_alarms(db, 101, 3)
        started = time.monotonic()
        drain(n)
        assert sorted(e for _, e in posted_events(slack)) == sorted(ids)
        throttled = [c for c in slack.calls if c.status == 429]
        assert len(throttled) == 2
        first_ok = min(c.at for c in slack.calls_to("chat.postMessage"))
        assert first_ok - throttled[0].at >= 0.9  # waited for Retry-After before trying again
        assert time.monotonic() - started >= 0.9


def test_console_mode_prints_cards_and_records_them(db: Any) -> None:
    n = notifier(db, None)
    ids = add_alarms(db, 102, 2)
    drain(n)
    printed = n.delivery.out.getvalue()  # type: ignore[attr-defined]
    assert "Office (102)" in printed and "[Acknowledge]" in printed
    assert all(outbox.entry(db, e) == ("C_ALL", "console", None) for e in ids)


def test_a_silenced_panel_is_recorded_but_not_posted(db: Any) -> None:
    with SlackStandIn() as slack:
        n = notifier(db, slack, storm={"posts_per_second": 50})
        with write_transaction(db):
            outbox.silence_panel(db, 101, now_ms() + 60_000, "U1")
        quiet, loud = add_alarms(db, 101), add_alarms(db, 102)
        drain(n)
        assert [e for _, e in posted_events(slack)] == loud
        assert outbox.entry(db, quiet[0])[1] == "silenced"  # type: ignore[index]


def test_slack_outage_keeps_alarms_pending_until_it_is_back(db: Any) -> None:
    with SlackStandIn(channels={"C_OTHER"}) as slack:
        n = notifier(db, slack, storm={"posts_per_second": 50})
        ids = add_alarms(db, 101, 2)
        n.cycle()
        assert [outbox.entry(db, e)[1] for e in ids] == ["pending", "pending"]  # type: ignore[index]
        slack.channels = None  # the channel is reachable again
        slack.clear()  # forget the refused attempt
        n._backoff.clear()
        drain(n)
        assert sorted(e for _, e in posted_events(slack)) == sorted(ids)


def test_run_stops_on_the_event(db: Any, tmp_path: Path) -> None:
    n = notifier(db, None)
    stop = threading.Event()
    thread = threading.Thread(target=n.run, args=(0.05, stop))
    thread.start()
    add_alarms(open_cache(tmp_path / "cache.db"), 101)  # another connection, as the sync would be
    time.sleep(0.3)
    stop.set()
    thread.join(5)
    assert not thread.is_alive()
    assert outbox.counts_by_state(db) == {"console": 1}


def test_the_example_config_parses_and_routes_first_match() -> None:
    from core.cache.outbox import Alarm
    from core.config import load_config

    config = load_config(Path(__file__).resolve().parents[3] / "samops.example.toml", required=True).notify
    assert config.storm.posts_per_second == 1.0 and config.source == "service"
    routed = parse_notify(
        {
            "default_channel": "C_ALL",
            "routes": [
                {"channel": "C_A", "org": 1, "violation_types": ["alarm"]},
                {"channel": "C_B", "org": 1},
            ],
        }
    )
    alarm = Alarm("E1", 5, 1, 0, None, "violation", "Fire", "alarm", None)
    assert routed.channel_for(alarm) == "C_A"
    assert routed.channel_for(Alarm("E2", 5, 1, 0, None, "violation", "Low", "warning", None)) == "C_B"
    assert routed.channel_for(Alarm("E3", 5, 2, 0, None, "violation", "Fire", "alarm", None)) == "C_ALL"


def test_health_notices_once_when_the_service_fails_and_once_when_it_recovers(
    db: Any, simulator: Any
) -> None:
    from core.client import SamClient
    from core.notify.source import ServiceSource
    from core.settings import Settings

    dead = SamClient(Settings(base_url="http://127.0.0.1:9/api", max_retries=0, timeout=1, connect_timeout=1))
    alive = SamClient(Settings(base_url=simulator.base_url, max_retries=0))
    with SlackStandIn() as slack:
        cfg = parse_notify({"default_channel": "C_ALL", "health": {"channel": "C_OPS", "after": 0.3}})
        web = WebClient(token="xoxb-test", base_url=slack.api_url)
        source = ServiceSource(dead)
        n = Notifier(db, cfg, SlackDelivery(web, 50), source, "http://dash.local")
        n.start()

        def ops() -> list[str]:
            return [
                c.params["text"] for c in slack.calls_to("chat.postMessage") if c.params["channel"] == "C_OPS"
            ]

        n.cycle()
        assert ops() == []  # failing, but not for long enough yet
        time.sleep(0.4)
        n.cycle()
        n.cycle()
        assert len(ops()) == 1 and "service has been failing" in ops()[0]
        source.client = alive
        n.cycle()
        n.cycle()
        assert len(ops()) == 2 and "recovered" in ops()[1]


def test_health_notice_when_the_sync_keeps_failing(db: Any) -> None:
    long_ago = now_ms() - 3_600_000
    with write_transaction(db):
        upsert_dicts(db, "sync_state", [{"table_name": "activities", "last_success": long_ago,
                                         "last_error": "TransportError: refused", "last_error_at": now_ms()}],
                     "table_name")  # fmt: skip
    with SlackStandIn() as slack:
        n = notifier(db, slack, health={"channel": "C_OPS", "after": 60}, storm={"posts_per_second": 50})
        n.cycle()
        n.cycle()
        notices = [c for c in slack.calls_to("chat.postMessage") if c.params["channel"] == "C_OPS"]
        assert len(notices) == 1 and "TransportError: refused" in notices[0].params["text"]


@pytest.mark.parametrize("argv", [["--interval", "0"], ["--bogus"], ["--source", "nowhere"]])
def test_bad_command_lines_are_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli.notify import main

    assert main(argv) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_cards_show_the_organization_time_zone_and_stay_within_slack_limits() -> None:
    from zoneinfo import ZoneInfo

    from bot.render import alarms as render
    from core.cache.outbox import Alarm, CardCounts

    cfg = parse_notify({"timezones": {"1001": "Asia/Tokyo"}})
    at = 1_700_000_000_000  # 2023-11-14 22:13:20 UTC
    alarm = Alarm(
        "EV-1", 101, 1001, at, "Fire alarm on Warehouse - Kitchen", "violation", "Fire alarm", "alarm", "W"
    )
    card = render.alarm_card(AlarmView(alarm, cfg.zone_for(1001), at, "http://d/"))
    text = card.console()
    assert (
        "2023-11-15 07:13:20 Asia/Tokyo" in text and "Kitchen" in text and "http://d/alarms?panel=101" in text
    )
    assert cfg.zone_for(1002) == ZoneInfo("UTC")
    counts = CardCounts(42, at, at + 60_000, ("Fire alarm",))
    storm = render.storm_card(StormView(alarm, counts, ZoneInfo("UTC"), at, "http://d"))
    assert "42 alarms" in storm.text and "Fire alarm" in storm.console()
    details = render.storm_details([alarm] * 400, ZoneInfo("UTC"))
    assert len(details.blocks) <= 50 and all(len(b["text"]["text"]) <= 3000 for b in details.blocks)
    assert sum(b["text"]["text"].count("EV-1") for b in details.blocks) == 400


def test_a_cache_locked_by_the_sync_is_waited_out(
    db: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    n = notifier(db, None)
    caplog.set_level(logging.INFO, logger="bot.notify")
    db.execute("PRAGMA busy_timeout = 50")  # the sync holds the lock longer than we wait
    sync = open_cache(tmp_path / "cache.db", check_same_thread=False)
    with write_transaction(sync):
        ids = add_alarms_in_transaction(sync, 101)
        stop = threading.Event()
        thread = threading.Thread(target=n.run, args=(0.05, stop))
        thread.start()
        time.sleep(0.5)
    try:
        deadline = time.monotonic() + 10
        while outbox.counts_by_state(db).get("console") != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join(5)
    logged = [record.getMessage() for record in caplog.records]
    assert outbox.entry(db, ids[0]) == ("C_ALL", "console", None)
    assert any("busy" in line for line in logged) and thread.is_alive() is False


def add_alarms_in_transaction(db: Any, rid: int) -> list[str]:
    org, name = PANELS[rid]
    event_id = f"EV-{rid}-{next(_seq):06d}"
    row = (event_id, rid, org, now_ms(), f"alarm on {name}", "violation", "Alarm", "alarm", 2, 1, 1)
    upsert_activities(db, "activities", [row])
    return [event_id]


def test_the_pacer_spaces_posts_per_channel_and_obeys_retry_after() -> None:
    from bot.notify.delivery import NotYet, Pacer

    clock = [100.0]
    pacer = Pacer(per_second=1.0, clock=lambda: clock[0])
    pacer.take("C1", "post")
    with pytest.raises(NotYet) as early:
        pacer.take("C1", "post")
    assert early.value.wait == pytest.approx(1.0)
    pacer.take("C2", "post")  # another channel has its own pace
    pacer.take("C1", "update")  # and edits are paced apart from posts
    clock[0] += 1.0
    pacer.take("C1", "post")
    pacer.push_back("C1", "post", 5)  # a 429 with Retry-After: 5
    clock[0] += 4.9
    assert pacer.wait("C1", "post") == pytest.approx(0.1)
    clock[0] += 0.1
    pacer.take("C1", "post")
    # 60 posts take 59 s at least: never more than 60 in a minute.
    takes = 0
    for _ in range(240):
        clock[0] += 0.25  # exact in binary, so the count is exact
        try:
            pacer.take("C3", "post")
            takes += 1
        except NotYet:
            pass
    assert takes == 60
