"""The HTTP front of the bot: bolt's WSGI adapter on `/slack/events`, plus `GET /healthz`, on a threaded
stdlib server (one thread per request, so a slow request never holds up another's ack)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from socketserver import ThreadingMixIn
from typing import TYPE_CHECKING
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler

if TYPE_CHECKING:
    from wsgiref.types import StartResponse, WSGIEnvironment

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"


class ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # bursts of slash commands must queue, not be refused


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        log.debug("%s %s", self.address_string(), format % args)


def wsgi_app(app: App, path: str = EVENTS_PATH):  # type: ignore[no-untyped-def]
    slack = SlackRequestHandler(app, path=path)

    def application(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == "/healthz" and environ.get("REQUEST_METHOD") in {"GET", "HEAD"}:
            body = json.dumps({"status": "ok"}).encode()
            start_response(
                "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
            )
            return [body]
        return slack(environ, start_response)

    return application


def make_http_server(app: App, host: str, port: int) -> ThreadingWSGIServer:
    return make_server(
        host, port, wsgi_app(app), server_class=ThreadingWSGIServer, handler_class=QuietHandler
    )  # type: ignore[return-value]
