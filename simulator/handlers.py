"""Exception handlers: every failure, even unknown paths and wrong methods, answers the error body."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from simulator.errors import NAMES, ApiError, describe, error_body

log = logging.getLogger("simulator")


def error_response(status: int, error: str, message: str, path: str) -> JSONResponse:
    return JSONResponse(error_body(status, error, message, path), status_code=status)


def install_handlers(app: FastAPI) -> None:
    """Never HTML, plain text or a stack trace: always `{statusCode, error, message, path}`."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.error, exc.message, request.url.path)

    @app.exception_handler(RequestValidationError)
    async def _request_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(400, "VALIDATION_FAILED", describe(exc.errors()), request.url.path)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        status = exc.status_code
        if status == 404:
            message = f"no operation at {request.method} {request.url.path}"
        elif status == 405:
            message = f"method {request.method} is not allowed on {request.url.path}"
        else:
            message = str(exc.detail)
        return error_response(status, NAMES.get(status, "ERROR"), message, request.url.path)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected %s on %s %s", type(exc).__name__, request.method, request.url.path)
        return error_response(500, "INTERNAL", "internal error", request.url.path)
