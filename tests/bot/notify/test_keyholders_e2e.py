"""Keyholder context on alarm cards (issue 23 item 5), through `samops notify` as a real process on the
spec-exact simulator with the Slack stand-in, at the default paces: the privilege windows are set through
operation 4 in the organization's zone (Europe/Istanbul); an alarm on a panel whose keyholder is inside her
window shows "During the access window of …: possibly a user error", one on a panel whose users are all
outside theirs shows "Outside every authorized user's window". The authorizations are read again only after
`SAMOPS_KEYHOLDER_TTL`, and the organization's requests all told stay within 1 per second."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest

from core.client import SamClient
from core.clock import DAY_MS
from core.settings import Settings
from simulator.data import PRIVILEGE_GROUPS
from tests.bot.notify.test_history_e2e import polled
from tests.bot.notify.test_keyholders import card_texts
from tests.bot.notify.test_notify_e2e import notify_env, run_notify, wait_until
from tests.support.cache_files import connect as connect_cache
from tests.support.narrow import known
from tests.support.processes import Simulator, run_simulator
from tests.support.slack_standin import SlackStandIn

ISTANBUL = ZoneInfo("Europe/Istanbul")
CONFIG = '[notify]\ndefault_channel = "C_ALARMS"\ntimezone = "Europe/Istanbul"\n'
TTL_S = 40  # SAMOPS_KEYHOLDER_TTL, short so that the test sees a second read


@dataclass(frozen=True)
class Site:
    org: int
    inside: int  # a panel whose first user may operate it all of today and tomorrow (Istanbul)
    keyholder: str  # that user's name, as operation 2 gives it
    outside: int  # a panel whose users may operate it only on another day of the week
    orgs: int  # organizations the demo account sees


def days_from_today(n: int) -> int:
    return (datetime.now(ISTANBUL) + timedelta(days=n)).isoweekday()


def prepare(sim: Simulator) -> Site:
    with SamClient(Settings(_env_file=None, base_url=sim.base_url)) as client:
        login = client.login()
        org = known(next(r.org_id for r in login.resources or [] if r.org_id is not None))
        pairs = [
            p for p in client.get_organization_users(org=org) if len(p.resource_user_response_list or []) >= 2
        ]
        users_of = {
            known(p.resource_id): {known(u.user_id) for u in p.resource_user_response_list or []}
            for p in pairs
        }
        # The keyholder: a user of one panel; the other panel is one she is not authorized on.
        inside, first, outside = next(
            (a, user, b)
            for a in pairs
            for user in sorted(users_of[known(a.resource_id)])
            for b in pairs
            if user not in users_of[known(b.resource_id)]
        )
        elsewhere = users_of[known(outside.resource_id)]
        every = [{"privilegeGroupId": g["id"], "authorized": True} for g in PRIVILEGE_GROUPS]
        none = [{"privilegeGroupId": g["id"], "authorized": False} for g in PRIVILEGE_GROUPS]

        def grant(user: int, panel: int, groups: list[dict], days: list[int]) -> None:
            client.set_user_privileges(
                user_id=user, authorized_resource_ids=[panel], privilege_groups=groups,
                organization_id=org, period=[{"dayOfWeek": d, "start": 0, "end": DAY_MS} for d in days],
                expiration_time=0, validity_start=0, org=org,
            )  # fmt: skip

        grant(first, known(inside.resource_id), every, [days_from_today(0), days_from_today(1)])
        for user in elsewhere:  # authorized in full, three days from now only
            grant(user, known(outside.resource_id), every, [days_from_today(3)])
        for user in users_of[known(inside.resource_id)] - elsewhere - {first}:
            grant(user, known(inside.resource_id), none, [])
        person = next(u for u in inside.organization_user_list or [] if u.user_id == first)
        name = " ".join(n for n in (person.first_name, person.middle_name, person.last_name) if n)
        orgs = {r.org_id for r in login.resources or [] if r.org_id is not None}
        return Site(org, known(inside.resource_id), name, known(outside.resource_id), len(orgs))


def inject(sim: Simulator, panel: int) -> str:
    body = {"resourceId": panel, "violationType": "alarm", "violationName": "Burglary alarm"}
    [activity] = httpx.post(f"{sim.root_url}/_sim/activities", json=body, timeout=10).json()
    return activity["eventId"]


def read_at(tmp_path: Path, panel: int) -> int | None:
    with contextlib.closing(connect_cache(tmp_path / "cache.db")) as conn, contextlib.suppress(sqlite3.Error):
        row = conn.execute("SELECT read_at FROM panel_access_reads WHERE resource_id = ?", [panel]).fetchone()
        return row[0] if row else None
    return None


@pytest.mark.slow  # a TTL of 40 s is waited out, at the default paces
def test_alarm_cards_show_the_keyholder_line_read_within_its_ttl_and_the_budget(tmp_path: Path) -> None:
    with (
        run_simulator("--alarm-rate", "0", "--panels", "6", "--history-days", "1", seed=13) as sim,
        SlackStandIn() as slack,
    ):
        site = prepare(sim)
        env = notify_env(tmp_path, sim, slack, CONFIG) | {"SAMOPS_KEYHOLDER_TTL": str(TTL_S)}
        with run_notify(tmp_path, env) as proc:
            wait_until(lambda: polled(tmp_path), 120, "the first poll")  # alarms before it are history
            httpx.post(f"{sim.root_url}/_sim/stats/reset", timeout=10).raise_for_status()
            started = time.monotonic()
            inside, outside = inject(sim, site.inside), inject(sim, site.outside)

            def shown(event_id: str) -> str | None:
                texts = card_texts(slack, event_id)  # as posted, then as each edit left it
                card = texts[-1] if texts else ""
                return card if "Keyholders:" in card and "not read yet" not in card else None

            in_card = wait_until(lambda: shown(inside), 60, "the keyholder line on the inside card")
            out_card = wait_until(lambda: shown(outside), 120, "the keyholder line on the outside card")
            first = known(read_at(tmp_path, site.inside))
            # Inside the TTL: not read again.
            time.sleep(max(0.0, (first / 1000 + TTL_S * 0.75) - time.time()))
            assert read_at(tmp_path, site.inside) == first
            # After it: read again, within a look of the history thread and the pace; the thread reads
            # authorizations when the week's backfill leaves it idle (about a minute for these panels).
            wait_until(
                lambda: (read_at(tmp_path, site.inside) or 0) > first, TTL_S + 60, "the read after the TTL"
            )
            stats = httpx.get(f"{sim.root_url}/_sim/stats", timeout=10).json()
            seconds = time.monotonic() - started
            assert proc.poll() is None
    assert f"During the access window of {site.keyholder} (" in in_card
    assert "00:00–24:00): possibly a user error" in in_card
    assert "Outside every authorized user's window" in out_card
    assert "possibly a user error" not in out_card
    logged = (tmp_path / "notify.log").read_text()
    assert "Traceback" not in logged and " ERROR " not in logged, logged
    # The idle budget: 1 request per second per organization, everything of samops notify included.
    per_org = stats["total"] / seconds / site.orgs
    assert per_org <= 1.0, (per_org, stats)
