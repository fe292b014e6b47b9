"""What every operation shares: the authenticated caller and its organization, and body parsing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, TypeVar

from fastapi import Depends, Path, Query, Request
from pydantic import BaseModel, ValidationError

from simulator.data import Record
from simulator.errors import ApiError, not_found, validation_error
from simulator.schemas import INT64_MAX, INT64_MIN
from simulator.store import Store

M = TypeVar("M", bound=BaseModel)
ORG_ID = re.compile(r"[0-9]{1,18}")
# Ids in paths and numbers in query strings are int64s, as in bodies: bigger ones are a 400 naming them.
PathId = Annotated[int, Path(ge=INT64_MIN, le=INT64_MAX)]
QueryInt = Annotated[int | None, Query(ge=INT64_MIN, le=INT64_MAX)]


@dataclass(frozen=True)
class Caller:
    user: Record
    org: int


def store_of(request: Request) -> Store:
    return request.app.state.store


def caller(request: Request) -> Caller:
    """Dependency: a valid bearer token (else 401) and an OrganizationId of the caller's (else 404)."""
    return resolve_caller(
        store_of(request), request.headers.get("authorization"), request.headers.get("organizationid")
    )


# The caller every route but login takes: its bearer token checked (`caller`).
Auth = Annotated[Caller, Depends(caller)]


def resolve_caller(store: Store, authorization: str | None, organization_id: str | None) -> Caller:
    """The caller of a request from its two headers (as latin-1 text), or the ApiError to answer."""
    header = authorization or ""
    scheme, _, token = header.partition(" ")
    if not header:
        raise ApiError(401, "Authorization: header required")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "Authorization: expected 'Bearer <ACCESS_TOKEN>'")
    user = store.authenticate(token.strip())
    if organization_id is None:
        raise ApiError(400, "OrganizationId: header required")
    # ASCII digits only ("²".isdigit() is true), and no longer than an int64.
    if not ORG_ID.fullmatch(organization_id.strip()):
        raise ApiError(400, "OrganizationId: must be a decimal organization id")
    org = int(organization_id.strip())
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
