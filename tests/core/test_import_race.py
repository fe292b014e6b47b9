"""Issue 17: importing `core` never changes `sys.modules`, so a thread importing pandas meanwhile is safe.

Each try is a fresh interpreter (a subprocess): the race is at first import, which happens once per process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.support.processes import ROOT, samops_cmd

TRIES = 10

# Two threads released together: one imports core (and the cache and read modules, which import
# sqlite-utils), the other imports pandas and uses it, as a Streamlit session's first st.dataframe does.
RACE = textwrap.dedent(
    """
    import sys, threading, traceback

    barrier = threading.Barrier(2)
    failures = []

    def run(work):
        barrier.wait()
        try:
            work()
        except BaseException:
            failures.append(traceback.format_exc())

    def import_core():
        import core, core.cache.db, core.read  # noqa: F401

    def import_pandas():
        import pandas
        assert len(pandas.DataFrame({"a": [1, 2]})) == 2

    threads = [threading.Thread(target=run, args=(w,)) for w in (import_core, import_pandas)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("".join(failures), file=sys.stderr)
    sys.exit(1 if failures else 0)
    """
)


def python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_core_imported_in_one_thread_while_another_imports_pandas() -> None:
    for attempt in range(TRIES):
        done = python(RACE)
        assert done.returncode == 0, f"try {attempt + 1}: {done.stderr}"


def test_import_core_hides_nothing() -> None:
    # Deterministic companion of the race test: had `import core` hidden pandas while sqlite-utils was
    # imported, sqlite-utils would have recorded "no pandas".
    done = python("import core.cache.db, sqlite_utils.db as d; print(d.pd is not None, d.np is not None)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


def imported_modules(*args: str) -> set[str]:
    """The modules `samops ARGS` imports, from `python -X importtime` (one line per module, on stderr)."""
    cmd = samops_cmd(*args)
    done = subprocess.run(
        [cmd[0], "-X", "importtime", *cmd[1:]], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return {
        line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")
    }


def test_the_entry_point_keeps_the_start_up_saving() -> None:
    for command in (["sync", "--help"], ["status", "--help"], ["notify", "--help"], ["bot", "--help"]):
        modules = imported_modules(*command)
        assert "sqlite_utils" in modules, command
        assert not {"pandas", "numpy"} & modules, command
    assert "sqlite_utils" not in imported_modules("call", "--list")  # no cache: nothing to save
    assert "sqlite_utils" not in imported_modules("--help")
