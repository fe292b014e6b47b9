"""Issue 12, items 4 and 5: the dashboard treats the URL as hostile.

Every query parameter is parsed and bounded, a bad one falls back to its default with a small notice, user
text is never rendered as markdown, a failing page shows a reference instead of a traceback, search text is
cleaned of control characters, and the host check takes IPv6 literals. Pages run through Streamlit's AppTest
over a real cache file; the browser tests drive the real server in Debian's chromium.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlencode

import httpx
import pytest
import streamlit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from playwright.sync_api import sync_playwright
from streamlit.testing.v1 import AppTest

from core import read
from core.cache.db import open_reader
from dashboard import auth, cli, filters
from tests.dashboard.test_dashboard_browser import dashboard
from tests.support.apptest import run_page
from tests.support.browser import launch, shows
from tests.support.html_table import alarms_table
from tests.support.processes import ROOT, free_port, samops_cmd, stop, wait_http
from tests.support.seed_cache import Seeded, seed_cache

PAGES = {
    "overview": "views/overview.py",
    "alarms": "views/alarms.py",
    "cameras": "views/cameras.py",
    "panels": "views/panels.py",
}
HUGE = "99999999999999999999999"
MARKDOWN = "![x](http://127.0.0.1:9/x.png) [live](http://127.0.0.1:9/l) :red[**boom**] <b>bold</b> $x^2$"
# Elements whose text Streamlit renders as markdown: user text must never be in one.
MARKDOWN_KINDS = (
    "title",
    "header",
    "subheader",
    "markdown",
    "caption",
    "info",
    "warning",
    "error",
    "success",
)


def now_ms() -> int:
    return int(time.time() * 1000)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    seeded = seed_cache(tmp_path_factory.mktemp("hostile") / "cache.db", now_ms())
    with use_cache(seeded.path):
        yield seeded


@contextlib.contextmanager
def use_cache(path: Path) -> Iterator[None]:
    """SAMOPS_DB for the pages, set for the whole module (hypothesis runs many examples per test)."""
    before = os.environ.get("SAMOPS_DB")
    password = os.environ.pop(auth.PASSWORD_ENV, None)
    os.environ["SAMOPS_DB"] = str(path)
    streamlit.cache_data.clear()
    try:
        yield
    finally:
        streamlit.cache_data.clear()
        if before is None:
            os.environ.pop("SAMOPS_DB", None)
        else:
            os.environ["SAMOPS_DB"] = before
        if password is not None:
            os.environ[auth.PASSWORD_ENV] = password


class ErrorLog(logging.Handler):
    """Every record at ERROR or above, from any logger, while installed."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def errors() -> Iterator[ErrorLog]:
    handler = ErrorLog()
    logging.getLogger().addHandler(handler)
    try:
        yield handler
    finally:
        logging.getLogger().removeHandler(handler)


def rendered_as_markdown(at: AppTest) -> str:
    return "\n".join(str(e.value) for kind in MARKDOWN_KINDS for e in getattr(at, kind))


def everything(at: AppTest) -> str:
    return rendered_as_markdown(at) + "\n" + "\n".join(str(e.value) for e in at.text)


def assert_clean(at: AppTest, errors: ErrorLog) -> None:
    assert not at.exception, [e.message for e in at.exception]
    shown = everything(at)
    assert "Traceback" not in shown and "Something went wrong" not in shown, shown
    assert not errors.records, [r.getMessage() for r in errors.records]


# --- oversized ids: a notice and the default, not a traceback ---------------------------------------------


@pytest.mark.parametrize("page", ["alarms", "panels", "cameras"])
def test_an_id_beyond_int64_falls_back_with_a_notice(page: str, cache: Seeded, errors: ErrorLog) -> None:
    at = run_page(PAGES[page], {"panel": HUGE, "org": HUGE})
    assert_clean(at, errors)
    notices = [c.value for c in at.caption if "The link's" in c.value]
    assert notices and all("is not an id" in n for n in notices)
    assert HUGE not in rendered_as_markdown(at)  # the notice names the parameter, never echoes the value
    if page == "alarms":
        shown = alarms_table(at)  # all alarms, as by default
        assert at.selectbox(key="alarms_panel").value is None and shown is not None and len(shown)
        assert "panel" not in at.query_params  # the URL now says what is shown


