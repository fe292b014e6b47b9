"""`make screenshots`: the README's pictures, taken afresh from the product as it is today.

It runs `samops up` on the embedded simulator in a throwaway folder on free loopback ports, tries the README's
first write through the bot (`samops slash`, so the Audit page has rows) and its walk of a fire alarm from
its console card to resolved as a false alarm (`samops slash --click`, so the False alarms page counts it),
waits for the first sync and for one alarm whose keyholder line is read, then:
- opens every page of dashboard/pages.py in Debian's headless chromium at 1280 px (`dashboard-<page>.png`);
- draws one real alarm's card with the notifier's own drawing (`bot.cards.draw_alarm`: priority, buttons,
  keyholder line, action plan) in Slack's layout, since no Slack workspace is reachable from here
  (`alarm-card.png`).
Each picture is cut to 256 colours (Pillow, already a dependency of Streamlit), which keeps it small.
It writes docs/images/screenshots.json, the list of pages pictured: tests/docs/test_screenshots.py fails when
that list and the dashboard's pages differ, so a page added or renamed asks for `make screenshots` again.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
from PIL import Image
from playwright.sync_api import Page, sync_playwright

from bot import cards
from bot.render.common import Rendered
from core.alarms import Alarm
from core.cache import get_alarm, open_cache
from core.config import SamopsConfig
from core.read import AlarmFilter, UsersZones, console_cards, recent_alarms
from dashboard.pages import PAGES, PageSpec
from tests.support.browser import WAIT_MS, launch
from tests.support.processes import ROOT, ctrl_c, free_port, samops_cmd, samops_free_env, wait_http

IMAGES = ROOT / "docs" / "images"
MANIFEST = IMAGES / "screenshots.json"
CARD_IMAGE = "alarm-card.png"
WIDTH = 1280
HEIGHT = 900
READY_S = 240  # the first sync, then the history thread's first keyholder reads (0.2 requests/s per org)


def pictured(spec: PageSpec) -> dict[str, str]:
    """A page as the manifest lists it: its title, the path it opens at, and its picture."""
    path = "/" if spec.default else f"/{spec.url_path}"
    name = "overview" if spec.default else spec.url_path
    return {"title": spec.title, "path": path, "image": f"dashboard-{name}.png"}


def dashboard_pages() -> list[dict[str, str]]:
    """Every page of the sidebar (the hidden second Overview is the same page)."""
    return [pictured(spec) for spec in PAGES if not spec.hidden]


# Writes a newcomer tries first (README), so that the Audit page has rows: one done (exit 0), one refused to
# a viewer (exit 2); then the README's walk of an alarm from its console card to resolved with a disposition,
# so that the False alarms page counts one (`{card}`: the card the notifier printed for the alarm made here,
# a P1 fire alarm, whose default action plan's mandatory step is the third).
TRIED: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("U_SAMOPS_CLI", ("/sam task update 100201 org:1002", "--submit", "dates=2027-06-01"), 0),
    ("U0VIEWER", ("/sam task update 100202 org:1002", "--submit", "dates=2027-06-01"), 2),
    ("U_SAMOPS_CLI", ("--click", "{card}", "Acknowledge"), 0),
    ("U_SAMOPS_CLI", ("--click", "{card}", "Done: step 3"), 0),
    ("U_SAMOPS_CLI", ("--click", "{card}", "Resolve", "--submit", "disposition=false_user_error",
                      "note=the cleaner's code"), 0),
)  # fmt: skip
FIRE = {"resourceId": 100101, "count": 1, "violationType": "alarm", "violationName": "Fire alarm"}


@contextmanager
def product(folder: Path) -> Iterator[tuple[str, Path]]:
    """`samops up` on the embedded simulator in `folder`, with the README's first writes tried through the
    bot (`samops slash`); yields the dashboard's URL and the cache file."""
    data = folder / "data"
    sim, bot, dashboard = (str(free_port()) for _ in range(3))
    env = samops_free_env(PYTHONPATH=str(ROOT), SAMOPS_DATA_DIR=str(data), SAMOPS_BOT_PORT=bot)
    command = samops_cmd("up", "--sim-port", sim, "--bot-port", bot, "--dashboard-port", dashboard)
    log = folder / "up.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=folder, env=env, stdout=out, stderr=out)
    try:
        base = f"http://127.0.0.1:{dashboard}"
        wait_http(f"{base}/_stcore/health", proc, timeout=READY_S)
        wait_http(f"http://127.0.0.1:{bot}/healthz", proc, timeout=READY_S)
        card = console_card(f"http://127.0.0.1:{sim}", log, data / "cache.db")
        for user, args, code in TRIED:
            argv = [arg.format(card=card) for arg in args]
            slash = samops_cmd("slash", "--as", user, *argv)
            done = subprocess.run(slash, cwd=folder, env=env, capture_output=True, text=True, timeout=120)
            if done.returncode != code:
                raise SystemExit(f"samops slash {argv} as {user}: exit {done.returncode}\n{done.stdout}")
        yield base, data / "cache.db"
    except BaseException:
        print(log.read_text(errors="replace")[-3000:], file=sys.stderr)
        raise
    finally:
        ctrl_c(proc)


