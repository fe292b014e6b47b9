"""`/sam user`'s Block Kit within Slack's limits."""

from __future__ import annotations

from bot.render.users import user_blocks
from core.models import User
from tests.support.bot import check_limits


def test_a_user_with_hundreds_of_panels_stays_within_limits() -> None:
    user = User.model_validate(
        {
            "userId": 1,
            "firstName": "Ana",
            "lastName": "Lima",
            "screenName": "ana",
            "emailAddress": "ana@example.com",
            "emailAddressVerified": True,
            "status": 0,
            "organizations": [{"name": f"Org {i}", "id": i} for i in range(40)],
            "roles": [{"roleId": i, "roleName": f"Role {i}"} for i in range(40)],
            "resources": [
                {"resourceId": 100000 + i, "resourceName": f"Panel number {i}" * 3} for i in range(600)
            ],
        }
    )
    message = user_blocks(user)
    text, blocks = message.text, message.blocks
    dicts = check_limits(blocks)
    panels = next(b for b in dicts if "Authorized panels" in b.get("text", {}).get("text", ""))
    assert "*Authorized panels* (600)" in panels["text"]["text"]
    assert panels["text"]["text"].splitlines()[-1].startswith("… and ")
    assert text.startswith("Ana Lima")
