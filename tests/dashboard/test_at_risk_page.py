"""The At risk page (AppTest over a real cache file): each section's rows as the cache holds them, times in
the viewer's zone (by default the organization's) named, the data's age, and a name from the service shown
as text in a table, never as markup."""

from __future__ import annotations

import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core import tiers, timefmt
from core.bills import bill_row
from core.cache.bills import replace_bills
from core.cache.db import open_cache
from core.cache.panel_access import replace_panel_access
from core.cache.writes import upsert_dicts, write_transaction
from core.clock import DAY_MS, HOUR_MS, now_ms
from core.models import Bill
from tests.support.apptest import open_page
from tests.support.seed_cache import seed_cache

pytestmark = pytest.mark.usefixtures("fresh_streamlit_cache")
PAGE = "views/at_risk.py"
HOSTILE = "**Bold** <b>x</b> :red[red] [link](https://example.com)"


def test_the_page_lists_each_section_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    now = now_ms()
    seed = seed_cache(tmp_path / "cache.db", now)
    panel = min(seed.panels)
    db = open_cache(seed.path)
    org = int(db.execute("SELECT org_id FROM panels WHERE resource_id = ?", [panel]).fetchone()[0])
    late = Bill.model_validate({"id": "9", "billNo": "INV-LATE", "paymentDueDate": "2026-01-05T00:00:00Z"})
    soon, read_at = now + 2 * DAY_MS, now - 3 * HOUR_MS - 5 * 60_000
    access = [
        {"resource_id": panel, "user_id": 1, "org_id": org, "name": HOSTILE, "groups": "[]",
         "fetched_at": now,
         "validity": json.dumps({"start": 0, "expiration": soon, "windows": [], "unusable": 0})},
    ]  # fmt: skip
    with write_transaction(db):
        raw = json.loads(
            db.execute("SELECT raw FROM panels WHERE resource_id = ?", [panel]).fetchone()[0] or "{}"
        )
        raw["resourceSubscriptionId"] = 77
        upsert_dicts(db, "panels", [{"resource_id": panel, "raw": json.dumps(raw)}], "resource_id")
        replace_bills(db, 77, [bill_row(late, 77, org, read_at)])
        tiers.mark_refreshed(db, "bills", [77], read_at)
        replace_panel_access(db, org, None, access)
    db.close()
    monkeypatch.setenv("SAMOPS_DB", str(seed.path))
    at = open_page(PAGE, org=str(org))
    tables = {tuple(t.value.columns): t.value for t in at.dataframe}
    [zone] = [c.value.split("Times in ", 1)[1].split(".")[0] for c in at.caption if "Times in " in c.value]
    expiring = tables[("Who", "Panel", "Panel id", f"Expires ({zone})")]
    assert list(expiring["Who"]) == [HOSTILE]  # as text, in a table cell
    assert list(expiring["Panel id"]) == [str(panel)]
    [expires] = list(expiring[f"Expires ({zone})"])
    # In the viewer's zone (the organization's by default), named once in the header, not in each cell.
    assert expires == timefmt.wall(soon, ZoneInfo(zone))
    bills = tables[("Bill", "Subscription", "Due", "Amount")]
    assert list(bills["Bill"]) == ["INV-LATE"] and list(bills["Subscription"]) == ["77"]
    assert list(bills["Due"]) == ["2026-01-05"]  # a date, with no time of day (it read "2026-01-05 03:00")
    captions = " ".join(c.value for c in at.caption)
    assert "Bills read 3 h ago" in captions and "1 of 1 subscriptions read" in captions
    assert "from samops' supervision" in captions  # every section says how old its data is
    assert HOSTILE not in " ".join(m.value for m in at.markdown)  # never rendered as markup
    assert any(h.value == "Overdue bills: 1" for h in at.subheader)


def test_an_empty_cache_says_no_data_yet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cache.db"
    open_cache(path).conn.close()
    monkeypatch.setenv("SAMOPS_DB", str(path))
    at = open_page(PAGE)
    assert "No data yet" in at.info[0].value