def console_card(sim: str, log: Path, db_path: Path) -> str:
    """The reference of the card the notifier prints for a fire alarm made once it watches (README)."""
    deadline = time.monotonic() + READY_S
    while "watching for alarms" not in log.read_text(errors="replace"):
        if time.monotonic() > deadline:
            raise SystemExit("the notifier did not start watching in time: no alarm walked")
        time.sleep(1)
    [made] = httpx.post(f"{sim}/_sim/activities", json=FIRE, timeout=10).json()
    while True:
        db = open_cache(db_path)
        try:
            found = [c.ref for c in console_cards(db) if c.event_id == made["eventId"]]
        finally:
            db.close()
        if found:
            return found[0]
        if time.monotonic() > deadline:
            raise SystemExit("the fire alarm's card was not printed in time: no alarm walked")
        time.sleep(1)


# --- the dashboard -----------------------------------------------------------------------------------------


def shoot_page(page: Page, url: str, title: str, out: Path) -> None:
    page.goto(url)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text(title, exact=False).first.wait_for(state="visible", timeout=WAIT_MS)
    # The status widget shows while the page's script runs; then let the charts finish their transition.
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden", timeout=WAIT_MS)
    page.wait_for_timeout(1500)
    failed = page.locator('[data-testid="stException"]').count()
    if failed or "Traceback" in page.content():
        raise SystemExit(f"{url} shows an error: not pictured")
    page.screenshot(path=str(out))


# --- the card ----------------------------------------------------------------------------------------------

# The machine that takes the pictures has no emoji font: Slack's emoji are drawn as DejaVu symbols.
EMOJI = {
    ":red_circle:": "<b style='color:#D0021B'>●</b>",
    ":large_yellow_circle:": "<b style='color:#F5C400'>●</b>",
    ":white_circle:": "<b style='color:#9B9B9B'>○</b>",
    ":key:": "<b style='color:#B8860B'>⚷</b>",
    ":no_entry_sign:": "<b style='color:#D0021B'>⊘</b>",
    ":hourglass:": "⌛",
    ":hourglass_flowing_sand:": "⌛",
    ":warning:": "<b style='color:#E8A300'>⚠</b>",
    ":alarm_clock:": "<b style='color:#D0021B'>◷</b>",
    ":clipboard:": "▤",
    ":white_check_mark:": "<b style='color:#2EB67D'>✔</b>",
    ":white_large_square:": "☐",
    ":construction:": "<b style='color:#E8A300'>⚠</b>",
}


def mrkdwn(text: str) -> str:
    text = html.escape(text, quote=False)
    text = re.sub(r":[a-z][a-z0-9_+-]*:", lambda m: EMOJI.get(m.group(0), ""), text)  # not 12:05:00
    text = re.sub(r"&lt;(https?://[^|&]+)\|([^&]+)&gt;", r"<a>\2</a>", text)
    text = re.sub(r"&lt;@([A-Z0-9_]+)&gt;", r"<a>@\1</a>", text)
    text = re.sub(r"\*([^*\n]+)\*", r"<b>\1</b>", text)
    text = re.sub(r"(?<!\w)_([^_\n]+)_(?!\w)", r"<i>\1</i>", text)
    text = re.sub(r"`([^`\n]+)`", r"<code>\1</code>", text)
    return text.replace("\n", "<br>")


def element_html(element: dict[str, Any]) -> str:
    if element["type"] == "button":
        return f"<span class='btn {element.get('style', '')}'>{html.escape(element['text']['text'])}</span>"
    if "placeholder" in element:
        return f"<span class=btn>{html.escape(element['placeholder']['text'])} ▾</span>"
    if element["type"] == "overflow":
        return "<span class=btn>⋯</span>"
    return ""


def block_html(block: dict[str, Any]) -> str:
    kind = block["type"]
    if kind == "section":
        text = mrkdwn(block["text"]["text"]) if "text" in block else ""
        fields = "".join(f"<div>{mrkdwn(f['text'])}</div>" for f in block.get("fields", []))
        accessory = element_html(block["accessory"]) if "accessory" in block else ""
        grid = f"<div class=fields>{fields}</div>" if fields else ""
        return f"<div class=section><div>{text}{grid}</div>{accessory}</div>"
    if kind == "context":
        return "<p class=ctx>" + " ".join(mrkdwn(e.get("text", "")) for e in block["elements"]) + "</p>"
    if kind == "actions":
        return "<div class=actions>" + "".join(element_html(e) for e in block["elements"]) + "</div>"
    if kind == "divider":
        return "<hr>"
    return ""


