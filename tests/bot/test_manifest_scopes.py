"""manifest.yml requests exactly the bot scopes of the Web API methods the code calls.

The calls are found by scanning the source (`client.chat_postMessage(`, `api_call("chat.postMessage")`), so a
new call whose scope the manifest lacks fails here; the scope of each method is the Slack stand-in's table
(from Slack's method reference), the same one it enforces with `missing_scope`.
"""

from __future__ import annotations

import inspect
import re
from functools import cache
from pathlib import Path

import yaml
from slack_sdk import WebClient

from tests.support.slack_standin import (
    CONVERSATION_SCOPES,
    FIELD_SCOPES,
    METHOD_SCOPES,
    NO_SCOPE_METHODS,
    manifest_bot_scopes,
    needed_scope,
)

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("bot", "core", "samops", "dashboard")
# Called by the libraries on our behalf: bolt's token check at start-up, and Socket Mode's connection (with
# the app-level token, whose connections:write scope is not a bot scope).
LIBRARY_CALLS = frozenset({"auth.test", "apps.connections.open"})
# Conversations samops reads: alarm and audit channels may be public or private.
CONVERSATION_KINDS = ("C", "G")

_METHOD_CALL = re.compile(r"\.([a-z]+(?:_[A-Za-z]+)+)\(")
_API_CALL = re.compile(r"api_call\(\s*[\"']([A-Za-z.]+)[\"']")


@cache
def web_client_methods() -> dict[str, str]:
    """slack_sdk's WebClient method name → the Web API method it calls (`chat_postMessage` →
    `chat.postMessage`)."""
    methods = {}
    for name, function in inspect.getmembers(WebClient, inspect.isfunction):
        found = re.search(r"api_call\(\s*\"([A-Za-z.]+)\"", inspect.getsource(function))
        if found and not name.startswith("_"):
            methods[name] = found.group(1)
    return methods


def called_methods(text: str) -> set[str]:
    known = web_client_methods()
    found = {known[name] for name in _METHOD_CALL.findall(text) if name in known}
    return found | set(_API_CALL.findall(text))


def code_calls() -> dict[str, set[Path]]:
    """Every Web API method our code calls, with the files that call it."""
    calls: dict[str, set[Path]] = {}
    for package in SOURCES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for method in called_methods(path.read_text(encoding="utf-8")):
                calls.setdefault(method, set()).add(path.relative_to(ROOT))
    return calls


def scopes_for(method: str) -> set[str]:
    if method.startswith("conversations."):
        return {CONVERSATION_SCOPES[kind] for kind in CONVERSATION_KINDS}
    scope = needed_scope(method, {})
    return ({scope} if scope else set()) | set(FIELD_SCOPES.get(method, ()))


def test_the_scanner_finds_calls_in_both_spellings() -> None:
    text = 'client.chat_update(channel=c)\nweb.conversations_info(channel=c)\nx.api_call("views.open")\n'
    assert called_methods(text) == {"chat.update", "conversations.info", "views.open"}
    assert called_methods("ctx.client.list_cameras(org=1)\nself.client.login()") == set()


def test_the_code_calls_the_methods_this_test_expects_to_see() -> None:
    """A guard for the scanner itself: calls known to exist are found."""
    assert {"chat.postMessage", "chat.update", "conversations.info", "views.open"} <= set(code_calls())


def test_every_called_method_has_a_known_scope() -> None:
    unknown = {
        method: sorted(map(str, paths))
        for method, paths in code_calls().items()
        if method not in METHOD_SCOPES
        and method not in NO_SCOPE_METHODS
        and not method.startswith("conversations.")
    }
    assert not unknown, f"look up these methods' scopes and add them to the stand-in's table: {unknown}"


def test_manifest_requests_exactly_the_scopes_the_code_needs() -> None:
    methods = set(code_calls()) | LIBRARY_CALLS
    needed = {"commands"} | {scope for method in methods for scope in scopes_for(method)}
    requested = manifest_bot_scopes()
    assert requested - needed == set(), "requested but unused"
    assert needed - requested == set(), "used but not requested"


def test_manifest_declares_the_surfaces_the_code_registers() -> None:
    manifest = yaml.safe_load((ROOT / "manifest.yml").read_text(encoding="utf-8"))
    features, settings = manifest["features"], manifest["settings"]
    assert [c["command"] for c in features["slash_commands"]] == ["/sam"]
    assert settings["interactivity"]["is_enabled"] is True
    assert settings["event_subscriptions"]["bot_events"] == ["app_home_opened"]
    assert features["app_home"]["home_tab_enabled"] is True
    # Pages (docs/paging.md) are DMs: shown in the app's Messages tab, which people read, not write to.
    assert features["app_home"]["messages_tab_enabled"] is True
    assert features["app_home"]["messages_tab_read_only_enabled"] is True


def test_paging_needs_chat_write_usergroups_read_and_users_read_only() -> None:
    """Personal paging (docs/paging.md) posts a DM with the user's id as its channel (chat:write: no
    conversations.open, so no im:write), reads user groups' members (usergroups:read) and a person's time zone
    (users:read); the manifest requests each of them."""
    paging = {
        Path("bot/notify/paging.py"),
        Path("bot/notify/delivery.py"),
        Path("bot/commands/notify_me.py"),
        Path("bot/person_zones.py"),  # the person's zone notify-me records, read once per TTL
    }
    used = {method for method, paths in code_calls().items() if paths & paging}
    assert used == {"chat.postMessage", "chat.update", "usergroups.users.list", "users.info"}
    scopes = {scope for method in used for scope in scopes_for(method)}
    assert {"chat:write", "usergroups:read", "users:read"} <= scopes <= manifest_bot_scopes()
    assert "im:write" not in manifest_bot_scopes() and "conversations.open" not in code_calls()
