"""A modal's answer goes to the response_url of the command that opened it, which the modal carries in its
`private_metadata` — text a signed request may carry forged. So the URL is sealed when the modal is made
(an HMAC-SHA256 under the app's signing secret, `response_url_mac` beside it) and used after the modal
closes only when the seal matches (bot/writes.py `answer_later`); a forged or altered one is refused and
audited, and the answer goes by chat instead. The signing secret is the key: only Slack and samops hold it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

MAC = "response_url_mac"
_key = [secrets.token_bytes(32)]  # until the app is built: a key of this process alone


def use_key(signing_secret: str) -> None:
    """Seal with the app's signing secret (`build_app`), so a modal outlives a restart of the bot."""
    _key[0] = b"samops response_url\0" + signing_secret.encode()


def _mac(url: str) -> str:
    return hmac.new(_key[0], _bytes(url), hashlib.sha256).hexdigest()


def _bytes(text: str) -> bytes:
    # Metadata is JSON from a request: a lone surrogate ("\ud800") or any non-ASCII character must compare
    # unequal, not raise (compare_digest refuses non-ASCII str).
    return text.encode("utf-8", "surrogatepass")


def sealed(url: str | None) -> dict[str, Any]:
    """The metadata members that carry `url`: the URL and its seal (none for no URL)."""
    return {"response_url": url, MAC: _mac(url)} if url else {"response_url": None}


def seal_holds(meta: dict[str, Any]) -> bool:
    """Whether the metadata's response_url is one samops sealed (False for none, or a forged one)."""
    url, mac = meta.get("response_url"), meta.get(MAC)
    if not isinstance(url, str) or not isinstance(mac, str):
        return False
    return hmac.compare_digest(_mac(url).encode(), _bytes(mac))
