"""Scheduled tasks, bills and customers: operations 5, 7, 8."""

from __future__ import annotations

from fastapi import APIRouter, Request

from simulator.data import Record
from simulator.errors import ApiError
from simulator.routes.common import Auth, parse, store_of
from simulator.schemas import BillQuery, CustomerQuery, TaskUpdate

router = APIRouter()


@router.post("/enterprise/schedule/tasks/update")
async def update_task(request: Request, who: Auth) -> Record:
    body = await parse(request, TaskUpdate)
    return store_of(request).update_task(who.org, body)


@router.post("/subscription/bill")
async def bills(request: Request, who: Auth) -> list[Record]:
    body = await parse(request, BillQuery)
    return store_of(request).bills(who.org, body)


@router.post("/customer/phone")
async def customers(request: Request, who: Auth) -> list[Record]:
    body = await parse(request, CustomerQuery)
    if not body.phoneNumber and not body.identityNumber:
        raise ApiError(400, "phoneNumber: field required (or identityNumber)")
    return store_of(request).customers(who.org, body.phoneNumber, body.identityNumber)
