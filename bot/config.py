"""The bot's part of the TOML config (`SAMOPS_CONFIG`): roles, channel defaults, audit channel, dashboard.

`[notify]` belongs to the notifier (`bot/notify/config.py`), which parses it itself; it is kept here raw.
Each of our sections rejects keys it does not know, so a typo is an error at start, not a silent default.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

_SLACK_ID = re.compile(r"[UWS][A-Z0-9_]{1,40}")


class ConfigError(ValueError):
    """The config file is missing (when asked for explicitly), not TOML, or has a bad value."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RolesConfig(_Section):
    admins: tuple[str, ...] = ()  # Slack user ids (U…/W…) or user-group ids (S…)
    technicians: tuple[str, ...] = ()
    viewers: tuple[str, ...] = ()
    default_role: Literal["viewer", "none"] = "viewer"  # everyone not listed above
    # Service role name -> samops role, for people listed nowhere above (bot/roles_service.py).
    from_service: dict[str, Literal["viewer", "technician", "admin"]] = Field(default_factory=dict)

    @field_validator("admins", "technicians", "viewers")
    @classmethod
    def _ids(cls, ids: tuple[str, ...]) -> tuple[str, ...]:
        for one in ids:
            if not _SLACK_ID.fullmatch(one):
                raise ValueError(f"{one!r} is not a Slack user or user-group id")
        return ids

    @field_validator("from_service")
    @classmethod
    def _service_roles(cls, mapping: dict[str, str]) -> dict[str, str]:
        """Service role names are matched in any case, so two spellings of one name must not disagree."""
        seen: dict[str, str] = {}
        for name, role in mapping.items():
            key = name.strip().casefold()
            if not key:
                raise ValueError("a service role name is empty")
            if seen.get(key, role) != role:
                raise ValueError(
                    f"{name!r} is mapped twice, to {seen[key]} and to {role} (names match in any case)"
                )
            seen[key] = role
        return mapping


class ChannelConfig(_Section):
    org: int | None = None  # the organization a command in this channel is about, unless `org:<id>` says


class AuditConfig(_Section):
    channel: str | None = None


class DashboardConfig(_Section):
    url: str | None = None


class BotConfig(BaseModel):
    # Every section of the TOML is named here (notify is parsed in bot/notify/config.py), so a misspelt one
    # (`[role]` would drop every role list) is an error naming it, as an unknown key inside one is.
    model_config = ConfigDict(extra="forbid", frozen=True)

    roles: RolesConfig = Field(default_factory=RolesConfig)
    channels: dict[str, ChannelConfig] = Field(default_factory=dict)
    audit: AuditConfig = Field(default_factory=AuditConfig)
    dashboard: DashboardConfig = Field(default_factory=DashboardConfig)
    notify: dict[str, Any] = Field(default_factory=dict)  # parsed by bot/notify/config.py

    def channel_org(self, channel_id: str) -> int | None:
        channel = self.channels.get(channel_id)
        return channel.org if channel else None


def problems(err: ValidationError, section: str = "") -> str:
    """One line naming each bad key of the config (dotted, after `section`) and what is wrong with it."""
    return "; ".join(
        section + ".".join(str(p) for p in e["loc"]) + f": {e['msg']}" for e in err.errors(include_url=False)
    )


def parse_config(data: dict[str, Any], source: str = "config") -> BotConfig:
    try:
        return BotConfig.model_validate(data)
    except ValidationError as err:
        raise ConfigError(f"{source}: {problems(err)}") from None


def load_config(path: Path, required: bool = False) -> BotConfig:
    """Read `path`; a missing file gives the defaults unless `required` (the user named it)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if required:
            raise ConfigError(f"{path}: no such file") from None
        return BotConfig()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML ({err})") from None
    return parse_config(data, str(path))
