"""`/sam panel <resourceId | name>`: a panel's status, live from the service (operations 18, 14, 19, 3)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from bot.context import AppContext
from bot.forms.fields import looks_like_id, parse_id
from bot.live_budget import PANEL_COST
from bot.render.panels import FalseAlarmCount, PanelStatus, panel_blocks
from bot.slash.panels_lookup import PanelRef, not_one_panel, resolve_panels, summary_for
from bot.slash.registry import Invocation, Reply, UsageError, subcommand
from core import read
from core.clock import DAY_MS, now_ms
from core.models import Sensor

ACTIVITIES = 10
ACTIVITY_WINDOW_MS = 30 * DAY_MS  # how far back "the last 10 activities" may be
# The four calls of one panel run side by side; the pool is shared by every /sam panel in flight.
_POOL = ThreadPoolExecutor(max_workers=32, thread_name_prefix="panel")


def pick_panel(ctx: AppContext, inv: Invocation) -> PanelRef | Reply:
    """The one panel the words mean, or a Reply listing the candidates (or saying there are none)."""
    wanted = " ".join(inv.args).strip()
    if not wanted:
        raise UsageError("say which panel: its id or part of its name")
    if looks_like_id(wanted):
        resource_id = parse_id(wanted, "resourceId")
        refs = resolve_panels(ctx, str(resource_id), inv.org_id)
        return refs[0] if refs else PanelRef(resource_id, None, None)
    refs = resolve_panels(ctx, wanted, inv.org_id)
    return refs[0] if len(refs) == 1 else not_one_panel(wanted, refs)


def fetch_status(ctx: AppContext, ref: PanelRef, org: int | None) -> PanelStatus:
    client = ctx.client
    rid = ref.resource_id
    now = now_ms()
    sensors = _POOL.submit(client.list_panel_sensors, rid, org=org)
    controllers = _POOL.submit(client.list_panel_controllers, rid, org=org)
    values = _POOL.submit(client.list_controller_data_log, resource_id=rid, org=org)
    page = _POOL.submit(
        client.list_activities,
        [rid],
        page_size=ACTIVITIES,
        start_time=now - ACTIVITY_WINDOW_MS,
        end_time=now,
        org=org,
    )
    group = sensors.result()  # a 404 here means the panel does not exist: let it propagate first
    summary = ref.summary or summary_for(ctx, rid)
    by_type: dict[str, list[Sensor]] = {}
    for known in (summary.resource_sensors or []) if summary else []:
        if known.type and known.sensors:
            by_type[known.type] = list(known.sensors)
    by_type[group.type or "sensors"] = list(group.sensors or [])
    activity_page = page.result()
    activities = sorted(activity_page.activities or [], key=lambda a: a.activity_time or 0, reverse=True)
    return PanelStatus(
        resource_id=rid,
        name=ref.name or (summary.resource_name if summary else None),
        model=ref.model or (summary.model_name if summary else None),
        brand=ref.brand or (summary.brand_name if summary else None),
        enabled=ref.enabled if ref.enabled is not None else (summary.enabled if summary else None),
        org_id=org,
        sensors_by_type={k: v for k, v in by_type.items() if v},
        controllers=sorted(controllers.result(), key=lambda c: (c.order_no or 0, c.id or 0)),
        values=[v for v in values.result() if v.resource_id in (None, rid)],
        activities=activities[:ACTIVITIES],
        total_activities=activity_page.total_records,
        fetched_at=now_ms(),
    )


def with_false_alarms(ctx: AppContext, status: PanelStatus) -> PanelStatus:
    """The status with samops' own count of the panel's false alarms (`[false_alarms]` days)."""
    limits = ctx.config.false_alarms
    count = read.panel_false_alarms(ctx.db(), status.resource_id, now_ms(), limits.days)
    return replace(status, false_alarms=FalseAlarmCount(count, limits.days, limits.threshold))


@subcommand(
    "panel",
    usage="/sam panel <resourceId | name>",
    summary="a panel's status, live: sensors, controllers and values, last activities",
    examples=("/sam panel 100101", "/sam panel Warehouse"),
)
def panel_status(inv: Invocation, ctx: AppContext) -> Reply:
    picked = pick_panel(ctx, inv)
    if isinstance(picked, Reply):
        return picked
    # The service answers only within the organization asked about: use the panel's own when we know it.
    org = inv.org_id if inv.org_id is not None else picked.org_id
    if not ctx.live.take(org, PANEL_COST):
        return Reply(text=ctx.live.busy_text(org, PANEL_COST))
    status = with_false_alarms(ctx, fetch_status(ctx, picked, org))
    zone = ctx.reader_zones(inv.user_id)(status.org_id if status.org_id is not None else org)
    message = panel_blocks(status, zone)
    return Reply(text=message.text, blocks=message.blocks)
