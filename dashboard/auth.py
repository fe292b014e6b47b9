"""Who may see the dashboard: loopback needs nothing; any other address needs a password or OIDC.

The password comes from `SAMOPS_DASHBOARD_PASSWORD` (environment or `.env`, core.settings); OIDC is
Streamlit's own `st.login`, configured by an `[auth]` section in secrets.toml.
"""

from __future__ import annotations

import hmac
import ipaddress
import time
import tomllib
from pathlib import Path

import streamlit as st

from core.settings import current_settings

PASSWORD_ENV = "SAMOPS_DASHBOARD_PASSWORD"
_SESSION_KEY = "_samops_signed_in"


def password() -> str | None:
    secret = current_settings().dashboard_password
    return secret.get_secret_value() if secret is not None else None


def bind_host(host: str) -> str:
    """The address as Streamlit takes it: an IPv6 literal may come in a URL's brackets (`[::1]`), which go.

    Raises ValueError for an empty host or malformed brackets (`[::1`, `[127.0.0.1]`)."""
    bare = host.strip()
    if bare.startswith("[") or bare.endswith("]"):
        inner = bare[1:-1] if bare.startswith("[") and bare.endswith("]") else ""
        try:
            ipaddress.IPv6Address(inner)
        except ValueError:
            raise ValueError(
                f"not an address: {host!r} (brackets hold an IPv6 address, as in [::1])"
            ) from None
        return inner
    if not bare:
        raise ValueError("the host is empty")
    return bare


def is_loopback(host: str) -> bool:
    try:
        bare = bind_host(host)
    except ValueError:
        return False
    if bare.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return address.is_loopback or (mapped is not None and mapped.is_loopback)  # ::ffff:127.0.0.1 too


def secrets_files() -> list[Path]:
    """Where `streamlit run` looks for secrets.toml (the user's, then the working folder's)."""
    from streamlit import config

    return [Path(p) for p in config.get_option("secrets.files")]


def oidc_in_files(paths: list[Path]) -> bool:
    for path in paths:
        try:
            with path.open("rb") as fh:
                if isinstance(tomllib.load(fh).get("auth"), dict):
                    return True
        except (OSError, tomllib.TOMLDecodeError):
            continue
    return False


def configured() -> bool:
    """Is any authentication set up for the server about to start (password, or OIDC in secrets.toml)?"""
    return password() is not None or oidc_in_files(secrets_files())


def _oidc_configured() -> bool:
    try:
        return "auth" in st.secrets
    except FileNotFoundError:  # no secrets file, or one it cannot parse: Streamlit's error subclasses this
        return False


def gate() -> None:
    """Stop the run with a sign-in form unless the visitor is allowed in."""
    if _oidc_configured():
        if not st.user.is_logged_in:
            st.title("samops dashboard")
            st.button("Sign in", on_click=st.login, type="primary")
            st.stop()
        return
    secret = password()
    if secret is None or st.session_state.get(_SESSION_KEY):
        return
    st.title("samops dashboard")
    # clear_on_submit: the typed password does not linger in session state.
    with st.form("sign_in", clear_on_submit=True):
        entered = st.text_input("Password", type="password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if submitted:
        if hmac.compare_digest(entered.encode(), secret.encode()):
            st.session_state[_SESSION_KEY] = True
            st.rerun()
        time.sleep(1)  # slows guessing
        st.error("Wrong password.")
    st.stop()
