"""Draw an alarm card as Slack would show it, for the README.

Run: `.venv/bin/python docs/tools/alarm_card_image.py`.

It renders the real card (bot.render.alarms.alarm_card) to a small HTML page in Slack's layout and takes a
screenshot with Debian's chromium, since no Slack workspace is reachable from where the docs are built.
"""

from __future__ import annotations

import html
import re
import time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from playwright.sync_api import sync_playwright

from bot.render.alarms import alarm_card
from core.cache.outbox import Alarm

OUT = Path(__file__).resolve().parents[1] / "images" / "alarm-card.png"
# Drawn as coloured dots: the machine that builds the docs has no emoji font.
EMOJI = {
    ":red_circle:": "<span style='color:#D0021B'>●</span>",
    ":large_yellow_circle:": "<span style='color:#F5C400'>●</span>",
    ":white_circle:": "<span style='color:#9B9B9B'>●</span>",
}


def mrkdwn(text: str) -> str:
    text = html.escape(text, quote=False)
    for code, char in EMOJI.items():
        text = text.replace(code, char)
    text = re.sub(r"\*([^*\n]+)\*", r"<b>\1</b>", text)
    text = re.sub(r"`([^`\n]+)`", r"<code>\1</code>", text)
    return text.replace("\n", "<br>")


def block_html(block: dict[str, Any]) -> str:
    if block["type"] == "section":
        fields = "".join(f"<div>{mrkdwn(f['text'])}</div>" for f in block.get("fields", []))
        return f"<p>{mrkdwn(block['text']['text'])}</p><div class=fields>{fields}</div>"
    if block["type"] == "context":
        return "<p class=ctx>" + " ".join(mrkdwn(e.get("text", "")) for e in block["elements"]) + "</p>"
    if block["type"] == "actions":
        buttons = "".join(
            f"<span class='btn {e.get('style', '')}'>{html.escape(e['text']['text'])}</span>"
            for e in block["elements"]
            if e["type"] == "button"
        )
        menus = "".join(
            f"<span class=btn>{html.escape(e['placeholder']['text'])} ▾</span>"
            for e in block["elements"]
            if "placeholder" in e
        )
        return f"<div class=actions>{buttons}{menus}</div>"
    return ""


def page(attachment: dict[str, Any]) -> str:
    body = "".join(block_html(b) for b in attachment["blocks"])
    return f"""<html><head><meta charset=utf-8><style>
    body {{ font: 15px/1.45 -apple-system, 'Segoe UI', Lato, sans-serif; margin: 24px; color: #1d1c1d; }}
    .who {{ font-weight: 900; }} .when {{ color: #616061; font-size: 12px; margin-left: 6px; }}
    .att {{ border-left: 4px solid {attachment["color"]}; padding: 4px 12px; margin-top: 6px; width: 620px; }}
    .fields {{ display: grid; grid-template-columns: 1fr 1fr; gap: 8px; margin-bottom: 8px; }}
    .ctx {{ color: #616061; font-size: 13px; }}
    code {{ color: #e01e5a; background: #f6f6f6; padding: 1px 3px; }}
    .btn {{ display: inline-block; border: 1px solid #ccc; border-radius: 4px; padding: 4px 12px;
           margin: 0 8px 8px 0; font-weight: 700; font-size: 14px; }}
    .primary {{ background: #007a5a; color: white; border-color: #007a5a; }}
    </style></head><body><span class=who>samops</span><span class=when>APP  02:47</span>
    <div class=att>{body}</div></body></html>"""


def main() -> None:
    now = int(time.time() * 1000)
    alarm = Alarm(
        event_id="EV-100108-000029",
        resource_id=100108,
        org_id=1001,
        activity_time=now - 42_000,
        description="Burglary alarm on Nilufer Branch 8 - Hall PIR",
        event_type="violation",
        violation_name="Burglary alarm",
        violation_type="alarm",
        panel_name="Nilufer Branch 8",
    )
    card = alarm_card(alarm, ZoneInfo("Europe/Istanbul"), now - 20_000, "http://127.0.0.1:8501")
    source = OUT.with_suffix(".html")
    source.write_text(page(card.attachments[0]), encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        shot = browser.new_page(viewport={"width": 700, "height": 370})
        shot.goto(source.as_uri())
        shot.screenshot(path=str(OUT))
        browser.close()
    source.unlink()
    print(OUT)


if __name__ == "__main__":
    main()
