"""The secret filter and masking helper used by everything that logs or prints service data."""

from __future__ import annotations

import logging

import pytest

from core.redact import SecretFilter, install, mask_secrets, secret_filter


def test_mask_secrets_walks_nested_data() -> None:
    data = {
        "token": "t0ken",
        "user": {"pinCode": "1234", "name": "n"},
        "list": [{"ncCode": "x"}],
        "ncCode": None,
    }
    assert mask_secrets(data) == {
        "token": "***",
        "user": {"pinCode": "***", "name": "n"},
        "list": [{"ncCode": "***"}],
        "ncCode": None,
    }


def test_filter_masks_registered_values_and_bearer_tokens(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("tests.redact")
    secrets = SecretFilter()
    secrets.add("hunter22", None, "ab")  # too-short values are ignored, or every "ab" would vanish
    logger.addFilter(secrets)
    with caplog.at_level(logging.DEBUG, logger="tests.redact"):
        logger.debug("password %s and %s", "hunter22", "Authorization: Bearer abc.def-ghi")
        logger.debug("about ab")
    assert "hunter22" not in caplog.text and "abc.def-ghi" not in caplog.text
    assert "password *** and Authorization: Bearer ***" in caplog.text
    assert "about ab" in caplog.text


def test_install_is_idempotent() -> None:
    handler = logging.NullHandler()
    install(handler)
    install(handler)
    assert handler.filters == [secret_filter]
