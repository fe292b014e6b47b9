"""One clock per reader (issue 33): every message, page and console line that shows a time, rendered for one
instant with a fake clock in three zones of distinct offsets, shows it on its reader's clock and on no other.

- Slack (cards, thread details, the first-start summary, `/sam alarms`, handovers, windows, at-risk,
  keyholder windows, `/sam notify-me`): the organization's zone (`[notify.timezones]`) on what a channel
  reads; what a person reads alone (a `/sam` answer, their App Home, the task screens) on their own Slack zone
  (users.info `tz`, asked of the Slack stand-in) where Slack gives it, the organization's where it does not.
- The console (the notifier's log lines and the cards it prints without Slack), `samops status`,
  `samops audit`, the backfill line and the logs: the machine's zone (TZ), named once per line or heading.
- The dashboard: the viewer's zone, named once in a column's header, not in each cell.
- A date with no time of day (a bill's due date) is a date in every zone.

A time read on another clock shows as an HH:MM the reader's zone does not have at those instants: each check
collects every HH:MM of the output and fails on one that is not the expected zone's.
"""

from __future__ import annotations

import io
import json
import logging
import re
from datetime import datetime, time
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from slack_sdk import WebClient

from bot.commands.alarms import alarms as sam_alarms
from bot.commands.notify_me import describe
from bot.commands.silences import silences as sam_silences
from bot.commands.task import task_form, update_task
from bot.events.home import HomeTabs
from bot.notify.delivery import ConsoleDelivery
from bot.notify.service import Notifier
from bot.person_zones import PersonZones
from bot.render.alarms import alarm_card, first_start_summary, late_line, storm_details
from bot.render.at_risk import org_sections
from bot.render.common import blocks_to_dicts
from bot.render.lists import alarms_blocks
from bot.render.quiet import handover_digest, window_card
from bot.roles import RoleResolver
from bot.slash.registry import Invocation
from core import lifecycle, timefmt
from core.alarms import Alarm
from core.cache import add_window, audit, record_held, save_task, set_state
from core.cache.db import open_cache
from core.cache.quiet import QuietWindow
from core.cache.writes import write_transaction
from core.cli import audit as audit_cli
from core.cli.status import _history_line
from core.config import parse_notify
from core.lifecycle import AlarmState, State
from core.notify.source import CacheSource
from core.paging import PagePrefs
from core.read import MAINTENANCE, SILENCE, AlarmFilter, recent_alarms
from core.read.at_risk import AtRisk, Expiring, Overdue
from core.read.handover import Handover
from core.read.rows import TableFreshness
from core.views import AlarmView
from dashboard import alarm_table
from tests.bot.notify.support import FakeClock, add_alarms, cache
from tests.support.bot import local_context
from tests.support.slack_standin import SlackStandIn

ZONES = ("UTC", "Europe/Istanbul", "America/Los_Angeles")  # +00, +03, -08 in November
ORG_ZONE = "Asia/Tokyo"  # +09: the organization's, where a reader is on the machine's clock instead
T = 1_795_000_000_000  # 2026-11-18 11:06:40 UTC: 14:06:40 in Istanbul, 03:06:40 in Los Angeles
NOW = T + 7 * 60_000  # the fake clock: seven minutes later
DUE = 1_792_022_400_000  # 2026-10-15T00:00:00Z, a bill's due date
_CLOCK = re.compile(r"(?<![\d:])([0-2]\d:[0-5]\d)(?::[0-5]\d)?(?![\d:])")


def on_clock_of(text: str, zone: str, *moments: int) -> None:
    """Every HH:MM in `text` is the wall time of one of `moments` (default T and NOW) in `zone`, at least one
    is there, and no other zone of ZONES is named."""
    tz = ZoneInfo(zone)
    allowed = {datetime.fromtimestamp(m / 1000, tz).strftime("%H:%M") for m in moments or (T, NOW)}
    found = set(_CLOCK.findall(text))
    assert found, f"no time shown: {text}"
    assert found <= allowed, f"{sorted(found - allowed)} read on another clock than {zone}'s: {text}"
    for other in (*ZONES, ORG_ZONE):
        if other != zone:
            assert other not in text, f"{other} named where {zone} is the reader's: {text}"


