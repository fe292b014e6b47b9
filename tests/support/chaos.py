"""Helpers for runs of the whole product as separate processes (tests/samops/test_chaos.py,
tests/samops/test_security.py): every process logs to a file of its own, carries one marker data folder
in its environment (so that a test can find anything left running), and can be killed and started again.

    with Stack(tmp_path) as stack:
        sim = stack.simulator("--alarm-rate", "60")
        sync = stack.start("sync", "sync", "--every", "2")
        ...
    assert not processes_with(stack.data_dir)
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import uuid
from pathlib import Path
from typing import Any

from tests.support.processes import ROOT, Simulator, free_port, samops_cmd, stop, wait_http
from tests.support.slack_standin import SlackStandIn

# A secret field written as a key and a value that is not the mask, in JSON, Python reprs, logs or headers.
_SECRET_NAMES = r"password|mqPassword|mq_password|pinCode|pin_code|securityCode|security_code|ncCode|nc_code"
SECRET_FIELD = re.compile(
    rf"""["']?\b({_SECRET_NAMES}|token)\b["']?\s*[:=]\s*(?!None\b|null\b|SecretStr)["']?(?!\*\*\*)([^\s"',}}\]\)]+)"""
)
BEARER = re.compile(r"Bearer\s+(?!\*\*\*)[A-Za-z0-9_\-.]{8,}")


class Stack:
    """Processes of one run, all sharing `data_dir` (SAMOPS_DATA_DIR, the marker) and its cache."""

    def __init__(self, tmp_path: Path) -> None:
        self.data_dir = tmp_path / f"samops-{uuid.uuid4().hex[:12]}"  # made by our processes, not here
        self.db_path = self.data_dir / "cache.db"
        self.config_path = tmp_path / "samops.toml"
        self.logs = tmp_path / "logs"
        self.logs.mkdir()
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.sim: Simulator | None = None
        self._cmds: dict[str, tuple[list[str], dict[str, str]]] = {}

    def env(self, slack: SlackStandIn | None = None, **extra: str) -> dict[str, str]:
        """The environment of our processes: none of the caller's SAM/SLACK/SAMOPS settings, our own."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "SAM_", "SAMOPS_"))}
        env |= {
            "PYTHONPATH": str(ROOT),
            "SAMOPS_DATA_DIR": str(self.data_dir),
            "SAMOPS_DB": str(self.db_path),
            "SAMOPS_CONFIG": str(self.config_path),
        }
        if self.sim is not None:
            env["SAM_BASE_URL"] = self.sim.base_url
        if slack is not None:
            env |= {"SLACK_BOT_TOKEN": "xoxb-stack-test", "SLACK_API_URL": slack.api_url}
        return env | extra

    def start(self, name: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """`samops <args>` as process `name`; stdout and stderr appended to logs/<name>.log."""
        cmd = samops_cmd(*args)
        environment = env if env is not None else self.env()
        self._cmds[name] = (cmd, environment)
        return self._spawn(name)

    def _spawn(self, name: str) -> subprocess.Popen[bytes]:
        cmd, env = self._cmds[name]
        with (self.logs / f"{name}.log").open("ab") as log:
            proc = subprocess.Popen(cmd, cwd=self.logs.parent, env=env, stdout=log, stderr=log)
        self.procs[name] = proc
        return proc

    def run(self, name: str, *args: str, env: dict[str, str] | None = None, timeout: float = 180) -> int:
        """`samops <args>` to completion, its output appended to logs/<name>.log; returns the exit code."""
        environment = env if env is not None else self.env()
        with (self.logs / f"{name}.log").open("ab") as log:
            done = subprocess.run(
                samops_cmd(*args), cwd=self.logs.parent, env=environment, stdout=log, stderr=log,
                timeout=timeout,
            )  # fmt: skip
        return done.returncode

    def kill9_and_restart(self, name: str) -> subprocess.Popen[bytes]:
        proc = self.procs[name]
        assert proc.poll() is None, f"{name} had already exited with {proc.returncode}"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return self._spawn(name)

    def simulator(self, *options: str, seed: int = 7) -> Simulator:
        port = free_port()
        proc = self.start("simulator", "simulator", "--port", str(port), "--seed", str(seed), *options)
        root = f"http://127.0.0.1:{port}"
        wait_http(f"{root}/healthz", proc)
        self.sim = Simulator(base_url=f"{root}/api", root_url=root, port=port, proc=proc)
        return self.sim

    def log_text(self, *, leave_out: tuple[str, ...] = ()) -> str:
        """Every process's output so far (but that of the processes named in `leave_out`)."""
        paths = [p for p in sorted(self.logs.glob("*.log")) if p.stem not in leave_out]
        return "\n".join(p.read_text(errors="replace") for p in paths)

    def stop_all(self) -> None:
        for proc in reversed(list(self.procs.values())):
            stop(proc, timeout=10)

    def __enter__(self) -> Stack:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_all()


def processes_with(marker: Path | str) -> list[int]:
    """Pids of the live processes (zombies are dead) whose environment mentions `marker` (our data folder)."""
    needle = str(marker).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            # The state follows the name in parentheses, which may hold spaces.
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
        except OSError:  # gone, or not ours to read
            continue
        if needle in environ and state != "Z":
            found.append(int(entry.name))
    return found


def leaks(where: str, text: str, secrets: set[str]) -> list[str]:
    """Why `text` gives a secret away: a known secret value in it, or a secret field or bearer token with
    a clear value (catches tokens and PINs the test cannot know or grep for, such as 4-digit PINs)."""
    found = [f"{where}: secret {s[:3]}… in clear: {_around(text, s)!r}" for s in secrets if s in text]
    found += [f"{where}: {m.group(0)[:60]!r}" for m in SECRET_FIELD.finditer(text)]
    found += [f"{where}: {m.group(0)[:20]!r}…" for m in BEARER.finditer(text)]
    return found


def slack_text(slack: SlackStandIn) -> str:
    """Everything the stand-in received: parameters (blocks included) and headers except Authorization,
    which carries the bot token as Slack requires."""
    parts: list[Any] = []
    for call in slack.calls:
        headers = {k: v for k, v in call.headers.items() if k.lower() != "authorization"}
        parts.append({"method": call.method, "params": call.params, "headers": headers})
    return repr(parts)


def _around(text: str, secret: str, width: int = 160) -> str:
    """Where `secret` first occurs in `text`, the secret itself masked (to say where it leaks)."""
    at = text.index(secret)
    return text[max(0, at - width) : at + len(secret) + width].replace(secret, "<SECRET>")
