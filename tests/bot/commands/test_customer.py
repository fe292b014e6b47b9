"""`/sam customer`, over signed HTTP to the running bot (fixtures: conftest.py)."""

from __future__ import annotations

import httpx

from core.client import SamClient
from tests.support.bot import BotProcess, usage
from tests.support.processes import Simulator


def test_customer_names_stay_masked(bot: BotProcess, sim: Simulator, client: SamClient) -> None:
    org = client.resolve_org()
    customer = next(c for c in httpx.get(f"{sim.root_url}/_sim/customers").json() if c["orgId"] == org)
    phone = customer["contactMedium"][0]["characteristic"]["phoneNumber"]
    refused = bot.send_command(f"customer {phone}")  # personal data: technicians and admins only
    assert "needs the technician role" in refused.text and customer["id"] not in refused.text
    result = bot.send_command(f"customer {phone}", user="U_TECH")
    assert customer["name"] in result.text and "*" in customer["name"]
    assert customer["id"] in result.text
    assert "masked" in result.text
    for secret in ("clearName", "identityNumber"):
        if secret in customer:
            assert str(customer[secret]) not in result.text
    usage(bot.send_command("customer call-me", user="U_TECH"), "/sam customer <phone>")
    assert "0 customers" in bot.send_command("customer +1 000 000 0000", user="U_TECH").text


def test_a_number_too_short_is_told_what_a_phone_number_needs(bot: BotProcess) -> None:
    """ "`555` is not a phone number (digits, …)" told someone who typed only digits that digits were what
    it needed (issue 37): the answer says how many."""
    answer = bot.send_command("customer 555", user="U_TECH").text
    assert "`555` is not a phone number: it needs 5 to 31 characters" in answer
