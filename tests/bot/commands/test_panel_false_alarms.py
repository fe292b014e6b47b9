"""`/sam panel` shows the panel's false alarms over the `[false_alarms]` days (samops' own records), flagged
at the threshold: over signed HTTP to a running bot, against its own simulator, with alarms resolved in its
cache through the Resolve form's write (`core.dispositions.resolve`)."""

from __future__ import annotations

import time
from pathlib import Path

from core import dispositions
from core.cache import writes
from core.cache.db import open_cache
from core.client import SamClient
from core.clock import DAY_MS
from core.settings import Settings
from tests.support.bot import SMALL_FLEET, run_bot
from tests.support.narrow import known
from tests.support.processes import run_simulator
from tests.support.slack_standin import SlackStandIn

CONFIG = "[false_alarms]\nthreshold = 3\ndays = 30\n"


def _resolve(db_path: Path, rid: int, org: int, closed: list[tuple[int, str]]) -> None:
    """Alarms of panel `rid`, each (days ago, disposition code), resolved as that."""
    db = open_cache(db_path)
    now = int(time.time() * 1000)
    rows = [(f"fa-{rid}-{i}", rid, org, now - days * DAY_MS, "Intrusion", "violation", "Intrusion", "alarm",
             1, 1, 0) for i, (days, _) in enumerate(closed)]  # fmt: skip
    with writes.write_transaction(db):
        writes.upsert_activities(db, "activities", rows)
        for row, (_, code) in zip(rows, closed, strict=True):
            chosen = dispositions.Dispositions().get(code)
            assert chosen is not None
            dispositions.resolve(db, row[0], chosen, "U_SEED", now, opened_at=row[3])
    db.conn.close()


def test_panel_shows_its_false_alarms_and_the_flag(tmp_path: Path) -> None:
    with run_simulator(*SMALL_FLEET, seed=23) as sim, SamClient(Settings(base_url=sim.base_url)) as client:
        client.login()
        first, second = (known(client.session).resources or [])[:2]
        db_path = tmp_path / "cache.db"
        rid, org = known(first.resource_id), known(first.org_id)
        # Three false in 30 days; one false 40 days ago, a confirmed one and a test are not counted.
        closed = [(2, "false_user_error"), (9, "false_equipment"), (29, "false_unknown"),
                  (40, "false_unknown"), (5, "confirmed_intrusion"), (1, "test")]  # fmt: skip
        _resolve(db_path, rid, org, closed)
        _resolve(db_path, known(second.resource_id), known(second.org_id), [(3, "false_environment")])
        with (
            SlackStandIn() as slack,
            run_bot(tmp_path, slack, simulator=sim, db_path=db_path, config=CONFIG) as bot,
        ):
            flagged = bot.send_command(f"panel {rid}").text
            assert "*False alarms (30 d)*\n3 :triangular_flag_on_post: at or over the threshold" in flagged
            below = bot.send_command(f"panel {second.resource_id}").text
            assert "*False alarms (30 d)*\n1" in below and ":triangular_flag_on_post:" not in below
