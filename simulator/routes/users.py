"""Users, roles, privileges, panel users and device tokens: operations 2, 4, 10, 11, 12, 13, 15, 16, 21."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from simulator.data import Record
from simulator.routes.common import Auth, PathId, parse, store_of
from simulator.schemas import DeviceToken, PrivilegeUpdate, ResourceUserDelete, UserDelete

router = APIRouter()


@router.get("/enterprise/bulk/get-organization-users")
async def bulk_organization_users(request: Request, who: Auth) -> JSONResponse:
    # Rendered here (as login is): FastAPI's generic encoding of an organization's listing (~8 MB at 5,000
    # panels) blocked every other client of the event loop for seconds, far longer than a real service would.
    return JSONResponse(store_of(request).bulk_org_users(who.org))


@router.post("/user/privilege-groups-and-resources/add-or-update")
async def set_privileges(request: Request, who: Auth) -> list[Record]:
    body = await parse(request, PrivilegeUpdate)
    return store_of(request).set_privileges(who.org, body)


@router.delete("/resource/user/delete")
async def delete_resource_user(request: Request, who: Auth) -> Record:
    body = await parse(request, ResourceUserDelete)
    return store_of(request).delete_resource_user(who.org, body.resourceId, body.userId)


@router.delete("/user/delete")
async def delete_user(request: Request, who: Auth) -> Record:
    body = await parse(request, UserDelete)
    return store_of(request).delete_user(who.org, body.userId, who.user)


@router.get("/user/{userId}/organization-users")
async def organization_users(request: Request, userId: PathId, who: Auth) -> list[Record]:
    return store_of(request).org_users(who.org, userId, who.user)


@router.get("/user/email/{emailAddress}")
async def user_by_email(request: Request, emailAddress: str, who: Auth) -> Record:
    return store_of(request).user_by_email(who.org, emailAddress, who.user)


@router.get("/role/user/{userId}/privilege-groups")
async def user_privileges(request: Request, userId: PathId, who: Auth) -> Record:
    return store_of(request).user_privileges(who.org, userId)


@router.get("/role/{roleId}/privilege-groups")
async def role_privileges(request: Request, roleId: PathId, who: Auth) -> list[Record]:
    return store_of(request).role_privileges(who.org, roleId)


@router.post("/devicetoken/addorupdate")
async def device_token(request: Request, who: Auth) -> Record:
    body = await parse(request, DeviceToken)
    return store_of(request).device_token(who.org, body)
