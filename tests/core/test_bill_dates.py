"""A bill date the service formats its own way is kept as text (core.models) and shown as it came."""

from __future__ import annotations

from bot.render.lists import bill_line
from core.models import Bill


def test_bill_dates_in_a_format_of_the_services_own_are_shown_as_sent() -> None:
    bill = Bill.model_validate(
        {"billNo": "B-1", "billDate": "31/12/2026", "paymentDueDate": "2027-01-15T00:00:00Z", "state": "open"}
    )
    assert isinstance(bill.bill_date, str)
    line = bill_line(bill)
    assert "31/12/2026" in line and "due 2027-01-15" in line


def test_a_bill_date_as_text_is_escaped() -> None:
    line = bill_line(Bill.model_validate({"billNo": "B-2", "billDate": "<!channel>"}))
    assert "<!channel>" not in line and "&lt;!channel&gt;" in line
