"""The App Home of a person the service knows (`[roles.from_service]`: their Slack e-mail looked up with
operation 13 on the spec-exact simulator) lists the alarms of their organizations, even from channels they
are not in, and says so; an organization that is not theirs stays off their Home."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.client import SamClient
from core.lifecycle import open_alarms
from core.settings import Settings
from tests.support.bot import blocks_text, run_bot
from tests.support.processes import Simulator, run_simulator
from tests.support.slack_standin import SlackStandIn

CONFIG = '[roles]\n\n[roles.from_service]\n"Installer" = "technician"\n"Operator" = "technician"\n'


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", seed=5) as sim:
        yield sim


def one_org_installer(sim: Simulator) -> tuple[str, int]:
    """The e-mail of a service user in exactly one organization, and that organization."""
    with SamClient(Settings(base_url=sim.base_url)) as client:
        login = client.login()
        for listed in client.list_organization_users(login.user_id or 0):
            if listed.email_address:
                user = client.get_user_by_email(listed.email_address)
                if len(user.organization_ids or []) == 1 and user.roles:
                    return listed.email_address, int((user.organization_ids or [0])[0])
    raise AssertionError("the simulator has a user in one organization")


def seed(path: Path, alarms: list[tuple[str, int, str]]) -> None:
    db = open_cache(path)
    now = int(time.time() * 1000)
    with write_transaction(db):
        upsert_dicts(db, "sync_state", [{"table_name": "activities", "last_success": now}], "table_name")
        for event_id, org, channel in alarms:
            description = "Burglary alarm on Gate - Door"
            row = (event_id, None, org, now, description, "violation", "Burglary", "alarm", 2, 1, 1)
            upsert_activities(db, "activities", [row])
            db.execute("INSERT INTO notify_outbox (event_id, channel, state, ts, posted_at, attempts)"
                       " VALUES (?, ?, 'posted', '1.1', ?, 0)", [event_id, channel, now])  # fmt: skip
        open_alarms(db, [(event_id, now) for event_id, _, _ in alarms], now)
    db.close()


def test_the_home_lists_the_alarms_of_the_persons_organizations(tmp_path: Path, sim: Simulator) -> None:
    email, org = one_org_installer(sim)
    other = 1002 if org != 1002 else 1001
    db_path = tmp_path / "cache.db"
    seed(db_path, [("EV-MINE", org, "C_NOT_MINE"), ("EV-OTHER", other, "C_NOT_MINE_EITHER")])
    with (
        SlackStandIn(users={"U_SVC": email}, memberships={"U_SVC": []}) as slack,
        run_bot(tmp_path, slack, simulator=sim, config=CONFIG, db_path=db_path) as bot,
    ):
        event = {"type": "app_home_opened", "user": "U_SVC", "channel": "D1", "tab": "home"}
        assert bot.send_event(event).status_code == 200
        [view] = slack.wait_for(lambda: slack.home_views("U_SVC"), timeout=60)
        text = blocks_text(view["blocks"])
        assert "You are a technician" in text
        assert "EV-MINE" in text and "EV-OTHER" not in text
        assert f"of your organizations in the service ({org})" in text
