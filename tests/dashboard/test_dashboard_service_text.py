"""Issue 26, item 5: the dashboard never renders the service's text as markup.

A panel's name, brand, model or sensor type, a camera's name and the service's error message (the "Sync
failing" banner) are what an installer or the service typed. They are written into a real cache through the
cache's own writes, and every page is opened in Streamlit's AppTest: no element whose body Streamlit reads as
markdown may hold that text but through `dashboard.markup.literal`, the pages' one escaping function. What
`literal` makes of any text is checked against a CommonMark parser and against the patterns Streamlit's own
markdown plugins look for in parsed text. In Debian's chromium, no request leaves for an injected image URL
and no injected link is live.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from markdown_it import MarkdownIt
from playwright.sync_api import sync_playwright
from streamlit.testing.v1 import AppTest

from core.cache import writes
from core.cache.db import open_cache
from core.text import LINK_BREAK, visible
from dashboard.data import one_line
from dashboard.markup import literal
from tests.dashboard.test_dashboard_browser import dashboard
from tests.dashboard.test_dashboard_hostile import MARKDOWN_KINDS, ErrorLog, assert_clean, errors, use_cache
from tests.support.apptest import run_page
from tests.support.browser import launch, shows
from tests.support.processes import free_port
from tests.support.seed_cache import ORGS, Seeded, seed_cache

__all__ = ["errors"]  # the fixture, shared with the URL's hostile-input tests

PANEL = 5001
CAMERA = PANEL + 900
SENSOR_ID = 9_999_001
PAGES = {
    "overview": ("views/overview.py", {}),
    "alarms": ("views/alarms.py", {"panel": str(PANEL)}),
    "cameras": ("views/cameras.py", {}),
    "panels": ("views/panels.py", {"panel": str(PANEL)}),
    "handling": ("views/handling.py", {}),
    "audit": ("views/audit.py", {}),
}
MARK = "⁂"  # never on a page by itself: where it shows, the service's text shows
HOSTILE = (
    f"{MARK}![p](http://127.0.0.1:9/p.png) [x](http://127.0.0.1:9/l) <img src=http://127.0.0.1:9/i.png> "
    ":red[**boom**] $x^2$ :smile: :material/home: :streamlit: -> www.evil.example a@evil.example # h | a |"
)
# Markdown, Streamlit's additions to it, links and layout: the pieces hostile text is made of.
PIECES = [
    "![p](http://127.0.0.1:9/p.png)", "[x](http://127.0.0.1:9/l)", "<http://127.0.0.1:9/a>",
    "<img src=http://127.0.0.1:9/i.png>", "<b>", ":red[", "]", "**", "_", "`", "$", "$$", ":smile:", ":+1:",
    ":material/home:", ":streamlit:", ":small[x]", "->", "<-", "--", ">=", "~=", "www.", "evil.example",
    "a@b.example", "http://", "# ", "> ", "1. ", "- ", "| a |", "\\", "&amp;", "&#35;", "\n", "\t", "    ",
    "\x00", "\u202e", "x", " ",
]  # fmt: skip
hostile_text = hs.lists(hs.sampled_from(PIECES), min_size=1, max_size=12).map(lambda p: MARK + "".join(p))

# What Streamlit's markdown finds in the text a parser leaves (its remark plugins and GFM's autolinks, which
# look at parsed text, where a backslash no longer counts): none of it may be in what `literal` gives.
AFTER_PARSING = re.compile(
    r":[\w+-]+:"  # emoji shortcodes, :material_icon:, :streamlit:
    r"|(?:^|\s)(?:<->|->|<-|--|>=|<=|~=)(?:\s|$)"  # the arrows and signs it types for you
    r"|https?://|www(?=\.)|[-.\w+]+@[-\w]+(?:\.[-\w]+)+"  # GFM's bare URLs and e-mail addresses
)
commonmark = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def now_ms() -> int:
    return int(time.time() * 1000)


def rendered_text(markdown: str) -> str:
    """What a reader sees of `markdown` (CommonMark): its text, tags removed, the invisible breaks too."""
    return html.unescape(re.sub(r"<[^>]+>", "", commonmark.render(markdown))).replace(LINK_BREAK, "")


# --- the escaping function ---------------------------------------------------------------------------------


@settings(max_examples=500, deadline=None, derandomize=True, database=None)
@given(hs.one_of(hostile_text, hs.text(max_size=60)))
def test_fuzz_literal_is_shown_as_the_text_it_is(text: str) -> None:
    source = literal(text)
    out = commonmark.render(source)
    # One paragraph of text, or nothing: no link, image, emphasis, code, heading, list, table or HTML.
    assert out == "" or (out.startswith("<p>") and out.endswith("</p>\n") and "<" not in out[3:-5]), out
    shown = html.unescape(out[3:-5]).replace(LINK_BREAK, "")
    flat = visible(re.sub(r"[ \t\r\n\f\v]+", " ", text))  # layout as a browser shows it: one space
    assert shown.strip() == flat.replace(LINK_BREAK, "").strip()  # a paragraph's edges are trimmed
    assert not AFTER_PARSING.search(html.unescape(out[3:-5])), out
    assert "$" not in source.replace("\\$", "")  # maths needs a bare $; every one is escaped


# --- every page, over a cache holding hostile text ---------------------------------------------------------


def write_hostile(path: Path, text: str) -> None:
    """`text` as the service could send it: panel 5001's name, brand, model and a sensor type, a camera's
    name, and the error of a failing sync, through the cache's own writes."""
    db = open_cache(path)
    with writes.write_transaction(db):
        panel = {"resourceId": PANEL, "orgId": ORGS[0][0], "resourceName": text, "modelName": text,
                 "brandName": text, "enabled": True, "resourceType": "panel"}  # fmt: skip
        writes.upsert_dicts(db, "panels", [writes.panel_row(panel)], "resource_id")
        sensor = {"id": SENSOR_ID, "sensorId": 99, "orderNo": 0, "sensorName": text, "description": text}
        writes.upsert_dicts(
            db, "sensors", writes.sensor_rows({"type": text, "sensors": [sensor]}, PANEL), "id"
        )
        camera = {"resourceId": CAMERA, "orgId": ORGS[0][0], "name": text, "brand": text}
        writes.upsert_dicts(db, "cameras", [writes.camera_row(camera, ORGS[0][0])], "resource_id")
        db.execute(
            "UPDATE sync_state SET last_error = ?, last_error_at = ? WHERE table_name = 'panels'",
            [text, now_ms()],  # after the seed's last success: failing since
        )
    db.conn.close()
    streamlit.cache_data.clear()


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    seeded = seed_cache(tmp_path_factory.mktemp("service-text") / "cache.db", now_ms())
    with use_cache(seeded.path):
        yield seeded