def shown(rendered: Any) -> str:
    """A Rendered's text, blocks and attachments, as Slack would get them."""
    parts = [rendered.text or "", json.dumps(blocks_to_dicts(rendered.blocks or []))]
    parts.append(json.dumps(getattr(rendered, "attachments", None) or []))  # a Reply has none
    return "\n".join(parts)


ALARM = Alarm("EV-1", 101, 1001, T, "Burglary on Warehouse - Door 1", "violation", "Burglary", "alarm",
              "Warehouse")  # fmt: skip


# --- Slack: the organization's zone ---------------------------------------------------------------------


@pytest.mark.parametrize("zone", ZONES)
def test_slack_messages_are_on_the_organizations_clock(zone: str, tmp_path: Path) -> None:
    config = parse_notify({"timezones": {"1001": zone}})
    org = config.zone_for(1001)
    state = AlarmState("EV-1", State.ACKNOWLEDGED, "U1", T, NOW, "U1", None, None, None, NOW)
    on_clock_of(shown(alarm_card(AlarmView(ALARM, org, NOW, "http://d", state=state, late_ms=NOW - T))), zone)
    on_clock_of(late_line(ALARM, NOW - T, org), zone, NOW)
    on_clock_of(shown(storm_details([ALARM], org)), zone, T)
    # No organization of its own: the one [notify.timezones] names (it was the simulator users' zone).
    on_clock_of(shown(first_start_summary([ALARM], 24, config.zone_for(None))), zone, T)
    digest = Handover(since=T, until=NOW, org_id=1001, alarms_received=1, noisiest=(), cameras_offline=(),
                      quiet=())  # fmt: skip
    on_clock_of(shown(handover_digest(digest, org, NOW, config.zone_for)), zone)
    window = QuietWindow(1, "maintenance", 101, None, T, NOW, "battery swap", "U1", T, None, None, None, None,
                         "Warehouse", 1001)  # fmt: skip
    on_clock_of(shown(window_card(window, config.zone_for(window.organization), T)), zone)
    risk = AtRisk(org_id=1001, at=NOW, expiring=(Expiring(7, "Ana", 101, "Warehouse", NOW),),
                  authorizations_read=T, authorized_panels=1, panels=1,
                  overdue=(Overdue(77, "INV-1", DUE, 10.0, "EUR"),), bills_read=T, subscriptions=1,
                  subscriptions_read=1, silent=(), noisy=(), noisy_false=False, alarms_read=T,
                  cameras_down=(), cameras_read=T)  # fmt: skip
    sections = json.dumps(blocks_to_dicts(org_sections(risk, org, NOW)))
    on_clock_of(sections, zone, NOW)
    assert "due 2026-10-15" in sections and "due 2026-10-15 " not in sections  # a date: no time, no zone
    db = open_cache(tmp_path / "cache.db")
    add_alarms(db, 101, T)
    rows = recent_alarms(db, AlarmFilter())
    fresh = TableFreshness("activities", NOW, None, None, 1)
    # `/sam alarms` with no organization asked about: each alarm and the freshness note on one clock.
    on_clock_of(shown(alarms_blocks(rows, "since 1 h ago", 1, fresh, NOW, config.zone_for, None)), zone)


@pytest.mark.parametrize("zone", ZONES)
def test_a_persons_own_zone_where_slack_gives_it_else_the_organizations(zone: str) -> None:
    org = parse_notify({"timezones": {"1001": zone}}).zone_for(1001)
    nameless = PagePrefs("U1", quiet_from=time(22), quiet_to=time(7))
    said = describe(nameless, org)
    assert f"in {zone}, the organization's" in said and "UTC (Slack" not in said  # it fell back to UTC
    own = PagePrefs("U1", quiet_from=time(22), quiet_to=time(23, 30), zone=ORG_ZONE)
    assert f"in {ORG_ZONE}:" in describe(own, org)
    assert timefmt.person_zone(None, org) == org and timefmt.person_zone(ORG_ZONE, org) == ZoneInfo(ORG_ZONE)
    eleven_pm = int(datetime(2026, 11, 18, 23, 0, tzinfo=ZoneInfo(zone)).timestamp() * 1000)
    assert nameless.in_quiet_hours(eleven_pm, org)  # on the organization's clock
    assert not own.in_quiet_hours(eleven_pm, org)  # 23:00 there is not 22:00-23:30 in Tokyo: theirs


