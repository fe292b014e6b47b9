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


def test_a_closed_pipe_ends_quietly_without_a_traceback() -> None:
    # Like `samops call --list | head -c 0`: the reader is gone before the listing is written.
    proc = subprocess.Popen(
        samops_cmd("call", "--list"), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert stderr == ""
