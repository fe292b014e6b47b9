"""CSV export of what a table shows, headed by the filters and the as-of time it was shown with."""

from __future__ import annotations

import io

import pandas as pd

from dashboard import data


def table_csv(frame: pd.DataFrame, title: str, filters: str, as_of: int | None, now: int) -> bytes:
    out = io.StringIO()
    out.write(f"# {title}; filters: {filters or 'none'}\n")
    out.write(f"# data as of {data.utc(as_of)}; exported {data.utc(now)}\n")
    frame.to_csv(out, index=False, date_format="%Y-%m-%dT%H:%M:%SZ")
    return out.getvalue().encode()
