from __future__ import annotations

import subprocess

from samops.cli import SUBCOMMANDS, main
from tests.support.processes import ROOT, samops_cmd


def test_no_command_prints_usage_and_exits_2(capsys) -> None:
    assert main([]) == 2
    out = capsys.readouterr().out
    assert "usage: samops" in out
    for name in SUBCOMMANDS:
        assert name in out


def test_unknown_command_exits_2(capsys) -> None:
    assert main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err


def test_console_script_runs_as_module() -> None:
    done = subprocess.run(samops_cmd("--help"), cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "samops <command>" in done.stdout
