"""Panels, sensors, controllers and cameras: operations 6, 9, 14, 17, 18, 19."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from simulator.data import Record
from simulator.routes.common import Auth, PathId, QueryInt, parse, store_of
from simulator.schemas import CameraAdd, SensorDescription

router = APIRouter()


@router.post("/camera/add")
async def add_camera(request: Request, who: Auth) -> Record:
    body = await parse(request, CameraAdd)
    return store_of(request).add_camera(who.org, body)


@router.put("/panel/sensor/{resourceSensorId}/update-description")
async def update_sensor_description(request: Request, resourceSensorId: PathId, who: Auth) -> Record:
    body = await parse(request, SensorDescription)
    return store_of(request).update_sensor(who.org, resourceSensorId, body.description)


@router.get("/panel/{resourceId}/controller/list")
async def controllers(request: Request, resourceId: PathId, who: Auth) -> list[Record]:
    return store_of(request).controllers(who.org, resourceId)


@router.get("/camera/list")
async def cameras(request: Request, who: Auth) -> JSONResponse:
    return JSONResponse(store_of(request).cameras(who.org))  # rendered here: see users.py


@router.get("/panel/{resourceId}/sensor/list")
async def sensors(request: Request, resourceId: PathId, who: Auth) -> Record:
    return store_of(request).sensors(who.org, resourceId)


@router.get("/activities/controller/list")
async def controller_log(
    request: Request,
    who: Auth,
    resourceId: QueryInt = None,
    startTime: QueryInt = None,
    endTime: QueryInt = None,
) -> list[Record]:
    return store_of(request).controller_log(who.org, resourceId, startTime, endTime)
