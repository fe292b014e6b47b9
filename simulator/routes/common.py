"""What every operation shares: the authenticated caller and its organization, and body parsing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TypeVar

from fastapi import Request
from pydantic import BaseModel, ValidationError

from simulator.data import Record
from simulator.errors import ApiError, not_found, validation_error
from simulator.store import Store

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Caller:
    user: Record
    org: int


def store_of(request: Request) -> Store:
    return request.app.state.store


def caller(request: Request) -> Caller:
    """Dependency: a valid bearer token (else 401) and an OrganizationId of the caller's (else 404)."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if not header:
        raise ApiError(401, "Authorization: header required")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "Authorization: expected 'Bearer <ACCESS_TOKEN>'")
    user = store_of(request).authenticate(token.strip())
    org_header = request.headers.get("organizationid")
    if org_header is None:
        raise ApiError(400, "OrganizationId: header required")
    if not org_header.strip().isdigit():
        raise ApiError(400, "OrganizationId: must be a decimal organization id")
    org = int(org_header)
    if org not in user["orgIds"]:
        raise not_found(f"OrganizationId {org}")
    return Caller(user=user, org=org)


async def parse(request: Request, model: type[M]) -> M:
    """The body as `model`, or 400 naming the offending field."""
    raw = await request.body()
    if not raw.strip():
        raise ApiError(400, "body: required")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise ApiError(400, "body: malformed JSON") from exc
    if not isinstance(data, dict):
        raise ApiError(400, "body: must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc) from exc
