"""`samops audit`'s options, as a real process over a real cache file: each is checked, a bad value gets a
usage error naming the option and what it takes (exit 2), and good ones filter."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from core.cache import audit
from core.cache.db import open_cache
from tests.support.processes import ROOT, samops_cmd


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("audit-cli") / "cache.db"
    db = open_cache(path)
    for n, (user, command, outcome) in enumerate([
        ("U_TECH", "alarm acknowledge EV-1", "ok"),
        ("U_VIEW", "alarm resolve EV-2", "denied"),
        ("U_TECH", "panel 999", "not found"),
    ]):  # fmt: skip
        audit.record(db, slack_user=user, command=command, outcome=outcome, summary=f"row {n}",
                     reference=f"R-CLI00{n}", at=1_795_000_000_000 + n)  # fmt: skip
    db.close()
    return path


def run(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "COLUMNS": "250"}
    return subprocess.run(samops_cmd("audit", "--db", str(cache), *args), cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env=env)  # fmt: skip


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--outcome", "bogus"), "argument --outcome: 'bogus' is not an outcome; choose from ok, failed,"),
        (("--outcome", ""), "argument --outcome: '' is not an outcome"),
        (("--user", "bob"), "argument --user: 'bob' is not a Slack user id"),
        (("--user", "U1;DROP"), "is not a Slack user id"),
        (("--command", "   "), "argument --command: give the first words of a command"),
        (("--command", "x" * 201), "argument --command: at most 200 characters"),
        (("--limit", "0"), "argument --limit/-n: must be between 1 and 10000"),
        (("--limit", "many"), "not a whole number"),
    ],
)
def test_a_bad_option_is_a_usage_error(cache: Path, args: tuple[str, ...], says: str) -> None:
    result = run(cache, *args)
    assert result.returncode == 2
    assert says in result.stderr and "usage: samops audit" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_good_options_filter(cache: Path) -> None:
    not_found = run(cache, "--outcome", "not-found")
    assert not_found.returncode == 0, not_found.stderr
    assert "R-CLI002" in not_found.stdout and "R-CLI000" not in not_found.stdout
    pasted = run(cache, "--user", "<@U_VIEW|viewer>")
    assert "R-CLI001" in pasted.stdout and "R-CLI000" not in pasted.stdout
    commands = run(cache, "--command", "alarm   acknowledge")
    assert "R-CLI000" in commands.stdout and "R-CLI001" not in commands.stdout
    nothing = run(cache, "--outcome", "unknown")
    assert nothing.returncode == 0 and "No audit rows match these filters." in nothing.stdout


def test_an_empty_log_is_not_called_filtered(tmp_path: Path) -> None:
    open_cache(tmp_path / "empty.db").close()
    result = run(tmp_path / "empty.db")
    assert result.returncode == 0 and "No audit rows yet." in result.stdout


@pytest.mark.parametrize(
    ("tz", "shown"),
    [
        ("UTC", "2026-11-18 11:06"),
        ("Europe/Istanbul", "2026-11-18 14:06"),
        ("America/Los_Angeles", "2026-11-18 03:06"),
    ],
)
def test_times_are_on_the_machines_clock_named_once(tmp_path: Path, tz: str, shown: str) -> None:
    """The console's reader is at the machine: its zone (TZ), named once in the header, whatever the row's
    organization and the config's zones (it showed each row in its organization's zone)."""
    path = tmp_path / "cache.db"
    db = open_cache(path)
    audit.record(db, slack_user="U_TECH", command="alarm acknowledge EV-9", outcome="ok", summary="ny",
                 reference="R-ZONE01", at=1_795_000_000_000, org_id=1001)  # fmt: skip
    audit.record(db, slack_user="U_TECH", command="panel 1", outcome="ok", summary="none",
                 reference="R-ZONE02", at=1_795_000_000_000, org_id=None)  # fmt: skip
    db.close()
    config = tmp_path / "samops.toml"
    config.write_text('[notify]\ntimezone = "UTC"\n[notify.timezones]\n"1001" = "America/New_York"\n')
    env = {"PATH": "/usr/bin:/bin", "COLUMNS": "250", "SAMOPS_CONFIG": str(config), "TZ": tz}
    result = subprocess.run(samops_cmd("audit", "--db", str(path)), cwd=ROOT, capture_output=True, text=True,
                            timeout=120, env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if "R-ZONE0" in line]
    assert len(lines) == 2 and all(shown in line for line in lines), result.stdout
    assert f"when ({tz})" in result.stdout and result.stdout.count(tz) == 1
