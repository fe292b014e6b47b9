"""No import cycle among the modules of any package of ours (bot, core, dashboard, samops, simulator):
every module-level import counts, those under TYPE_CHECKING too (a type checker follows them). Imports
inside functions do not; there should be none that dodge a cycle.

A package's `__init__.py` importing its own modules (to register their listeners) is how a package works:
importing `bot.slash.parse` runs `bot/slash/__init__.py` first, but `parse` never uses the package, so that
implicit edge is not a cycle; an explicit `from bot.slash import x` in a module of `bot.slash` would be.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.processes import ROOT

PACKAGES = ("bot", "core", "dashboard", "samops", "simulator")


def module_names(package: str) -> dict[str, Path]:
    names: dict[str, Path] = {}
    for path in (ROOT / package).rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def imports_of(tree: ast.Module, known: dict[str, Path]) -> set[str]:
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name in known)
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if full in known:
                        found.add(full)
                    elif node.module in known:
                        found.add(node.module)
            elif isinstance(node, ast.If):  # `if TYPE_CHECKING:` blocks
                visit(node.body)
                visit(node.orelse)

    visit(tree.body)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


def test_the_checker_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def import_graph(package: str) -> dict[str, set[str]]:
    known = module_names(package)
    return {name: imports_of(ast.parse(path.read_text()), known) - {name} for name, path in known.items()}


def test_no_import_cycle_in_bot() -> None:
    graph = import_graph("bot")
    assert "bot.slash.registry" in graph["bot.commands.panel"]  # the graph is read at all
    assert cycles(graph) == []


@pytest.mark.parametrize("package", [p for p in PACKAGES if p != "bot"])
def test_no_import_cycle_in(package: str) -> None:
    graph = import_graph(package)
    assert any(graph.values()), f"{package}: no import of its own modules was read"
    assert cycles(graph) == []
