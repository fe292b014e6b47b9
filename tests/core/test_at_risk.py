"""The at-risk list (issue 24 item 3) against counting by hand from the spec-exact simulator's own data: its
authorizations (operations 2 and 15, two of them set to expire through operation 4) and its bills (operation
7), read into the cache by a real `samops sync` process and core.panel_access, then listed by
core.read.at_risk. The bills tier's pace is measured from the simulator's own request count."""

from __future__ import annotations

import math
import subprocess
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from core.cache.db import open_cache
from core.client import SamClient
from core.clock import DAY_MS
from core.panel_access import refresh_panel_access
from core.read import at_risk_of
from core.settings import Settings
from tests.support.processes import ROOT, run_simulator, samops_cmd, samops_free_env, stop
from tests.support.spec_client import SpecClient

ORG = 1001


def _due(bill: dict[str, Any]) -> int:
    return int(datetime.fromisoformat(bill["paymentDueDate"].replace("Z", "+00:00")).timestamp() * 1000)


def _expire_two(spec: SpecClient, now: int) -> None:
    """Through the service's own operation 4: one user's authorization expires in 3 days (listed), another's
    in 10 (not within the week)."""
    listing = spec.ok("GET", "/enterprise/bulk/get-organization-users")
    users = sorted({ru["userId"] for pair in listing for ru in pair["resourceUserResponseList"] or []})
    for uid, days in ((users[0], 3), (users[1], 10)):
        privileges = spec.ok("GET", f"/role/user/{uid}/privilege-groups")
        spec.ok(
            "POST",
            "/user/privilege-groups-and-resources/add-or-update",
            {
                "userId": uid,
                "organizationId": ORG,
                "authorizedResourceIds": [],
                "privilegeGroups": [
                    {"privilegeGroupId": g["privilegeGroupId"], "authorized": g["authority"]}
                    for g in privileges["userPrivilegeGroups"]
                ],
                "expirationTime": now + days * DAY_MS,
            },
        )


def _by_hand(spec: SpecClient, now: int) -> tuple[set[tuple[int, int]], set[str]]:
    """(user, panel) pairs whose authorization expires within 7 days, and the bill numbers past due and
    unpaid, from the simulator's answers alone."""
    listing = spec.ok("GET", "/enterprise/bulk/get-organization-users")
    expiring: set[tuple[int, int]] = set()
    for pair in listing:
        for ru in pair["resourceUserResponseList"] or []:
            validity = spec.ok("GET", f"/role/user/{ru['userId']}/privilege-groups")["userPrivilegeValidity"]
            if validity["expiration"] > 0 and now <= validity["expiration"] <= now + 7 * DAY_MS:
                expiring.add((ru["userId"], pair["resourceId"]))
    login = spec.login()
    subs = {r["resourceSubscriptionId"] for r in login["resources"] if r["orgId"] == ORG}
    overdue: set[str] = set()
    for sub in subs:
        for bill in spec.ok("POST", "/subscription/bill", {"organizationId": ORG, "subscriptionId": sub}):
            if "paymentDate" not in bill and _due(bill) < now:
                overdue.add(bill["billNo"])
    return expiring, overdue


def test_the_at_risk_list_is_what_the_simulator_holds(tmp_path: Path) -> None:
    with run_simulator("--alarm-rate", "0", "--panels", "12", seed=7) as sim:
        spec = SpecClient(sim.base_url, org=ORG)
        spec.login()
        now = int(time.time() * 1000)
        _expire_two(spec, now)
        env = samops_free_env(SAM_BASE_URL=sim.base_url, SAMOPS_DATA_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
        done = subprocess.run(
            samops_cmd("sync", "--once"), cwd=tmp_path, env=env, capture_output=True, timeout=180
        )
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        db = open_cache(tmp_path / "cache.db")
        with SamClient(Settings(_env_file=None, base_url=sim.base_url)) as client:
            client.login()
            refresh_panel_access(db, client, ORG)
        expiring, overdue = _by_hand(spec, now)
        listed = at_risk_of(db, ORG, int(time.time() * 1000))
    assert expiring and overdue  # the simulator holds some of each: the comparison below means something
    assert {(e.user_id, e.resource_id) for e in listed.expiring} == expiring
    assert {b.bill_no for b in listed.overdue} == overdue
    assert listed.bills_read is not None and listed.subscriptions_read == listed.subscriptions > 0
    assert listed.authorizations_read is not None
    assert (
        listed.authorized_panels == listed.panels > 0
    )  # every panel of the organization read (a whole read)
    assert all(e.panel for e in listed.expiring)  # which panel, by name


def test_bills_are_read_at_their_pace_and_not_again_within_the_day(tmp_path: Path) -> None:
    rate = 2.0  # SAMOPS_BILLS_RATE, raised so that the test is short
    with run_simulator("--alarm-rate", "0", "--panels", "12", seed=7) as sim:
        spec = SpecClient(sim.base_url, org=ORG)
        orgs = {r["orgId"] for r in spec.login()["resources"]}
        subs = {r["resourceSubscriptionId"] for r in spec.login()["resources"]}
        env = samops_free_env(
            SAM_BASE_URL=sim.base_url,
            SAMOPS_DATA_DIR=str(tmp_path),
            PYTHONPATH=str(ROOT),
            SAMOPS_BILLS_RATE=str(rate),
        )

        def bills_asked() -> int:
            stats = httpx.get(f"{sim.root_url}/_sim/stats", timeout=10).json()
            return int(stats["operations"].get("7 POST /subscription/bill", 0))

        log = (tmp_path / "sync.log").open("w")
        proc = subprocess.Popen(
            samops_cmd("sync", "--every", "0.2", "--no-activities"),
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=log,
        )
        started = time.monotonic()
        try:
            # Until every subscription has been read (a fixed 8 s before), then some 10 more cycles in which
            # none may be read again.
            while bills_asked() < len(subs) and time.monotonic() - started < 60:
                time.sleep(0.1)
            time.sleep(2)
            assert proc.poll() is None
            seconds = time.monotonic() - started
            stats = httpx.get(f"{sim.root_url}/_sim/stats", timeout=10).json()
        finally:
            stop(proc)
            log.close()
    asked = stats["operations"].get("7 POST /subscription/bill", 0)
    # Every subscription read once (each is due once a day), never faster than the rate per organization.
    assert asked == len(subs), stats["operations"]
    assert asked <= len(orgs) * (math.floor(seconds * rate) + 1)
    db = open_cache(tmp_path / "cache.db")
    assert {b.subscription_id for o in orgs for b in at_risk_of(db, o, int(time.time() * 1000)).overdue}
