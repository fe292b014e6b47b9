"""Start-up time of the `samops` console script before and after issue 17, side by side; not a test.

Issue 17 moved the start-up saving (sqlite-utils imported with pandas and numpy hidden) from `import core`
to the entry point. Goal: each command within 10% of its time before. Three columns, runs interleaved:

- before: the tree of `--before` (default: the commit just before the saving left core/__init__.py),
  unpacked with `git archive` into a temporary folder and run with this venv's Python;
- now: this tree;
- now, no saving: this tree with sqlite-utils imported normally first (so pandas and numpy too), which is
  what every cache-using command would cost without the saving.

    python bench/startup.py [--runs 7] [--before REV]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = [["--help"], ["call", "--list"], ["sync", "--help"]]
GOAL = 1.10
# Imports sqlite-utils as a plain `import` would (pandas and numpy included) when the command opens the
# cache, then runs the console script: the saving in the entry point then finds nothing left to do.
NO_SAVING = (
    "import runpy, sys\n"
    "from samops.cli import CACHE_USERS\n"
    "if sys.argv[1] in CACHE_USERS:\n"
    "    import sqlite_utils\n"
    "sys.argv[0] = 'samops'\n"
    "runpy.run_module('samops', run_name='__main__', alter_sys=True)\n"
)


def git(*args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True).stdout


def default_before() -> str:
    """The parent of the newest commit that added or removed the pandas hiding in core/__init__.py."""
    found = git("log", "-1", "--format=%H", "-Ssys.modules[name] = None", "--", "core/__init__.py").decode()
    if not found.strip():
        raise SystemExit("bench/startup.py: no commit touches the hiding in core/__init__.py; pass --before")
    return f"{found.strip()}^"


def unpack(rev: str, into: Path) -> None:
    with tarfile.open(fileobj=BytesIO(git("archive", rev)), mode="r:") as tar:
        tar.extractall(into, filter="data")


def timed(cmd: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each command in each variant")
    parser.add_argument("--before", default=None, help="git revision measured as 'before'")
    args = parser.parse_args()
    before = args.before or default_before()
    label = git("rev-parse", "--short", before).decode().strip()
    with tempfile.TemporaryDirectory(prefix="samops-before-") as tmp:
        old = Path(tmp)
        unpack(before, old)
        print(f"samops start-up, median of {args.runs} runs each, interleaved; before = {label}")
        print(f"{'command':<22}{'before':>10}{'now':>10}{'now/before':>12}{'no saving':>12}  goal <= {GOAL}")
        for command in COMMANDS:
            variants = {
                "before": ([sys.executable, "-m", "samops", *command], old),
                "now": ([sys.executable, "-m", "samops", *command], ROOT),
                "no saving": ([sys.executable, "-c", NO_SAVING, *command], ROOT),
            }
            times: dict[str, list[float]] = {name: [] for name in variants}
            for _ in range(args.runs):
                for name, (cmd, cwd) in variants.items():
                    times[name].append(timed(cmd, cwd))
            med = {name: statistics.median(values) for name, values in times.items()}
            ratio = med["now"] / med["before"]
            verdict = "met" if ratio <= GOAL else "missed"
            print(
                f"samops {' '.join(command):<15}{med['before']:>9.3f}s{med['now']:>9.3f}s{ratio:>11.2f}x"
                f"{med['no saving']:>11.3f}s  {verdict}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
