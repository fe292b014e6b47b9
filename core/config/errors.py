"""How a bad `samops.toml` is told: one line naming each field, for every reader of the one model."""

from __future__ import annotations

from pydantic import ValidationError


class ConfigError(ValueError):
    """The config file is missing (when asked for explicitly), not TOML, or has a bad value."""


class NotifyConfigError(ValueError):
    """The `[notify]` section has an unknown key or a bad value; the message names the field."""


def one_line(err: ValidationError, section: str = "") -> str:
    """pydantic's errors as one line naming each field (dotted, after `section`): "priorities.0.priority:
    Value error, …"."""
    return "; ".join(
        section + ".".join(map(str, e["loc"])) + f": {e['msg']}" for e in err.errors(include_url=False)
    )
