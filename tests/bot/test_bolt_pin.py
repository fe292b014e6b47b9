"""samops runs bolt through its public face only (docs/acks.md): `App(process_before_response=True,
listener_executor=...)`, `app.error`, middleware and lazy functions. pyproject still pins bolt to the minor
version this was tested on, since samops relies on how that path behaves (the ack function on the thread that
answers, lazy functions started on the given executor with a copy of the request); this checks that the
installed bolt is a pinned one and still behaves so, so an upgrade fails here, by name, rather than in a
listener at run time."""

from __future__ import annotations

import threading
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

from packaging.requirements import Requirement
from slack_bolt import App, BoltRequest

from bot.ack_first import AcksInFlight
from bot.lazy import acked_then
from tests.bot.test_ack_first import COMMAND, authorize, signed
from tests.support.processes import ROOT


def bolt_requirement() -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return next(r for r in map(Requirement, project["dependencies"]) if r.name == "slack-bolt")


def test_the_installed_bolt_is_a_pinned_one() -> None:
    requirement = bolt_requirement()
    assert requirement.specifier.contains(version("slack-bolt")), (requirement, version("slack-bolt"))
    assert "<" in str(requirement.specifier), "samops relies on how this bolt behaves: pin an upper bound"


@dataclass
class Host:
    acks: AcksInFlight = field(default_factory=AcksInFlight)
    on_failure: Any = None


def test_bolt_runs_the_work_on_the_given_pool_with_its_own_request() -> None:
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="given")
    app = App(
        authorize=authorize,
        signing_secret="s",
        request_verification_enabled=False,
        process_before_response=True,
        listener_executor=pool,
    )
    where: dict[str, str] = {}
    done = threading.Event()

    def work(body: dict[str, Any]) -> None:
        where["work"], where["text"] = threading.current_thread().name, body["text"]
        done.set()

    app.command("/sam")(**acked_then(Host(), work))
    request: BoltRequest = signed(COMMAND)
    assert app.dispatch(request).status == 200
    assert done.wait(5)
    assert where["work"].startswith("given") and where["text"] == "cameras"
    pool.shutdown()
