"""`/sam at-risk`, over signed HTTP to a running bot with its own simulator: the expiring authorization and
the overdue bills that the simulator holds are listed, counted by hand from the simulator's answers."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from core.bills import refresh_due_bills
from core.cache.db import open_cache
from core.client import SamClient
from core.clock import DAY_MS
from core.panel_access import refresh_panel_access
from core.settings import Settings
from core.sync import run_sync
from tests.support.bot import BotProcess, no_secrets, run_bot, usage
from tests.support.processes import run_simulator
from tests.support.slack_standin import SlackStandIn

ORG = 1001


@pytest.fixture(scope="module")
def risky(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BotProcess, SamClient, int]]:
    """A bot over a cache holding the simulator's bills and authorizations, one of which expires in 2 days."""
    tmp = tmp_path_factory.mktemp("at-risk")
    with (
        run_simulator("--alarm-rate", "0", "--panels", "12", seed=11) as sim,
        SamClient(Settings(_env_file=None, base_url=sim.base_url)) as client,
    ):
        client.login()
        pair = next(p for p in client.get_organization_users(org=ORG) if p.resource_user_response_list)
        uid = pair.resource_user_response_list[0].user_id  # type: ignore[index]
        assert uid is not None
        groups = client.get_user_privilege_groups(uid, org=ORG).user_privilege_groups or []
        client.set_user_privileges(
            user_id=uid,
            authorized_resource_ids=[],
            privilege_groups=[
                {"privilegeGroupId": g.privilege_group_id, "authorized": bool(g.authority)} for g in groups
            ],
            organization_id=ORG,
            expiration_time=int(time.time() * 1000) + 2 * DAY_MS,
            org=ORG,
        )
        db_path = tmp / "cache.db"
        db = open_cache(db_path)
        assert run_sync(db, client).ok
        assert not refresh_due_bills(db, client, int(time.time() * 1000), 86_400, None).errors
        refresh_panel_access(db, client, ORG)
        db.close()
        with SlackStandIn() as slack, run_bot(tmp, slack, simulator=sim, db_path=db_path) as bot:
            yield bot, client, uid


def test_at_risk_lists_what_the_simulator_holds(risky: tuple[BotProcess, SamClient, int]) -> None:
    bot, client, uid = risky
    # Every panel the user is authorized on is one entry (who, which panel).
    pairs = client.get_organization_users(org=ORG)
    on = [p for p in pairs for ru in p.resource_user_response_list or [] if ru.user_id == uid]
    subs = {p.resource_subscription_id for p in client.session.panels if p.org_id == ORG}  # type: ignore[union-attr]
    now = int(time.time() * 1000)
    overdue = {
        b.bill_no
        for s in subs
        if s is not None
        for b in client.list_bills(s, organization_id=ORG, org=ORG)
        if b.payment_date is None
        and b.payment_due_date is not None
        and b.payment_due_date.timestamp() * 1000 < now  # type: ignore[union-attr]
    }
    assert overdue
    result = bot.send_command(f"at-risk org:{ORG}")
    no_secrets(result)
    assert result.ephemeral
    assert f"Overdue bills: {len(overdue)}" in result.text and all(n in result.text for n in overdue if n)
    assert (
        f"Authorizations expiring within 7 days: {len(on)}" in result.text
        and "Organization 1001" in result.text
    )
    assert "bills read just now" in result.text or "bills read 1 min ago" in result.text
    # Times in the organization's zone, named: no [notify] zone is set, so the one its users live in.
    assert "expires" in result.text and "Europe/Istanbul" in result.text
    usage(bot.send_command("at-risk everything"), "/sam at-risk [org:<id>]")
    unknown = bot.send_command("at-risk org:9999")
    usage(unknown, "/sam at-risk [org:<id>]")
    assert "org:9999 is not an organization samops knows" in unknown.text and "1001" in unknown.text
