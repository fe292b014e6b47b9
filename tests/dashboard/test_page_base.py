"""A tab opened at a page's URL connects to the server at once (dashboard/page_base.py): the page's HTML
carries Streamlit's own base-URL hint, so the frontend no longer asks `/alarms/_stcore/health` first, gets a
404 and waits (streamlit/streamlit#7074)."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright
from starlette.types import Message, Receive, Scope, Send

from core.clock import now_ms
from dashboard import alarm_table
from dashboard.page_base import PageBaseHint, hint
from dashboard.pages import URL_PATHS
from tests.dashboard.test_dashboard_browser import dashboard
from tests.support.browser import WAIT_MS, launch
from tests.support.seed_cache import seed_cache

PAGE = b"<!DOCTYPE html><html><head><title>x</title></head><body></body></html>"


def served(
    status: int,
    content_type: bytes,
    body: bytes,
    method: str = "GET",
    extra: tuple[tuple[bytes, bytes], ...] = (),
) -> tuple[Message, bytes]:
    """What the middleware sends for one response of the app inside it (Streamlit's static files)."""

    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()), *extra]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        half = len(body) // 2  # in two parts, as a file is streamed
        await send({"type": "http.response.body", "body": body[:half], "more_body": True})
        await send({"type": "http.response.body", "body": body[half:]})

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request"}

    scope: Scope = {"type": "http", "method": method, "path": "/alarms", "headers": []}
    asyncio.run(PageBaseHint(inner, pages=URL_PATHS)(scope, receive, send))
    return sent[0], b"".join(m.get("body", b"") for m in sent[1:])


def test_the_hint_goes_at_the_top_of_an_html_page_with_its_length_and_no_stale_validators() -> None:
    start, body = served(200, b"text/html; charset=utf-8", PAGE, extra=((b"etag", b'"1"'),))
    assert body == PAGE.replace(b"<head>", b"<head>" + hint(URL_PATHS))
    headers = dict(start["headers"])
    assert headers[b"content-length"] == str(len(body)).encode() and b"etag" not in headers


def test_a_gzipped_page_is_sent_unzipped_with_the_hint() -> None:
    start, body = served(200, b"text/html", gzip.compress(PAGE), extra=((b"content-encoding", b"gzip"),))
    assert body.startswith(b"<!DOCTYPE html><html><head><script>") and b"content-encoding" not in dict(
        start["headers"]
    )


@pytest.mark.parametrize(
    ("status", "content_type", "method"),
    [(200, b"application/javascript", "GET"), (304, b"text/html", "GET"), (200, b"text/html", "HEAD")],
)
def test_anything_else_passes_unchanged(status: int, content_type: bytes, method: str) -> None:
    start, body = served(status, content_type, PAGE, method=method)
    assert body == PAGE and start["status"] == status


@pytest.mark.browser
def test_a_tab_at_a_page_asks_the_server_s_own_health_first_and_nothing_elsewhere(tmp_path: Path) -> None:
    """Nothing elsewhere either: no favicon from fonts.gstatic.com, no metrics config (dashboard/app.py)."""
    seeded = seed_cache(tmp_path / "cache.db", now_ms())
    with dashboard(seeded.path) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page()
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url.removeprefix(base)))
        page.goto(f"{base}/alarms?range=all")
        page.locator(f'table[aria-label="{alarm_table.LABEL}"] td').first.wait_for(timeout=WAIT_MS)
        assert page.evaluate("window.__streamlit.BACKEND_BASE_URL") == f"{base}/"
        page.wait_for_timeout(1000)  # the favicon is set once the page is drawn
        assert "/_stcore/health" in asked and not any(a.startswith("/alarms/") for a in asked), asked
        assert all(a.startswith("/") or a.startswith("data:") for a in asked), asked  # only the dashboard
        browser.close()