@pytest.mark.parametrize(
    "value",
    ["0", "-5", " 12", "1_000", "+7", "١٢", "²", str(2**63), "1e3", "0x10", "5003.0", "5003\x00"],
)
def test_only_positive_int64_ascii_ids_parse(value: str) -> None:
    if value == " 12":
        assert filters.identifier(value) == (12, None)  # surrounding blanks are forgiven
        return
    with pytest.raises(ValueError, match="is not an id"):
        filters.identifier(value)


def test_the_largest_int64_id_is_an_id_that_matches_nothing(cache: Seeded, errors: ErrorLog) -> None:
    at = run_page(PAGES["alarms"], {"panel": str(2**63 - 1)})
    assert_clean(at, errors)
    assert at.selectbox(key="alarms_panel").value == 2**63 - 1
    assert at.info[0].value == "No alarms match these filters."


def test_panels_search_by_huge_or_odd_digits(cache: Seeded, errors: ErrorLog) -> None:
    for q in (HUGE, "²", "9" * 5000):
        at = run_page(PAGES["panels"], {"q": q})
        assert_clean(at, errors)
        assert at.info[-1].value == "No panel matches this search."


# --- enums and flags ---------------------------------------------------------------------------------------


def test_bad_choices_and_flags_fall_back_with_a_notice(cache: Seeded, errors: ErrorLog) -> None:
    at = run_page(PAGES["alarms"], {"type": "<script>", "range": "3y"})
    assert_clean(at, errors)
    assert at.selectbox(key="alarms_type").value is None and at.selectbox(key="alarms_range").value == "7d"
    notices = " ".join(c.value for c in at.caption)
    assert "`type` value is not one of alarm" in notices and "`range` value is not one of 1h" in notices
    assert "<script>" not in notices

    at = run_page(PAGES["alarms"], {"type": "ALARM", "range": "24H"})  # case does not matter
    assert (
        at.selectbox(key="alarms_type").value == "alarm" and at.selectbox(key="alarms_range").value == "24h"
    )

    at = run_page(PAGES["cameras"], {"problems": "maybe"})
    assert_clean(at, errors)
    assert at.toggle(key="cameras_problems").value is False
    assert "`problems` value is neither true nor false" in rendered_as_markdown(at)
    for word, expected in (("0", False), ("off", False), ("TRUE", True), ("1", True)):
        assert run_page(PAGES["cameras"], {"problems": word}).toggle(key="cameras_problems").value is expected


def test_an_organization_not_in_the_cache_is_said_and_dropped(cache: Seeded, errors: ErrorLog) -> None:
    at = run_page(PAGES["cameras"], {"org": "4242"})
    assert_clean(at, errors)
    assert at.selectbox(key="cameras_org").value is None
    assert "Organization 4242 is not in the cache" in rendered_as_markdown(at)


def test_a_panel_not_in_the_cache_is_said(cache: Seeded, errors: ErrorLog) -> None:
    at = run_page(PAGES["panels"], {"panel": "4242"})
    assert_clean(at, errors)
    assert "Panel 4242 is not in the cache." in rendered_as_markdown(at)
    assert at.selectbox(key="panels_panel").value in cache.panels  # the first panel instead


# --- text: never markdown, cleaned, bounded ----------------------------------------------------------------


def test_search_text_is_shown_as_plain_text_never_markdown(cache: Seeded, errors: ErrorLog) -> None:
    at = run_page(PAGES["alarms"], {"q": MARKDOWN})
    assert_clean(at, errors)
    assert at.text_input(key="alarms_text").value == MARKDOWN
    assert any(MARKDOWN in t.value for t in at.text)  # shown, as st.text
    shown = rendered_as_markdown(at)
    for piece in ("![x]", "http://127.0.0.1:9", ":red[", "<b>"):
        assert piece not in shown