def markdown_bodies(at: AppTest) -> list[str]:
    """Everything on the page Streamlit reads as markdown: element bodies, and metric, expander and widget
    labels."""
    bodies = [str(e.value) for kind in MARKDOWN_KINDS for e in getattr(at, kind)]
    bodies += [str(m.label) for m in at.metric] + [str(e.label) for e in at.expander]
    for kind in ("selectbox", "text_input", "toggle", "button"):
        bodies += [str(w.label) for w in getattr(at, kind)]
    return bodies


def assert_shown_as_text(at: AppTest, text: str) -> None:
    """The service's `text` is in no markdown body but escaped by `literal`, and no body makes a link or an
    image; the banner says the sync fails, with the service's message in it."""
    escaped = sorted({literal(t) for t in (text, one_line(text), text.capitalize())}, key=len, reverse=True)
    for body in markdown_bodies(at):
        rest = body
        for piece in escaped:
            rest = rest.replace(piece, "")
        assert MARK not in rest, body  # every piece of it went through `literal`
        out = commonmark.render(body)
        assert "<a " not in out and "<img" not in out, out
    banner = " ".join(rendered_text(e.value) for e in at.error)
    assert "Sync failing" in banner and MARK in banner


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_shows_hostile_service_text_as_text(page: str, cache: Seeded, errors: ErrorLog) -> None:
    write_hostile(cache.path, HOSTILE)
    script, query = PAGES[page]
    at = run_page(script, query)
    assert_clean(at, errors)
    assert_shown_as_text(at, HOSTILE)
    if page == "panels":
        assert at.header[0].value == literal(HOSTILE)
        assert any(literal(HOSTILE) in c.value for c in at.caption)  # brand and model
        assert HOSTILE in at.selectbox(key="panels_panel").format_func(PANEL)  # an option: plain text


@settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(page=hs.sampled_from(["panels", "overview"]), text=hostile_text)
def test_fuzz_pages_over_hostile_service_text(cache: Seeded, errors: ErrorLog, page: str, text: str) -> None:
    write_hostile(cache.path, text)
    script, query = PAGES[page]
    at = run_page(script, query)
    assert_clean(at, errors)
    assert_shown_as_text(at, text)


# --- in the browser ----------------------------------------------------------------------------------------


@pytest.mark.browser
def test_the_browser_fetches_nothing_and_links_nothing_from_service_text(tmp_path: Path) -> None:
    seeded = seed_cache(tmp_path / "cache.db", now_ms())
    trap = str(free_port())  # nothing listens there; any request to it is the failure
    text = (
        f"{MARK}![p](http://127.0.0.1:{trap}/p.png) [live](http://127.0.0.1:{trap}/l) "
        f"http://127.0.0.1:{trap}/bare :red[**boom**]"
    )
    write_hostile(seeded.path, text)
    with dashboard(seeded.path) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        bodies = []
        for url, landmark in (
            (f"{base}/panels?panel={PANEL}", "Who can operate it now"),
            (f"{base}/overview", "Noisiest panels"),
            (f"{base}/cameras", "Problems only"),
        ):
            page.goto(url)
            shows(page, landmark)
            shows(page, "Sync failing")
            page.wait_for_timeout(1000)  # an image would be fetched as soon as it is drawn
            content = page.content()
            assert not [a for a in re.findall(r'(?:href|src)="[^"]*"', content) if f":{trap}" in a]
            assert "boom</strong>" not in content and "<strong>boom" not in content
            bodies.append(page.inner_text("body").replace(LINK_BREAK, ""))
        browser.close()
    assert not [url for url in requested if f":{trap}" in url], requested
    assert text in bodies[0]  # the panel's name, as the text it is
    assert all(text in body for body in bodies)  # the banner carries it on every page
