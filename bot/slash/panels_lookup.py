"""Finding the panel a person means: by id, or by name through the cache, else the login's resources."""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass

from bot.context import AppContext
from bot.render.common import escape, join_lines, section
from bot.slash.registry import Reply
from core.errors import SamError
from core.models import ResourceSummary
from core.read import PanelRow, find_panels

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PanelRef:
    resource_id: int
    org_id: int | None
    name: str | None
    model: str | None = None
    brand: str | None = None
    enabled: bool | None = None
    summary: ResourceSummary | None = None  # from the login result, when found there


def _from_row(row: PanelRow) -> PanelRef:
    return PanelRef(row.resource_id, row.org_id, row.name, row.model, row.brand, row.enabled)


def _from_summary(res: ResourceSummary) -> PanelRef:
    return PanelRef(
        res.resource_id or 0, res.org_id, res.resource_name, res.model_name, res.brand_name, res.enabled, res
    )


def login_panels(ctx: AppContext) -> list[ResourceSummary]:
    """The panels of the login result (the service's own list), logging in if not yet done."""
    session = ctx.client.session or ctx.client.login()
    return [r for r in session.resources or [] if r.resource_id is not None]


def cached_panels(ctx: AppContext, text: str, org_id: int | None) -> list[PanelRow]:
    try:
        return find_panels(ctx.db(), text=text, org_id=org_id, limit=50)
    except (sqlite3.Error, OSError, RuntimeError) as err:  # unreadable, unsynced or newer: ask the service
        log.warning("cache lookup of panels failed: %s", err)
        return []


def resolve_panels(ctx: AppContext, text: str, org_id: int | None) -> list[PanelRef]:
    """Every panel `text` may mean (an id, or part of a name); an exact name or id wins outright."""
    wanted = text.strip()
    rows = cached_panels(ctx, wanted, org_id)
    refs = [_from_row(r) for r in rows]
    if not refs:
        try:
            summaries = login_panels(ctx)
        except SamError as err:
            log.warning("login resources unavailable: %s", err)
            summaries = []
        lowered = wanted.lower()
        refs = [
            _from_summary(s)
            for s in summaries
            if (org_id is None or s.org_id == org_id)
            and (str(s.resource_id) == wanted or lowered in (s.resource_name or "").lower())
        ]
    exact = [r for r in refs if str(r.resource_id) == wanted or (r.name or "").lower() == wanted.lower()]
    return exact or refs


def not_one_panel(wanted: str, refs: list[PanelRef]) -> Reply:
    """The answer when `wanted` means no panel, or several: say so, listing the candidates by id."""
    if not refs:
        return Reply(text=f"Not found: no panel named like `{escape(wanted)}`.")
    lines = [f"• `{r.resource_id}` {escape(r.name or '')} (org {r.org_id})" for r in refs[:20]]
    heading = f"{len(refs)} panels match `{escape(wanted)}`; say which by id:"
    text = heading + "\n" + join_lines(lines, total=len(refs))
    return Reply(text=text, blocks=[section(text)])


def summary_for(ctx: AppContext, resource_id: int) -> ResourceSummary | None:
    try:
        return next((s for s in login_panels(ctx) if s.resource_id == resource_id), None)
    except SamError:
        return None