def test_control_characters_are_removed_and_text_is_capped(cache: Seeded, errors: ErrorLog) -> None:
    at = run_page(PAGES["alarms"], {"q": "Fi\x00re\x07"})
    assert_clean(at, errors)
    assert at.text_input(key="alarms_text").value == "Fire"
    assert "`q` value had control characters, which were removed" in rendered_as_markdown(at)
    fires = alarms_table(at)
    assert fires is not None and len(fires) > 0 and {"Fire"} == set(fires["Violation"])

    at = run_page(PAGES["cameras"], {"q": "x" * 5000})
    assert_clean(at, errors)
    assert at.text_input(key="cameras_text").value == "x" * filters.TEXT_MAX
    assert f"was cut to {filters.TEXT_MAX} characters" in rendered_as_markdown(at)


def test_a_nul_byte_in_search_text_no_longer_matches_every_alarm(cache: Seeded) -> None:
    # SQLite reads a LIKE pattern as a C string: "%\x00no such text%" was "%", which matches every row.
    db = open_reader(cache.path)
    try:
        for text in ("\x00no such text", "no such\x00 text", "\x00"):
            cleaned = read.clean_text(text)
            got = read.recent_alarms(db, read.AlarmFilter(text=text), 1000)
            assert got == read.recent_alarms(db, read.AlarmFilter(text=cleaned or None), 1000)
        assert read.recent_alarms(db, read.AlarmFilter(text="\x00no such text")) == []
        assert read.count_alarms(db, read.AlarmFilter(text="\x00no such text")) == 0
        assert read.camera_summary(db, text="\x00zz-no-camera") == []
        assert read.find_panels(db, "\x00zz-no-panel") == []
        fires = read.recent_alarms(db, read.AlarmFilter(text="fire"), 1000)
        assert fires and read.recent_alarms(db, read.AlarmFilter(text="fi\x00re\t"), 1000) == fires
    finally:
        db.conn.close()


# --- the error boundary ------------------------------------------------------------------------------------


def test_a_failing_page_shows_a_reference_and_logs_the_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A real fault, not a mock: a cache whose cameras table lost a column the read API asks for.
    seeded = seed_cache(tmp_path / "cache.db", now_ms())
    with sqlite3.connect(seeded.path) as conn:
        conn.execute("ALTER TABLE cameras RENAME COLUMN ability TO gone")
    with use_cache(seeded.path), caplog.at_level(logging.ERROR, logger="dashboard.boundary"):
        at = run_page(PAGES["cameras"], {})
    assert not at.exception
    message = " ".join(e.value for e in at.error)
    found = re.search(r"Something went wrong while showing .*\. Reference (R-[0-9A-F]{6})", message)
    assert found, message
    assert "Traceback" not in everything(at) and "no such column" not in everything(at)
    logged = [r for r in caplog.records if found.group(1) in r.getMessage()]
    assert logged and logged[0].levelno == logging.ERROR and logged[0].exc_info is not None
    assert "no such column: ability" in str(logged[0].exc_info[1])


def test_streamlit_itself_shows_no_error_details() -> None:
    cmd = cli.streamlit_command("127.0.0.1", 8600)
    assert cmd[cmd.index("--client.showErrorDetails") + 1] == "none"


# --- the fuzz: any query parameters on any page ------------------------------------------------------------

MARK = "⁂"  # never on a page by itself: where it shows, user text shows
hostile_text = hs.text(
    alphabet=hs.sampled_from(list("*_`[]()!:<>#$\\|~-=+.%&/?@ \x00\x07\x1b\n\t\u202eaZ9²٣⁂")),
    max_size=40,
).map(lambda t: MARK + t)
numbers = hs.one_of(
    hs.integers(min_value=-(2**70), max_value=2**70).map(str),
    hs.sampled_from([HUGE, "0", "-1", "5003", "1001", "²", "1e9", "0x1F", "", " "]),
)
values = hs.one_of(hostile_text, numbers, hs.sampled_from(["alarm", "ALARM", "7d", "30D", "true", "nope"]))
OWNED = {
    "overview": set(),
    "alarms": {"org", "panel", "type", "range", "q"},
    "cameras": {"org", "q", "problems"},
    "panels": {"q", "panel"},
}
queries = hs.dictionaries(hs.sampled_from(["org", "panel", "type", "range", "q", "problems", "x"]), values)


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(page=hs.sampled_from(list(PAGES)), query=queries)
def test_fuzz_query_parameters(cache: Seeded, errors: ErrorLog, page: str, query: dict[str, str]) -> None:
    at = run_page(PAGES[page], query)
    assert_clean(at, errors)
    assert MARK not in rendered_as_markdown(at)
    # What the URL says afterwards is bounded too: each page writes its own filters back (the overview has
    # none and leaves the URL alone).
    url = {name: value for name, value in at.query_params.items() if name in OWNED[page]}
    for name in ("org", "panel"):
        if name in url:
            assert 1 <= int(url[name]) <= 2**63 - 1
    if "q" in url:
        q = url["q"]
        assert len(q) <= filters.TEXT_MAX and q == read.clean_text(q)


