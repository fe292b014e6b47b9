"""Test controls under /_sim: not part of the service, no auth, never faulted."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request

from simulator.data import Record
from simulator.routes.common import parse, store_of
from simulator.schemas import CameraControl, FaultSettings, Injection, LoginControl

router = APIRouter(prefix="/_sim")
HeldKind = Literal["task", "privileges", "camera", "sensor", "panel-users", "user"]


@router.post("/activities")
async def inject(request: Request) -> list[Record]:
    body = await parse(request, Injection)
    kind = None if body.violationType is None else body.violationType
    return store_of(request).add_activities(
        body.resourceId, body.count, kind, body.activityTime, body.violationName
    )


@router.post("/cameras/{rid}")
async def set_camera(request: Request, rid: int) -> Record:
    body = await parse(request, CameraControl)
    return store_of(request).set_camera(rid, body.status, body.enabled, body.name)


@router.post("/panels/{rid}/silence")
async def silence_panel(request: Request, rid: int) -> Record:
    return store_of(request).silence(rid)


@router.post("/panels/{rid}/report")
async def panel_reports(request: Request, rid: int) -> list[Record]:
    return store_of(request).report(rid)


@router.get("/activities")
async def all_activities(request: Request, since: int = 0) -> list[Record]:
    return store_of(request).all_activities(since)


@router.get("/requests")
async def requests(request: Request) -> list[Record]:
    return list(request.app.state.recorder.entries)


@router.get("/stats")
async def stats(request: Request) -> Record:
    return request.app.state.stats.as_dict()


@router.post("/stats/reset")
async def reset_stats(request: Request) -> Record:
    return request.app.state.stats.reset()


@router.post("/faults")
async def faults(request: Request) -> Record:
    body = await parse(request, FaultSettings)
    return request.app.state.faults.update(body)


@router.post("/logins")
async def logins(request: Request) -> Record:
    body = await parse(request, LoginControl)
    return store_of(request).refuse_logins(body.refuse)


@router.get("/customers")
async def customers(request: Request) -> list[Record]:
    return store_of(request).all_customers()


@router.get("/tasks")
async def tasks(request: Request) -> list[Record]:
    return store_of(request).tasks()


@router.get("/held/{kind}/{key}")
async def held(request: Request, kind: HeldKind, key: int) -> Record:
    """What the simulator holds for one record a write changes (read-only; simulator/README.md)."""
    return store_of(request).held(kind, key)


@router.get("/device-tokens")
async def device_tokens(request: Request) -> list[Record]:
    return store_of(request).device_tokens()
