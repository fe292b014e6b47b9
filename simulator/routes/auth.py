"""Operation 1: POST /auth/login."""

from __future__ import annotations

from fastapi import APIRouter, Request

from simulator.data import Record
from simulator.routes.common import parse, store_of
from simulator.schemas import Login

router = APIRouter()


@router.post("/auth/login")
async def login(request: Request) -> Record:
    body = await parse(request, Login)
    return store_of(request).login(body.screenName, body.password)
