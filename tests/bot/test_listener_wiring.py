"""Every listener can be found from its package's `__init__.py` (issue 13): bolt's listener decorators are
called nowhere else in the bot, and every `/sam` subcommand module is imported, by name, in
`bot/commands/__init__.py`."""

from __future__ import annotations

import ast

from tests.support.processes import ROOT

# slack_bolt.App's methods that add a listener (or middleware, which acts like one).
LISTENER_METHODS = {
    "action",
    "attachment_action",
    "block_action",
    "block_suggestion",
    "command",
    "dialog_cancellation",
    "dialog_submission",
    "dialog_suggestion",
    "event",
    "function",
    "global_shortcut",
    "message",
    "message_shortcut",
    "middleware",
    "options",
    "shortcut",
    "step",
    "use",
    "view",
    "view_closed",
    "view_submission",
}
SURFACES = {f"bot/{package}/__init__.py" for package in ("slash", "actions", "forms", "events")}


def listener_calls(source: str) -> list[int]:
    """The lines where `app.<listener method>(...)` is called."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in LISTENER_METHODS
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "app"
    ]


def bot_sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text() for p in sorted((ROOT / "bot").rglob("*.py"))}


def test_the_checker_sees_a_listener() -> None:
    assert listener_calls("def f(app):\n    x = 1\n    app.action('a')(g)\n    app.error(h)\n") == [3]


def test_listeners_are_added_only_in_the_surface_packages_init() -> None:
    where = {path: lines for path, source in bot_sources().items() if (lines := listener_calls(source))}
    assert set(where) == SURFACES, where  # each surface registers something, nothing else does


def test_every_subcommand_module_is_listed_in_bot_commands_init() -> None:
    package = ROOT / "bot" / "commands"
    modules = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    tree = ast.parse((package / "__init__.py").read_text())
    listed = {
        alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == "bot.commands"
        for alias in node.names
    }
    assert modules and listed == modules