def card_page(attachment: dict[str, Any], posted: str) -> str:
    body = "".join(block_html(b) for b in attachment["blocks"])
    return f"""<html><head><meta charset=utf-8><style>
    body {{ font: 15px/1.45 Lato, 'Liberation Sans', 'DejaVu Sans', sans-serif; margin: 0; color: #1d1c1d; }}
    #message {{ width: 760px; padding: 16px 20px; }}
    .who {{ font-weight: 900; }} .when {{ color: #616061; font-size: 12px; margin-left: 6px; }}
    .app {{ background: #ddd; color: #555; font-size: 10px; font-weight: 700; padding: 1px 3px;
            border-radius: 2px; margin-left: 4px; }}
    .att {{ border-left: 4px solid {attachment["color"]}; padding: 2px 12px; margin-top: 6px; }}
    .section {{ display: flex; justify-content: space-between; gap: 12px; margin: 6px 0; }}
    .fields {{ display: grid; grid-template-columns: 1fr 1fr; gap: 6px 16px; margin: 8px 0; }}
    .ctx {{ color: #616061; font-size: 13px; margin: 6px 0; }}
    a {{ color: #1264a3; }}
    code {{ color: #e01e5a; background: #f6f6f6; border: 1px solid #e8e8e8; border-radius: 3px;
            padding: 0 3px; font-size: 12px; }}
    .btn {{ display: inline-block; white-space: nowrap; border: 1px solid #bbb; border-radius: 4px;
            padding: 3px 11px; margin: 0 8px 8px 0; font-weight: 700; font-size: 13px; height: fit-content; }}
    .primary {{ background: #007a5a; color: white; border-color: #007a5a; }}
    .danger {{ color: #e01e5a; border-color: #e01e5a; }}
    </style></head><body><div id=message><span class=who>samops</span><span class=app>APP</span>
    <span class=when>{html.escape(posted)}</span><div class=att>{body}</div></div></body></html>"""


Drawn = tuple[Alarm, Rendered, ZoneInfo]


def alarm_cards(db_path: Path) -> list[Drawn]:
    """The newest alarms' cards as the notifier draws them (bot/cards.py), newest first."""
    config = SamopsConfig()
    db = open_cache(db_path)
    try:
        notify = config.notify.reading_users_zones(UsersZones(lambda: db))
        drawing = cards.Drawing(
            db,
            notify.zone_for,
            cards.data_as_of(db),
            "http://127.0.0.1:8501",
            config.priority_book(),
            plans=config.plan_book(),
        )
        drawn: list[Drawn] = []
        for row in recent_alarms(db, AlarmFilter(violation_type="alarm"), limit=50):
            alarm = get_alarm(db, row.event_id)
            if alarm is not None:
                drawn.append((alarm, cards.draw_alarm(drawing, alarm), notify.zone_for(alarm.org_id)))
        return drawn
    finally:
        db.close()


def card_of_a_real_alarm(db_path: Path, deadline: float) -> tuple[dict[str, Any], str]:
    """The newest alarm's card, preferring one whose keyholder line is read (the history thread reads
    authorizations a while after the first alarms); its attachment and the time it was posted."""
    while True:
        drawn = alarm_cards(db_path)
        read = [d for d in drawn if "not read yet" not in json.dumps(d[1].attachments)]
        if read or (drawn and time.monotonic() > deadline):
            alarm, rendered, zone = (read or drawn)[0]
            posted = datetime.fromtimestamp(alarm.activity_time / 1000, zone).strftime("%H:%M")
            return rendered.attachments[0], posted
        if time.monotonic() > deadline:
            raise SystemExit("no alarm reached the cache in time: no card pictured")
        time.sleep(5)


# --- pictures ----------------------------------------------------------------------------------------------


def small(path: Path) -> None:
    """256 colours, as PNG allows: a screen's flat colours lose nothing a reader sees."""
    with Image.open(path) as image:
        quantized = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    quantized.save(path, optimize=True)


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    pages = dashboard_pages()
    with tempfile.TemporaryDirectory(prefix="samops-shots-") as tmp, product(Path(tmp)) as (base, db_path):
        attachment, posted = card_of_a_real_alarm(db_path, time.monotonic() + READY_S)
        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
                for listed in pages:
                    shoot_page(page, base + listed["path"], listed["title"], IMAGES / listed["image"])
                card_html = Path(tmp) / "card.html"
                card_html.write_text(card_page(attachment, posted), encoding="utf-8")
                page.goto(card_html.as_uri())
                page.locator("#message").screenshot(path=str(IMAGES / CARD_IMAGE))
            finally:
                browser.close()
    for name in [p["image"] for p in pages] + [CARD_IMAGE]:
        small(IMAGES / name)
        print(f"{IMAGES / name}: {(IMAGES / name).stat().st_size // 1024} KB")
    manifest = {"pages": pages, "card": CARD_IMAGE}
    MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(MANIFEST)


if __name__ == "__main__":
    main()
