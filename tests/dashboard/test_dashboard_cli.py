"""`samops dashboard`: options, and the refusal to serve beyond loopback without authentication."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from streamlit import config as st_config

from dashboard import auth, cli
from tests.support.processes import ROOT, samops_cmd


def run_dashboard(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != auth.PASSWORD_ENV} | env
    return subprocess.run(
        samops_cmd("dashboard", *args), cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=60
    )


def test_refuses_a_public_address_without_authentication() -> None:
    done = run_dashboard("--host", "0.0.0.0", "--port", "8599")
    assert done.returncode == 2
    assert "refusing to serve on 0.0.0.0" in done.stderr and auth.PASSWORD_ENV in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("args", [["--port", "0"], ["--port", "http"], ["--bogus"]])
def test_bad_options_are_usage_errors(args: list[str]) -> None:
    done = run_dashboard(*args)
    assert (
        done.returncode == 2 and "usage: samops dashboard" in done.stderr and "Traceback" not in done.stderr
    )


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("192.168.1.10", False),
        ("::", False),
        ("dash.example.com", False),
    ],
)
def test_loopback_detection(host: str, loopback: bool) -> None:
    assert auth.is_loopback(host) is loopback


def test_oidc_is_recognised_from_secrets_toml(tmp_path: Path) -> None:
    with_auth = tmp_path / "with.toml"
    with_auth.write_text('[auth]\nredirect_uri = "http://x/oauth2callback"\ncookie_secret = "c"\n')
    without = tmp_path / "without.toml"
    without.write_text('[other]\nkey = "v"\n')
    broken = tmp_path / "broken.toml"
    broken.write_text("[auth\n")
    assert auth.oidc_in_files([tmp_path / "missing.toml", broken, with_auth])
    assert not auth.oidc_in_files([without, broken, tmp_path / "missing.toml"])


def test_streamlit_command_is_headless_without_telemetry_or_watcher() -> None:
    cmd = cli.streamlit_command("127.0.0.1", 8600)
    options = dict(zip(cmd[5::2], cmd[6::2], strict=True))
    assert cmd[2:5] == ["dashboard.serve", "run", str(cli.APP)]
    assert options["--server.address"] == "127.0.0.1" and options["--server.port"] == "8600"
    assert options["--server.headless"] == "true"
    assert options["--browser.gatherUsageStats"] == "false"
    assert options["--server.fileWatcherType"] == "none"


def test_a_password_or_oidc_counts_as_authentication(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = tmp_path / ".streamlit" / "secrets.toml"
    before = st_config.get_option("secrets.files")
    st_config.set_option("secrets.files", [str(secrets)])  # where `streamlit run` would look
    try:
        monkeypatch.delenv(auth.PASSWORD_ENV, raising=False)
        assert not auth.configured()
        monkeypatch.setenv(auth.PASSWORD_ENV, "")
        assert not auth.configured()  # an empty password is no password
        monkeypatch.setenv(auth.PASSWORD_ENV, "pw")
        assert auth.configured()
        monkeypatch.delenv(auth.PASSWORD_ENV)
        secrets.parent.mkdir()
        secrets.write_text('[auth]\ncookie_secret = "x"\n')
        assert auth.configured()
    finally:
        st_config.set_option("secrets.files", before)
