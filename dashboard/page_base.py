"""Tell Streamlit's browser code where the server is, so a tab opened at a page's URL connects at once.

Opened at `/alarms`, Streamlit's frontend cannot tell a page's name from a base path, so it first asks
`/alarms/_stcore/health`, gets a 404, waits 100 ms and only then asks `/_stcore/health`
(streamlit/streamlit#7074, open as an enhancement): 0.15-0.2 s of every tab opened from a link (a Slack
card's), 18 % of a bare page's whole opening on the development machine. The frontend's own hint for it is
`window.__streamlit.BACKEND_BASE_URL`, read when its code starts; Streamlit has no setting for it. This
middleware writes that hint into the page's HTML: the URL without its last segment when that segment is one of
the dashboard's pages, so a path prefix added by a reverse proxy is kept. Any other URL gets no hint, and
Streamlit's own probing.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_HINT = """<script>(() => {{
  const pages = {pages}, path = location.pathname.replace(/\\/+$/, ""), last = path.split("/").pop();
  const base = location.origin + path.slice(0, -last.length);
  if (pages.includes(last)) window.__streamlit = {{BACKEND_BASE_URL: base}};
}})();</script>"""
# Headers that no longer hold once the page is changed: its length, its encoding, and its validators (a
# browser revalidating a page it got with the hint would otherwise be told that the file is unchanged).
_STALE = (b"content-length", b"content-encoding", b"etag", b"last-modified")


def hint(pages: Iterable[str]) -> bytes:
    return _HINT.format(pages=json.dumps(sorted(pages))).encode()


class PageBaseHint:
    """ASGI middleware: the hint goes at the top of the `<head>` of every HTML page answered to a GET
    (Streamlit's index.html, which it serves for every page's URL)."""

    def __init__(self, app: ASGIApp, pages: Iterable[str]) -> None:
        self.app = app
        self.hint = hint(pages)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        start: list[Message] = []  # the held back start of an HTML page
        body: list[bytes] = []

        async def rewrite(message: Message) -> None:
            if message["type"] == "http.response.start" and _is_page(message):
                start.append(message)
            elif not start:
                await send(message)
            elif message["type"] == "http.response.body":
                body.append(message.get("body", b""))
                if not message.get("more_body"):
                    await self._send_page(start[0], b"".join(body), send)

        await self.app(scope, receive, rewrite)

    async def _send_page(self, start: Message, page: bytes, send: Send) -> None:
        headers = list(start.get("headers", []))
        if (b"content-encoding", b"gzip") in headers:  # Streamlit's gzip middleware sits inside this one
            page = gzip.decompress(page)
        page = page.replace(b"<head>", b"<head>" + self.hint, 1)
        kept = [(k, v) for k, v in headers if k.lower() not in _STALE]
        await send({**start, "headers": [*kept, (b"content-length", str(len(page)).encode())]})
        await send({"type": "http.response.body", "body": page})


def _is_page(start: Message) -> bool:
    headers = dict(start.get("headers", []))
    return start.get("status") == 200 and headers.get(b"content-type", b"").startswith(b"text/html")
