"""Activity history and push notification history: operations 3 and 20."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from simulator.data import Record
from simulator.errors import ApiError
from simulator.routes.common import Auth, parse, store_of
from simulator.schemas import ActivityQuery, PushHistoryQuery

router = APIRouter()


def check_page(request: Request, page: int | None) -> None:
    first = store_of(request).first_page
    if page is not None and page < first:
        raise ApiError(400, f"page: must be {first} or more (pages start at {first})")


@router.post("/activities")
async def activities(request: Request, who: Auth) -> JSONResponse:
    body = await parse(request, ActivityQuery)
    check_page(request, body.page)
    return JSONResponse(store_of(request).activities(who.org, body))  # rendered here: see users.py


@router.post("/resource/pushnotification/history")
async def push_history(request: Request, who: Auth) -> list[Record]:
    body = await parse(request, PushHistoryQuery)
    check_page(request, body.page)
    return store_of(request).push_history(who.org, body)
