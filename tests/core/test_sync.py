"""The sync against real simulators over loopback HTTP, into a real cache file."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core.cache.db import open_cache
from core.cli import sync as cli_sync
from core.client import SamClient
from core.settings import Settings
from core.sqlite_lib import sqlite_utils
from core.sync import SyncOptions, SyncReport, run_sync
from tests.support.narrow import known
from tests.support.processes import ROOT, Simulator, free_port, run_simulator, samops_cmd


def settings_for(sim: Simulator, **overrides: object) -> Settings:
    return Settings(base_url=sim.base_url, _env_file=None, **overrides)


def sync(db: sqlite_utils.Database, sim: Simulator, **options: object) -> SyncReport:
    with SamClient(settings_for(sim)) as client:
        return run_sync(db, client, SyncOptions(**options))  # type: ignore[arg-type]


def service_counts(sim: Simulator) -> dict[str, int]:
    """What the service serves to the demo user, counted through the client and /_sim."""
    with SamClient(settings_for(sim)) as client:
        login = client.login()
        orgs = login.organization_id_list()
        panels = [r for r in login.resources or []]
        sensors = sum(
            len(client.list_panel_sensors(known(r.resource_id), org=r.org_id).sensors or []) for r in panels
        )
        controllers = sum(
            len(client.list_panel_controllers(known(r.resource_id), org=r.org_id)) for r in panels
        )
        cameras = sum(len(client.list_cameras(org=o)) for o in orgs)
        me = known(login.user_id)
        users = {u.user_id for o in orgs for u in client.list_organization_users(me, org=o)}
    activities = [a for a in httpx.get(f"{sim.root_url}/_sim/activities").json() if a["orgId"] in orgs]
    return {
        "organizations": len(orgs),
        "panels": len(panels),
        "sensors": sensors,
        "controllers": controllers,
        "cameras": cameras,
        "users": len(users),
        "activities": len(activities),
        "push_history": sum(1 for a in activities if a["eventType"] != "event"),
    }


def cache_counts(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in TABLES}
    finally:
        conn.close()


TABLES = (
    "organizations",
    "panels",
    "sensors",
    "controllers",
    "cameras",
    "users",
    "activities",
    "push_history",
)


def snapshot(db: sqlite_utils.Database) -> dict[str, list[tuple[object, ...]]]:
    return {
        t: db.execute(f'SELECT * FROM "{t}" ORDER BY 1').fetchall() for t in (*TABLES, "controller_values")
    }


@pytest.fixture(scope="module")
def own_simulator() -> Iterator[Simulator]:
    """A simulator of this module's own, for tests that change the service's data (each compares the cache
    with what the service serves at that moment, so they may share it)."""
    with run_simulator("--alarm-rate", "0", "--panels", "10") as sim:
        yield sim


def test_cache_counts_match_the_service_and_a_second_run_changes_nothing(
    simulator: Simulator, tmp_path: Path
) -> None:
    path = tmp_path / "cache.db"
    db = open_cache(path)
    first = sync(db, simulator)
    assert first.ok, first.errors
    expected = service_counts(simulator)
    assert cache_counts(path) == expected
    assert db.execute("SELECT count(*) FROM controller_values").fetchone()[0] > 0
    before = snapshot(db)

    second = sync(db, simulator)

    assert second.ok and snapshot(db) == before
    states = {
        r[0]: r[1:] for r in db.execute("SELECT table_name, last_success, last_error, rows FROM sync_state")
    }
    assert states["activities"] == (second.started_at, None, expected["activities"])
    # Secrets of the login and of the cameras never reach the file.
    raw = path.read_bytes() + path.with_name("cache.db-wal").read_bytes()
    for secret in (b"securityCode", b"ncCode", b"mqPassword", b"pinCode"):
        assert secret not in raw


def test_incremental_sync_fetches_only_from_the_cursor(own_simulator: Simulator, tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    assert sync(db, own_simulator).ok
    total = db["activities"].count
    cursor = db.execute("SELECT cursor FROM sync_state WHERE table_name = 'activities'").fetchone()[0]
    panel = db.execute("SELECT resource_id FROM panels ORDER BY resource_id LIMIT 1").fetchone()[0]
    injected = httpx.post(
        f"{own_simulator.root_url}/_sim/activities",
        json={"resourceId": panel, "count": 5, "violationType": "alarm"},
    ).json()

    report = sync(db, own_simulator, overlap_ms=60_000)

    assert report.ok
    assert db["activities"].count == total + 5
    new = {r[0] for r in db.execute("SELECT event_id FROM activities WHERE resource_id = ?", [panel])}
    assert {a["eventId"] for a in injected} <= new
    # Only the window from the last cursor (minus the overlap) was asked for, not the history again.
    orgs = {r[0] for r in db.execute("SELECT id FROM organizations")}
    recent = httpx.get(f"{own_simulator.root_url}/_sim/activities", params={"since": cursor - 60_000}).json()
    assert report.rows["activities"] == len([a for a in recent if a["orgId"] in orgs]) < total


def test_full_sync_drops_what_the_service_deleted(own_simulator: Simulator, tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    assert sync(db, own_simulator).ok
    with SamClient(settings_for(own_simulator)) as client:
        login = client.login()
        org = login.organization_id_list()[0]
        me = known(login.user_id)
        victim = next(
            known(u.user_id) for u in client.list_organization_users(me, org=org) if u.user_id != me
        )
        assert client.delete_user(victim, org=org).success is not False
    users_before = db["users"].count

    assert sync(db, own_simulator).ok
    assert db["users"].count == users_before  # an incremental sync keeps what it does not see

    report = sync(db, own_simulator, full=True)

    assert report.ok
    assert db.execute("SELECT count(*) FROM users WHERE user_id = ?", [victim]).fetchone()[0] == 0
    assert cache_counts(tmp_path / "cache.db") == service_counts(own_simulator)
    assert report.deleted["users"] >= 1


def test_errors_are_recorded_and_repeated_runs_converge(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    db = open_cache(path)
    with run_simulator("--alarm-rate", "0", "--panels", "10", "--error-rate", "0.2") as sim:
        reports = []
        with SamClient(settings_for(sim, max_retries=0)) as client:
            for attempt in range(10):
                reports.append(run_sync(db, client, SyncOptions(full=attempt % 2 == 1)))
                if attempt >= 3 and reports[-1].ok:
                    break
        httpx.post(f"{sim.root_url}/_sim/faults", json={"errorRate": 0})
        expected = service_counts(sim)
    failed = next(r for r in reports if not r.ok)
    assert failed.errors
    errors = db.execute("SELECT last_error FROM sync_state WHERE last_error IS NOT NULL").fetchall()
    # Each names what failed: a panel's or an organization's fetch, or the login.
    assert errors and all(re.match(r"(\w+ of (panel|org) \d+|login): ", e[0]) for e in errors), errors
    assert cache_counts(path) == expected


def test_kill_9_mid_sync_then_resume_converges(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    with run_simulator("--alarm-rate", "0", "--panels", "12", "--latency-ms", "150") as sim:
        db = open_cache(path)
        assert sync(db, sim).ok
        before = snapshot(db)
        for rid in (r[0] for r in db.execute("SELECT resource_id FROM panels LIMIT 3")):
            httpx.post(f"{sim.root_url}/_sim/activities", json={"resourceId": rid, "count": 20})

        env = {**os.environ, "SAM_BASE_URL": sim.base_url, "SAMOPS_DB": str(path)}
        cmd = samops_cmd("sync", "--concurrency", "2")
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        assert proc.stderr is not None
        for line in proc.stderr:  # mid-run: some fetches done, not all
            if b"fetched" in line and b"fetched 1/" not in line:
                break
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()

        # The file is sound and every table whole: as the first run left it, or as a finished run leaves it.
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        after_kill = snapshot(db)

        assert sync(db, sim).ok
        assert cache_counts(path) == service_counts(sim)
        final = snapshot(db)
        for table, rows in after_kill.items():
            assert rows in (before[table], final[table]), table
        assert after_kill["activities"] == before["activities"]  # killed early: activities come late


def test_cli_sync_once(simulator: Simulator, tmp_path: Path) -> None:
    env = {**os.environ, "SAM_BASE_URL": simulator.base_url}
    db = tmp_path / "sub" / "c.db"
    done = subprocess.run(
        samops_cmd("sync", "--once", "--db", str(db)), cwd=ROOT, env=env, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    assert b"synced" in done.stderr and b"Traceback" not in done.stderr
    assert cache_counts(db)["panels"] > 0


@pytest.mark.parametrize(
    "argv", [["--concurrency", "0"], ["--once", "--every", "5"], ["--every", "soon"], ["--bogus"]]
)
def test_cli_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli_sync.main(argv)
    assert exit_.value.code == 2
    assert "usage: samops sync" in capsys.readouterr().err


def test_cli_against_a_dead_service_exits_1_and_records_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAM_BASE_URL", f"http://127.0.0.1:{free_port()}/api")
    monkeypatch.setenv("SAM_MAX_RETRIES", "0")
    db = tmp_path / "c.db"
    assert cli_sync.main(["--db", str(db)]) == 1
    conn = sqlite3.connect(db)
    error = conn.execute("SELECT last_error FROM sync_state WHERE table_name = 'activities'").fetchone()[0]
    assert error.startswith("login:")


def test_cli_refuses_a_cache_from_a_newer_samops(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = open_cache(tmp_path / "c.db")
    db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    db.conn.commit()
    assert cli_sync.main(["--db", str(tmp_path / "c.db")]) == 1
    assert "newer" in capsys.readouterr().err


def test_cli_every_syncs_again_until_interrupted(
    simulator: Simulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAM_BASE_URL", simulator.base_url)
    naps: list[float] = []

    def sleep(seconds: float) -> None:
        naps.append(seconds)
        if len(naps) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(cli_sync.time, "sleep", sleep)
    assert cli_sync.main(["--every", "30", "--db", str(tmp_path / "c.db"), "--concurrency", "3"]) == 0
    assert len(naps) == 2 and all(0 < n <= 30 for n in naps)  # two runs, each followed by a wait
    assert cache_counts(tmp_path / "c.db")["panels"] > 0
