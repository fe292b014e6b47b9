"""Subscription bills (operation 7) read into the cache's `bills` table, for the at-risk list.

One request per subscription (the service lists bills only by subscription; the subscriptions are the
panels' `resourceSubscriptionId`). Each subscription is a scope of the tiered table `bills`
(core/tiers.py): due once per SAMOPS_REFRESH_BILLS (a day), its phase spread over the day, and each
`samops sync --every` reads at most one of an organization's due subscriptions per 1/SAMOPS_BILLS_RATE
seconds, so the added idle load stays under that rate per organization (docs/at_risk.md has the figures).
A subscription whose read failed stays due and is tried again on a later tick.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from core import tiers
from core.cache.bills import replace_bills
from core.cache.transactions import write_transaction
from core.client import SamClient
from core.errors import NotFoundError, SamError
from core.models import Bill
from core.read.subscriptions import subscriptions_by_org
from core.sqlite_lib import sqlite_utils

log = logging.getLogger("samops.bills")

TABLE = "bills"


@dataclass
class BillsReport:
    read: int = 0  # subscriptions read
    bills: int = 0  # bills written
    errors: list[str] = field(default_factory=list)


class BillsGate:
    """At most one bills request per organization every 1/rate seconds, across ticks: a tick shorter than
    the gap reads nothing of that organization, and an organization's first tick reads one subscription."""

    def __init__(self, rate: float) -> None:
        self.gap_ms = int(1000 / rate)
        self._next: dict[int, int] = {}

    def ready(self, org: int, now: int) -> bool:
        return now >= self._next.get(org, now)

    def spent(self, org: int, now: int) -> None:
        self._next[org] = now + self.gap_ms


def refresh_due_bills(
    db: sqlite_utils.Database, client: SamClient, now: int, interval_s: float, gate: BillsGate | None
) -> BillsReport:
    """Read the bills of the subscriptions that are due (never read first, then the longest unread): one
    per organization when `gate` lets it, or every one due without a gate (`sync --once`)."""
    report = BillsReport()
    schedule = tiers.Schedule(TABLE, int(interval_s * 1000))
    last = tiers.refreshed(db, TABLE)
    for org, subs in subscriptions_by_org(db).items():
        due = sorted(schedule.due(subs, last, now), key=lambda s: (s in last, last.get(s, 0), s))
        if gate is not None:
            if not due or not gate.ready(org, now):
                continue
            gate.spent(org, now)
            due = due[:1]
        for sub in due:
            _refresh_one(db, client, org or None, sub, now, report)
    return report


def _refresh_one(
    db: sqlite_utils.Database, client: SamClient, org: int | None, sub: int, now: int, report: BillsReport
) -> None:
    try:
        bills = client.list_bills(sub, organization_id=org, org=org)
    except NotFoundError:  # no longer the organization's: nothing of it is owed as far as samops can tell
        bills = []
    except SamError as exc:
        report.errors.append(f"bills of subscription {sub}: {exc}")
        log.warning("bills of subscription %s: %s", sub, exc)
        return
    rows = [bill_row(b, sub, org, now) for b in bills]
    rows = [r for r in rows if r["bill_id"] is not None]
    with write_transaction(db):
        replace_bills(db, sub, rows)
        tiers.mark_refreshed(db, TABLE, [sub], now)
    report.read += 1
    report.bills += len(rows)


def bill_row(bill: Bill, sub: int, org: int | None, fetched_at: int) -> dict[str, Any]:
    amount = bill.amount_due
    return {
        "subscription_id": sub,
        "bill_id": bill.id or bill.bill_no,
        "org_id": org,
        "bill_no": bill.bill_no,
        "due_at": epoch_ms(bill.payment_due_date),
        "paid_at": epoch_ms(bill.payment_date),
        "amount": None if amount is None else amount.value,
        "unit": None if amount is None else amount.unit,
        "state": bill.state,
        "fetched_at": fetched_at,
    }


def epoch_ms(value: datetime | str | None) -> int | None:
    """A date-time of the service as epoch-ms (no zone: UTC); None when absent or in a form of its own."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return int(value.timestamp() * 1000)


__all__ = ["BillsGate", "BillsReport", "bill_row", "epoch_ms", "refresh_due_bills"]
