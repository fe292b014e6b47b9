"""Operation 1: POST /auth/login."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from simulator.routes.common import parse, store_of
from simulator.schemas import Login

router = APIRouter()


@router.post("/auth/login")
async def login(request: Request) -> JSONResponse:
    body = await parse(request, Login)
    # Rendered here, before anything else runs: the result shares the store's panel records.
    return JSONResponse(store_of(request).login(body.screenName, body.password))
