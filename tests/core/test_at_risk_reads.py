"""The at-risk list's whole-fleet authorization reads (core.at_risk_reads) against the spec-exact simulator
and a real cache: every panel is read, alarms or not, through the keyholder reads' pace; then none is due
again within the day, and an authorization set to expire on a panel without any alarm is listed."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from core.at_risk_reads import EVERY_MS, FleetReads
from core.cache.db import open_cache
from core.client import SamClient
from core.clock import DAY_MS
from core.keyholder_reads import KeyholderReads
from core.pacing import Pacer
from core.read import at_risk_of
from core.settings import Settings
from core.sync import run_sync
from tests.support.processes import run_simulator

OP2 = "2 GET /enterprise/bulk/get-organization-users"
ORG = 1001


def test_every_panel_is_read_once_a_day_alarms_or_not(tmp_path: Path) -> None:
    with (
        run_simulator("--alarm-rate", "0", "--panels", "12", seed=3) as sim,
        SamClient(Settings(_env_file=None, base_url=sim.base_url)) as client,
    ):
        client.login()
        pair = next(p for p in client.get_organization_users(org=ORG) if p.resource_user_response_list)
        uid = (pair.resource_user_response_list or [])[0].user_id
        assert uid is not None
        groups = client.get_user_privilege_groups(uid, org=ORG).user_privilege_groups or []
        client.set_user_privileges(
            user_id=uid,
            authorized_resource_ids=[],
            privilege_groups=[
                {"privilegeGroupId": g.privilege_group_id, "authorized": bool(g.authority)} for g in groups
            ],
            organization_id=ORG,
            expiration_time=int(time.time() * 1000) + 3 * DAY_MS,
            org=ORG,
        )
        db = open_cache(tmp_path / "cache.db")
        assert run_sync(db, client).ok
        httpx.post(f"{sim.root_url}/_sim/stats/reset", timeout=10).raise_for_status()
        now = int(time.time() * 1000)
        clock = [now]
        reads = FleetReads(KeyholderReads(client, Pacer(50.0), 3600.0, lambda: clock[0]), lambda: clock[0])
        steps = 0
        while reads.step(db):  # no alarm anywhere: the keyholder reads would read nothing
            steps += 1
            assert steps < 50
        listing = httpx.get(f"{sim.root_url}/_sim/stats", timeout=10).json()["operations"].get(OP2, 0)
        assert listing == steps > 0  # one listing per step, a few panels each
        for org in {o for o in db.execute("SELECT DISTINCT org_id FROM panels").fetchall()}:
            risk = at_risk_of(db, int(org[0]), now)
            assert risk.authorized_panels == risk.panels  # every panel read
        clock[0] = now + EVERY_MS - 60_000
        assert not reads.step(db)  # within the day: none due again
        clock[0] = now + EVERY_MS + 1
        assert reads.step(db)  # a day on: due again
        expiring = at_risk_of(db, ORG, now).expiring
    assert expiring and {e.user_id for e in expiring} == {uid}  # listed, though its panels had no alarm
