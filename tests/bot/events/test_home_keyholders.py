"""The keyholder line on the App Home's alarm rows, through the running bot (a signed app_home_opened event,
the Slack stand-in): each open alarm says, as its card does, whether it happened during an authorized user's
window (in the organization's zone), outside every window, or that the panel's authorizations were not read
yet or could not be read."""

from __future__ import annotations

import json
import re
import time
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from core import lifecycle
from core.access_windows import DayWindow, Validity
from core.cache.db import open_cache
from core.cache.panel_access import record_reads, replace_panel_access
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.clock import HOUR_MS, MINUTE_MS
from core.panel_access import validity_to_json
from tests.support.bot import blocks_text, run_bot
from tests.support.slack_standin import SlackStandIn

ISTANBUL = ZoneInfo("Europe/Istanbul")
CONFIG = '[roles]\ntechnicians = ["U_TECH"]\n\n[notify]\ntimezone = "Europe/Istanbul"\n'
PANELS = {777: "Depot", 778: "Office", 779: "Harbor", 780: "Annex"}


def seed(db_path: Path) -> None:
    now = int(time.time() * 1000)
    today = datetime.now(ISTANBUL).isoweekday()
    later = (datetime.now(ISTANBUL) + timedelta(days=3)).isoweekday()
    db = open_cache(db_path)
    with write_transaction(db):
        panels = [{"resource_id": r, "org_id": 1001, "name": n} for r, n in PANELS.items()]
        upsert_dicts(db, "panels", panels, "resource_id")
        upsert_dicts(db, "sync_state", [{"table_name": "activities", "last_success": now}], "table_name")
        for number, rid in enumerate(PANELS, 1):
            at, event_id = now - number * MINUTE_MS, f"EV-{rid}"
            text = f"Burglary on {PANELS[rid]} - Door"
            row = (event_id, rid, 1001, at, text, "violation", "Burglary", "alarm", 2, 1, 1)
            upsert_activities(db, "activities", [row])
            db.execute(
                "INSERT INTO notify_outbox (event_id, channel, state, ts, posted_at, attempts)"
                " VALUES (?, 'C_ALARMS', 'posted', ?, ?, 0)",
                [event_id, f"{at // 1000}.{number:06d}", at],
            )
            lifecycle.open_alarms(db, [(event_id, at)], at)
        # 777: Ana may operate it all of today; 778: Bora only three days from now; 779: never read;
        # 780: the read failed.
        for rid, name, day in ((777, "Ana Yılmaz", today), (778, "Bora Kaya", later)):
            validity = Validity(windows=(DayWindow(day, 0, 24 * HOUR_MS),))
            row = {"resource_id": rid, "user_id": rid * 10, "org_id": 1001, "name": name,
                   "groups": json.dumps(["Arm / disarm"]), "validity": json.dumps(validity_to_json(validity)),
                   "fetched_at": now}  # fmt: skip
            replace_panel_access(db, 1001, [rid], [row])
            record_reads(db, 1001, [rid], now)
        record_reads(db, 1001, [780], now, error="the service did not answer")
    db.close()


def test_the_home_shows_each_alarms_keyholder_line(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed(db_path)
    members = {"U_TECH": ["C_ALARMS"]}
    with (
        SlackStandIn(users=dict.fromkeys(members), memberships=members) as slack,
        run_bot(tmp_path, slack, db_path=db_path, config=CONFIG) as bot,
    ):
        event = {"type": "app_home_opened", "user": "U_TECH", "channel": "D1", "tab": "home"}
        assert bot.send_event(event).status_code == 200
        [view] = slack.wait_for(lambda: [v for v in slack.home_views("U_TECH") if "EV-780" in str(v)])
    text = blocks_text(view["blocks"])
    lines = dict(re.findall(r"`(EV-\d+)`\n:[a-z_]+: \*Keyholders:\* ([^\n]+)", text))
    day = datetime.now(ISTANBUL).strftime("%a")
    # U_TECH reads their Home on their own Slack clock (the stand-in's America/Los_Angeles); the service's
    # access windows are the organization's, so their zone is named.
    windows = " (windows on Europe/Istanbul's clock)"
    assert lines == {
        "EV-777": f"During the access window of Ana Yılmaz ({day} 00:00–24:00): possibly a user error"
        + windows,
        "EV-778": "Outside every authorized user's window",
        "EV-779": "Authorizations not read yet",
        "EV-780": "Authorizations could not be read: the service did not answer",
    }, text