@pytest.mark.parametrize("zone", ZONES)
def test_what_a_person_reads_alone_is_on_their_own_slack_clock(
    zone: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `/sam` answer, the App Home and the task screens, read by U_ANA whose Slack zone is `zone` while
    her organization's is Tokyo, are on her clock; U_NOTZ, whose users.info has no `tz`, reads Tokyo's."""
    import core.clock

    monkeypatch.setattr(core.clock, "time", SimpleNamespace(time=lambda: NOW / 1000))  # the fake clock
    until = NOW + 3 * 3_600_000  # the silence's end: a third moment
    people = {"U_ANA": ["C_ALARMS"], "U_NOTZ": ["C_ALARMS"]}
    with SlackStandIn(
        users=dict.fromkeys(people), memberships=people, zones={"U_ANA": zone, "U_NOTZ": None}
    ) as slack:
        ctx = local_context(tmp_path, {"technicians": list(people)}, {"timezones": {"1001": ORG_ZONE}})
        web = WebClient(token="xoxb-x", base_url=slack.api_url)
        ctx.web_client, ctx.roles, ctx.zones = web, RoleResolver(ctx.config.roles, web), PersonZones(web)
        db = ctx.db()
        [event_id] = add_alarms(db, 101, T)
        with write_transaction(db):
            db.execute(
                "INSERT INTO notify_outbox (event_id, channel, state, ts, posted_at, attempts)"
                " VALUES (?, 'C_ALARMS', 'posted', '1.000001', ?, 0)",
                [event_id, T],
            )
            lifecycle.open_alarms(db, [(event_id, T)], T)
            add_window(
                db, kind=SILENCE, starts_at=T, ends_at=until, created_at=T, resource_id=101, created_by="U1"
            )
            # An alarm a maintenance window held back (never posted): its reason ends on the reader's clock.
            held_by = add_window(db, kind=MAINTENANCE, starts_at=T, ends_at=until, created_at=T,
                                 resource_id=102, created_by="U1")  # fmt: skip
        [held_id] = add_alarms(db, 102, T)
        with write_transaction(db):
            record_held(db, [(held_id, held_by)])
        save_task(
            db, 42, {"taskName": "Night patrol", "taskDates": ["2026-12-01"]}, org_id=1001, at=T, by="U1"
        )

        for user, theirs in (("U_ANA", zone), ("U_NOTZ", ORG_ZONE)):

            def inv(text: str, user: str = user) -> Invocation:
                words = tuple(text.split()[1:] if text.startswith("alarms") else text.split()[2:])
                return Invocation(user, "C_ALARMS", "T1", text, words, None, ctx.roles.role_of(user))

            # `/sam alarms` and `/sam silences`: ephemeral answers to one person.
            answer = sam_alarms(inv("alarms"), ctx)
            assert "held: maintenance" in shown(answer), shown(answer)
            on_clock_of(shown(answer), theirs, T, until)
            answer = sam_silences(
                Invocation(user, "C_ALARMS", "T1", "silences", (), None, ctx.roles.role_of(user)), ctx
            )
            on_clock_of(shown(answer), theirs, until)
            # The App Home: the alarm's time and the silence's end on the reader's clock.
            home = json.dumps(HomeTabs(ctx).build(user).to_dict())
            assert event_id in home, home
            on_clock_of(home, theirs, T, until)
            # The task screens: when samops last set the task (the modal; the answer where no modal opens).
            modal = task_form(ctx, inv("task update 42"), 42).to_dict()
            # Not shown: the zone the dates typed are read in, the organization's, whoever types them.
            assert json.loads(modal.pop("private_metadata"))["tz"] == ORG_ZONE
            on_clock_of(json.dumps(modal), theirs, T)
            on_clock_of(shown(update_task(inv("task update 42"), ctx)), theirs, T)
    # One users.info per person, whatever they read (the rest from PersonZones' memory).
    assert sorted(c.params["user"] for c in slack.calls_to("users.info")) == ["U_ANA", "U_NOTZ"]


# --- the console: the machine's zone --------------------------------------------------------------------


@pytest.mark.parametrize("zone", ZONES)
def test_console_lines_are_on_the_machines_clock(
    zone: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("TZ", zone)
    assert timefmt.host_zone() == ZoneInfo(zone)
    record = logging.LogRecord("bot.notify", logging.INFO, __file__, 1, "notify: 1 new alarms", None, None)
    record.created = T / 1000
    line = timefmt.HostLogFormatter("%(asctime)s %(message)s", datefmt="%H:%M:%S").format(record)
    on_clock_of(line, zone, T)
    assert line.count(zone) == 1 and line.endswith(f"{zone} notify: 1 new alarms")

    # The notifier with no Slack prints its cards on this console: on this clock, not the organization's.
    db = cache(tmp_path)
    config = parse_notify({"timezones": {"1001": ORG_ZONE}, "summary_hours": 0}).on_console()
    out = io.StringIO()
    with write_transaction(db):  # first started a minute before the alarm, on the fake clock
        set_state(db, "baseline", str(T - 60_000))
        set_state(db, "summary", "posted")
    notifier = Notifier(db, config, ConsoleDelivery(out), CacheSource(), "http://d", clock=FakeClock(NOW))
    notifier.start()
    until = NOW + 3 * 3_600_000  # a maintenance window's end on Office: a third moment
    with write_transaction(db):
        add_window(db, kind=MAINTENANCE, starts_at=T, ends_at=until, created_at=T, resource_id=102,
                   created_by="U1", reference="R-1")  # fmt: skip
    add_alarms(db, 101, T)
    add_alarms(db, 102, T)
    caplog.set_level(logging.INFO, logger="bot.notify")
    for _ in range(5):
        notifier.cycle()
    printed = out.getvalue()
    assert "Warehouse" in printed, printed
    on_clock_of(printed, zone)
    # The held alarm's console line: its reason's end on this clock, the zone named once, by the line's time.
    [held] = [r for r in caplog.records if "held: maintenance R-1" in r.getMessage()]
    held_line = timefmt.HostLogFormatter("%(asctime)s %(message)s", datefmt="%H:%M:%S").format(held)
    on_clock_of(held_line, zone, int(held.created * 1000), until)
    assert held_line.count(zone) == 1, held_line
    assert config.zone_for(1001) == ZoneInfo(ORG_ZONE)  # a handover, a window still fall on the org's clock

    # samops status' history line, samops audit: the zone named once.
    backfill = SimpleNamespace(panels=3, panels_done=1, done=False, since=T, until=NOW)
    settings = SimpleNamespace(late_window=3600, reconcile_interval=60, history_days=7)
    history = _history_line(backfill, settings)
    on_clock_of(history, zone)
    assert history.count(zone) == 1
    path = tmp_path / "audit.db"
    records = open_cache(path)
    audit.record(records, slack_user="U1", command="panel 1", outcome="ok", summary="s", reference="R-1",
                 at=T, org_id=1001)  # fmt: skip
    records.close()
    monkeypatch.setenv("COLUMNS", "250")
    capsys.readouterr()
    assert audit_cli.main(["--db", str(path)]) == 0
    table = capsys.readouterr().out
    on_clock_of(table, zone, T)
    assert table.count(zone) == 1


# --- the dashboard: the viewer's zone, named in the header ----------------------------------------------


@pytest.mark.parametrize("zone", ZONES)
def test_dashboard_cells_are_on_the_viewers_clock_named_in_the_header(zone: str) -> None:
    from core import read

    row = read.AlarmRow(event_id="EV-1", resource_id=101, org_id=1001, activity_time=T, description="d",
                        event_type="violation", violation_name="Burglary", violation_type="alarm",
                        panel_name="Warehouse")  # fmt: skip
    until = NOW + 3 * 3_600_000
    window = QuietWindow(1, "maintenance", 101, None, T, until, None, "U1", T, None, None, None, None,
                         "Warehouse", 1001, reference="R-1")  # fmt: skip
    body = alarm_table.alarms_html([row], ZoneInfo(zone), zone, held={"EV-1": window})
    visible = re.sub(r'datetime="[^"]*"', "", body)  # the machine-readable ISO stamp carries an offset
    assert "held: maintenance R-1 by @U1 until" in visible
    on_clock_of(re.sub(r"<style>.*?</style>", "", visible, flags=re.S), zone, T, until)
    assert visible.count(zone) == 1 and f"Time ({zone})" in visible
    assert timefmt.wall(T, ZoneInfo(zone), seconds=True) in visible
    assert timefmt.day(DUE) == "2026-10-15"  # a date, whatever the zone