# --- the host check ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "bare", "loopback"),
    [
        ("[::1]", "::1", True),
        ("::1", "::1", True),
        (" [::1] ", "::1", True),
        ("::ffff:127.0.0.1", "::ffff:127.0.0.1", True),
        ("[::ffff:127.0.0.1]", "::ffff:127.0.0.1", True),
        ("[::]", "::", False),
        ("[fe80::1]", "fe80::1", False),
        ("127.0.0.1", "127.0.0.1", True),
        ("localhost", "localhost", True),
    ],
)
def test_ipv6_literals_with_and_without_brackets(host: str, bare: str, loopback: bool) -> None:
    assert auth.bind_host(host) == bare
    assert auth.is_loopback(host) is loopback


@pytest.mark.parametrize("host", ["[::1", "::1]", "[127.0.0.1]", "[]", "[[::1]]", "", "  "])
def test_malformed_hosts_are_usage_errors(host: str) -> None:
    assert not auth.is_loopback(host)
    with pytest.raises(ValueError):
        auth.bind_host(host)
    done = subprocess.run(
        samops_cmd("dashboard", "--host", host, "--port", "8599"),
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != auth.PASSWORD_ENV},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "usage: samops dashboard" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_dashboard_serves_on_bracketed_ipv6_loopback(tmp_path: Path) -> None:
    db = seed_cache(tmp_path / "cache.db", now_ms()).path
    port = free_port()
    proc = subprocess.Popen(
        samops_cmd("dashboard", "--host", "[::1]", "--port", str(port), "--db", str(db)),
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != auth.PASSWORD_ENV},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_http(f"http://[::1]:{port}/_stcore/health", proc, timeout=90)
        assert httpx.get(f"http://[::1]:{port}/_stcore/health", timeout=10).status_code == 200
    finally:
        stop(proc, timeout=15)
        assert proc.stdout is not None
        output = proc.stdout.read().decode()
    assert f"http://[::1]:{port}" in output and "Traceback" not in output


# --- in the browser ----------------------------------------------------------------------------------------


@pytest.mark.browser
def test_the_browser_neither_renders_nor_fetches_user_markdown(tmp_path: Path) -> None:
    db = seed_cache(tmp_path / "cache.db", now_ms()).path
    trap = free_port()  # nothing listens there; any request to it is the failure
    text = f"![x](http://127.0.0.1:{trap}/x.png) [live](http://127.0.0.1:{trap}/l) :red[**boom**]"
    with dashboard(db) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(f"{base}/alarms?{urlencode({'q': text})}")
        shows(page, "When alarms happen")
        shows(page, text)  # the literal text is on the page
        html = page.content()
        assert not [url for url in requested if f":{trap}" in url]
        assert f'href="http://127.0.0.1:{trap}' not in html and f'src="http://127.0.0.1:{trap}' not in html
        assert "boom</strong>" not in html and "<strong>boom" not in html
        page.goto(f"{base}/alarms?panel={HUGE}")
        shows(page, "When alarms happen")
        shows(page, "The link's panel value is not an id")
        huge = page.inner_text("body")
        page.goto(f"{base}/panels?panel={HUGE}&q={quote('²')}")
        shows(page, "No panel matches this search.")
        panels = page.inner_text("body")
        browser.close()
    assert not [url for url in requested if f":{trap}" in url]
    for body in (huge, panels):
        assert "Traceback" not in body and "Error" not in body
