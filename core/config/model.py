"""The TOML config (`SAMOPS_CONFIG`), parsed once into one typed model: roles, channel defaults, audit
channel, dashboard, alarm priorities and their SLA (`[[priorities]]`, `[sla]`: core/priorities.py),
silent-panel supervision (`[supervision]`: core/supervision.py), the life-safety alarms no silence holds
(`[life_safety]`: core/life_safety.py), the heartbeat (`[heartbeat]`: core/heartbeat.py), the
dispositions and the false-alarm threshold (`[[dispositions]]`, `[false_alarms]`: core/dispositions.py), and
`[notify]` (its model: `core/config/notify.py`).

The bot, the notifier, `samops notify --check-config` and `samops up` read it through `load_config`, the
dashboard through `read_config`, and every part is handed the one `SamopsConfig` it gives. Each section
rejects keys it does not know, so a typo is an error at start naming the key, not a silent default.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from core.action_plans import DEFAULT_PLANS, ActionPlan, ActionPlans, check_names
from core.config.errors import ConfigError, one_line
from core.config.notify import NotifyConfig, with_channel_orgs
from core.dispositions import DEFAULTS as DISPOSITIONS
from core.dispositions import Disposition, Dispositions, FalseAlarmsConfig, checked_list
from core.heartbeat import HeartbeatConfig
from core.life_safety import LifeSafetyConfig
from core.priorities import Priorities, PriorityRule, SlaConfig
from core.supervision import SupervisionConfig

_SLACK_ID = re.compile(r"[UWS][A-Z0-9_]{1,40}")


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


class SamopsConfig(BaseModel):
    # Every section of the TOML is named here, so a misspelt one (`[role]` would drop every role list) is an
    # error naming it, as an unknown key inside one is.
    model_config = ConfigDict(extra="forbid", frozen=True)

    roles: RolesConfig = Field(default_factory=RolesConfig)
    channels: dict[str, ChannelConfig] = Field(default_factory=dict)
    audit: AuditConfig = Field(default_factory=AuditConfig)
    dashboard: DashboardConfig = Field(default_factory=DashboardConfig)
    notify: NotifyConfig = Field(default_factory=NotifyConfig)
    priorities: tuple[PriorityRule, ...] = ()
    sla: SlaConfig = Field(default_factory=SlaConfig)
    supervision: SupervisionConfig = Field(default_factory=SupervisionConfig)
    life_safety: LifeSafetyConfig = Field(default_factory=LifeSafetyConfig)
    heartbeat: HeartbeatConfig = Field(default_factory=HeartbeatConfig)  # core/heartbeat.py
    action_plans: tuple[ActionPlan, ...] | None = None  # None: DEFAULT_PLANS (core/action_plans.py)

    @field_validator("action_plans")
    @classmethod
    def _plan_names(cls, plans: tuple[ActionPlan, ...] | None) -> tuple[ActionPlan, ...] | None:
        return None if plans is None else check_names(plans)

    # `[[dispositions]]` (replacing the defaults) and `[false_alarms]`: core/dispositions.py.
    dispositions: tuple[Disposition, ...] = DISPOSITIONS
    false_alarms: FalseAlarmsConfig = Field(default_factory=FalseAlarmsConfig)

    @field_validator("dispositions")
    @classmethod
    def _dispositions(cls, value: tuple[Disposition, ...]) -> tuple[Disposition, ...]:
        return checked_list(value)

    @model_validator(mode="before")
    @classmethod
    def _handover_orgs(cls, data: object) -> object:
        if not isinstance(data, dict):
            return data
        table = cast("dict[str, object]", data)  # TOML: string keys
        if "notify" not in table:
            return table
        return {**table, "notify": with_channel_orgs(table["notify"], table)}

    def priority_book(self) -> Priorities:
        """The priority rules and their SLA, as every reader of priorities takes them."""
        return Priorities(self.priorities, self.sla)

    def plan_book(self) -> ActionPlans:
        """The action plans (the defaults when the file names none), chosen by the priorities above."""
        plans = DEFAULT_PLANS if self.action_plans is None else self.action_plans
        return ActionPlans(plans, self.priority_book())

    def disposition_list(self) -> Dispositions:
        """The dispositions the Resolve form offers, in their order."""
        return Dispositions(self.dispositions)

    def channel_org(self, channel_id: str) -> int | None:
        channel = self.channels.get(channel_id)
        return channel.org if channel else None

    def dashboard_url(self, default: str) -> str:
        """Where the dashboard is, for links: `[notify] dashboard_url`, else `[dashboard] url`, else `default`
        (SAMOPS_DASHBOARD_URL)."""
        return self.notify.dashboard_url or self.dashboard.url or default


def parse_config(data: dict[str, Any], source: str = "config") -> SamopsConfig:
    try:
        return SamopsConfig.model_validate(data)
    except ValidationError as err:
        raise ConfigError(f"{source}: {one_line(err)}") from None


def load_config(path: Path, required: bool = False) -> SamopsConfig:
    """Read `path`; a missing file gives the defaults unless `required` (the user named it)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if required:
            raise ConfigError(f"{path}: no such file") from None
        return SamopsConfig()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML ({err})") from None
    return parse_config(data, str(path))


def read_config(path: Path) -> tuple[SamopsConfig, str | None]:
    """The config for a reader that goes on with the defaults when the file cannot be used (the dashboard):
    the model, and why the file could not be used (the one line `load_config` raises), if so. A missing file
    is the defaults, as for `load_config`."""
    try:
        return load_config(path), None
    except ConfigError as err:
        return SamopsConfig(), str(err)
