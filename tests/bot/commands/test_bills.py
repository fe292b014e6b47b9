"""`/sam bills`, over signed HTTP to the running bot (fixtures: conftest.py)."""

from __future__ import annotations

from datetime import datetime

from core.client import SamClient
from tests.support.bot import BotProcess, usage
from tests.support.narrow import known


def test_bills_of_a_subscription(bot: BotProcess, client: SamClient) -> None:
    panels = known(client.session).panels
    sub = next(p.resource_subscription_id for p in panels if p.resource_subscription_id)
    org = next(p.org_id for p in panels if p.resource_subscription_id == sub)
    bills = client.list_bills(sub, organization_id=org, org=org)
    assert bills
    result = bot.send_command(f"bills {sub} org:{org}")
    assert f"{len(bills)} bills of subscription {sub}" in result.text
    bill_date = bills[0].bill_date
    assert isinstance(bill_date, datetime)
    month = bill_date.strftime("%Y-%m")
    assert f"for {month}" in bot.send_command(f"bills {sub} {month} org:{org}").text
    usage(bot.send_command(f"bills {sub} 2026-13"), "/sam bills <subscriptionId> [YYYY-MM]")
    usage(bot.send_command("bills"), "/sam bills <subscriptionId> [YYYY-MM]")
    assert "Not found" in bot.send_command("bills 999").text
