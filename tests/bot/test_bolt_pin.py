"""samops leans on parts of slack-bolt that are not its public face (docs/acks.md): the listener runner's
class is swapped, its lazy runner replaced, its executor drained. pyproject pins bolt to the versions this was
tested on; this checks that the installed bolt is one of them and still has what samops reaches for, so an
upgrade fails here, by name, rather than in a listener at run time."""

from __future__ import annotations

import tomllib
from importlib.metadata import version

from packaging.requirements import Requirement
from slack_bolt import App
from slack_bolt.lazy_listener import LazyListenerRunner
from slack_bolt.listener.thread_runner import ThreadListenerRunner

from bot.error_handler import GuardedListenerRunner, guard_listeners
from tests.support.processes import ROOT


def bolt_requirement() -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return next(r for r in map(Requirement, project["dependencies"]) if r.name == "slack-bolt")


def test_the_installed_bolt_is_a_pinned_one() -> None:
    requirement = bolt_requirement()
    assert requirement.specifier.contains(version("slack-bolt")), (requirement, version("slack-bolt"))
    assert "<" in str(requirement.specifier), "bolt's private parts are used: pin an upper bound"


def test_the_runner_samops_swaps_has_what_samops_reaches_for() -> None:
    app = App(token="xoxb-test", signing_secret="s", token_verification_enabled=False)
    runner = app.listener_runner
    assert type(runner) is ThreadListenerRunner
    assert isinstance(runner.lazy_listener_runner, LazyListenerRunner)
    assert runner.listener_executor is not None and runner.listener_error_handler is not None
    guard_listeners(app)
    assert type(app.listener_runner) is GuardedListenerRunner
