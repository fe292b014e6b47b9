"""samops' one configuration model.

Two parts, each read once per process:
- the environment and `.env` (`core.settings.Settings`, pydantic-settings: service, Slack, ports, paths);
- the TOML file it names, `SAMOPS_CONFIG` (default `samops.toml`), parsed into `SamopsConfig` (`model.py`):
  roles, channels, `[notify]` (`notify.py`), priorities and SLA, plans, dispositions, supervision and
  life-safety (their section models live with their rules: core/priorities.py, core/action_plans.py, ...).

The bot, the notifier, the dashboard and the CLI all read the file through `load_config` (the dashboard
through `read_config`, which answers the defaults and the one-line reason when the file cannot be used). No
other module reads it, and the model holds values only: nothing in it reads the database.
"""

from core.config.at_risk import AtRiskDigest
from core.config.errors import ConfigError, NotifyConfigError, one_line
from core.config.model import (
    AuditConfig,
    ChannelConfig,
    DashboardConfig,
    RolesConfig,
    SamopsConfig,
    load_config,
    parse_config,
    read_config,
)
from core.config.notify import (
    ChannelNotify,
    Escalation,
    EscalationLevel,
    HealthConfig,
    IncidentsConfig,
    MaintenanceEntry,
    NotifyConfig,
    Route,
    StormConfig,
    parse_notify,
)

__all__ = [
    "AtRiskDigest",
    "AuditConfig",
    "ChannelConfig",
    "ChannelNotify",
    "ConfigError",
    "DashboardConfig",
    "Escalation",
    "EscalationLevel",
    "HealthConfig",
    "IncidentsConfig",
    "MaintenanceEntry",
    "NotifyConfig",
    "NotifyConfigError",
    "RolesConfig",
    "Route",
    "SamopsConfig",
    "StormConfig",
    "load_config",
    "one_line",
    "parse_config",
    "parse_notify",
    "read_config",
]
