"""The `[notify]` section of the TOML config: routing rules, storm control, health notices, time zones.

[notify]
default_channel = "C_ALARMS"
ops_channel = "C_OPS"         # samops' own trouble: login refused or service unreachable, cards past SLA
interval = 5                  # seconds between polls (default: SAMOPS_POLL_INTERVAL)
source = "service"            # the notifier polls the service (default); "cache": another process does
timezone = "UTC"              # organizations without their own entry below
summary_hours = 24            # first start: alarms of the last N hours are summarized, not replayed

[notify.timezones]
"1001" = "Europe/Berlin"

[[notify.routes]]             # first match wins; unset fields match anything
channel = "C_FIRE"
org = 1001
panels = [100101]
event_types = ["violation"]
violation_types = ["alarm"]
escalate_after = [10, 30]     # minutes an alarm may stay open (unacknowledged) before each level
escalate_to = ["S0FIRE", ["U0LEAD", "C0MANAGERS"]]  # per level: a user group, users, channels

[notify.storm]
threshold = 10                # more than this many alarms for a channel within `window` → grouped cards
window = 60                   # seconds
posts_per_second = 1.0        # per channel
behind_after = 30             # seconds of backlog before the channel is told that delivery is behind

[notify.incidents]            # site incidents (core/incidents.py)
enabled = true
window = "10m"                # evidence of one site this close in time is one incident ("90s", "10m", "1h")
cameras_every = "60s"         # the notifier lists each organization's cameras this often (a camera down)

[notify.health]
after = 300                   # seconds the service may fail (login refused, unreachable) before a notice

[notify.channels.C_ALARMS]    # per channel
handover = ["07:00", "19:00"] # shift handover digests, in the organization's time zone
org = 1001                    # whose alarms and zone (default: [channels.C_ALARMS] org, else all)
at_risk = {}                  # the at-risk digest: weekly, Mondays 08:00 (docs/at_risk.md)

[[notify.maintenance]]        # a weekly maintenance window: alarms recorded, summarized afterwards
org = 1001                    # or panels = [100101, 100102]
days = ["sat", "sun"]         # the days it starts on (default: every day)
from = "22:00"                # in the organization's time zone (or `timezone = "Europe/Berlin"`)
to = "06:00"                  # not after `from`: the next day
reason = "weekend servicing"
hold_life_safety = false      # true (a fire-system test): fire, panic, medical, gas alarms are held too
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from core.alarms import Alarm, in_scope
from core.config.at_risk import AtRiskDigest
from core.config.errors import NotifyConfigError, one_line
from core.timefmt import host_zone, org_zone
from core.windows import Weekly, parse_clock, parse_day


def _known_zone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"{name!r} is not a known time zone (like Europe/Berlin)") from None
    return name


ZoneName = Annotated[str, AfterValidator(_known_zone)]


def _channel_id(value: str) -> str:
    if not value or not value.replace("_", "").isalnum() or not value[0].isalpha():
        raise ValueError(f"{value!r} is not a Slack channel id (like C0123ABCD)")
    return value


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_MENTION = re.compile(r"<!subteam\^([A-Z0-9]+)(?:\|[^>]*)?>|<@([A-Z0-9]+)>|<#([A-Z0-9]+)(?:\|[^>]*)?>")


def escalation_target(value: str) -> str:
    """An escalation target as a Slack mention: a user group (S…), a user (U… or W…) or a channel (C…, G…),
    given as its id or as the mention itself (`<!subteam^S0FIRE>`, `<@U0LEAD>`, `<#C0OPS>`)."""
    text = value.strip()
    if match := _MENTION.fullmatch(text):
        text = next(group for group in match.groups() if group)
    if not re.fullmatch(r"[A-Z][A-Z0-9]{1,30}", text or ""):
        raise ValueError(f"{value!r} is not a user group, user or channel id (like S0123, U0123, C0123)")
    if text[0] == "S":
        return f"<!subteam^{text}>"
    if text[0] in "UW":
        return f"<@{text}>"
    if text[0] in "CG":
        return f"<#{text}>"
    raise ValueError(f"{value!r} is not a user group (S…), user (U…, W…) or channel (C…, G…) id")


@dataclass(frozen=True)
class EscalationLevel:
    after_minutes: float
    targets: tuple[str, ...]  # Slack mentions


class Escalation(_Section):
    """Escalation levels: of a route, or of a priority (`[notify.escalation.P1]`)."""

    # Minutes, one per level (a single number: one level). Targets: a list of lists, one per level; a
    # single target or a flat list of targets is the same for every level.
    escalate_after: tuple[Annotated[float, Field(gt=0, le=7 * 24 * 60)], ...] = ()
    escalate_to: tuple[tuple[str, ...], ...] = ()

    @field_validator("escalate_after", mode="before")
    @classmethod
    def _after(cls, value: Any) -> Any:
        return [value] if isinstance(value, int | float) else value

    @field_validator("escalate_to", mode="before")
    @classmethod
    def _to(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [[value]]
        if not isinstance(value, list):
            return value
        levels = cast("list[object]", value)
        if all(isinstance(v, str) for v in levels):
            return [levels]  # one list of targets, for every level
        return [[v] if isinstance(v, str) else v for v in levels]

    @field_validator("escalate_to")
    @classmethod
    def _targets(cls, value: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        if any(not level for level in value):
            raise ValueError("every level needs at least one target")
        return tuple(tuple(escalation_target(t) for t in level) for level in value)

    @model_validator(mode="after")
    def _levels_match(self) -> Escalation:
        if bool(self.escalate_after) != bool(self.escalate_to):
            raise ValueError("escalate_after and escalate_to go together")
        if len(self.escalate_to) not in {1, len(self.escalate_after)}:
            raise ValueError("escalate_to needs one list of targets, or one per escalate_after level")
        if list(self.escalate_after) != sorted(set(self.escalate_after)):
            raise ValueError("escalate_after levels must be increasing")
        return self

    def escalation(self) -> tuple[EscalationLevel, ...]:
        """The levels, in order: when each one is due (minutes after the alarm) and whom it mentions."""
        targets = (
            self.escalate_to * len(self.escalate_after) if len(self.escalate_to) == 1 else self.escalate_to
        )
        return tuple(EscalationLevel(a, t) for a, t in zip(self.escalate_after, targets, strict=True))


class Route(Escalation):
    channel: str
    org: int | None = None
    panels: tuple[int, ...] = ()
    event_types: tuple[str, ...] = ()
    violation_types: tuple[str, ...] = ()

    @field_validator("channel")
    @classmethod
    def _channel(cls, value: str) -> str:
        return _channel_id(value)

    def matches(self, alarm: Alarm) -> bool:
        return in_scope(alarm, self.org, self.panels, self.event_types, self.violation_types)

    def describe(self) -> dict[str, str]:
        def show(values: tuple[Any, ...]) -> str:
            return ", ".join(map(str, values)) or "any"

        return {
            "org": "any" if self.org is None else str(self.org),
            "panels": show(self.panels),
            "event types": show(self.event_types),
            "violation types": show(self.violation_types),
        }


class StormConfig(_Section):
    threshold: int = Field(default=10, ge=1)
    window: float = Field(default=60, gt=0)
    posts_per_second: float = Field(default=1.0, gt=0, le=100)
    behind_after: float = Field(default=30, gt=0)
    details_per_reply: int = Field(default=200, ge=1, le=400)


_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(s|m|min|h)?", re.IGNORECASE)
_UNIT_S = {"s": 1, "m": 60, "min": 60, "h": 3600}


def duration_s(value: Any) -> float:
    """Seconds in "90s", "10m", "1h" or a bare number of seconds."""
    if isinstance(value, bool):
        raise ValueError('must be a duration like "10m", "90s" or "1h"')
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str) and (match := _DURATION.fullmatch(value.strip())):
        seconds = float(match[1]) * _UNIT_S[(match[2] or "s").lower()]
    else:
        raise ValueError(f'{value!r} is not a duration like "10m", "90s" or "1h"')
    return seconds


class IncidentsConfig(_Section):
    enabled: bool = True
    window: float = Field(default=600, description="seconds")
    cameras_every: float = Field(default=60, description="seconds")  # the service source's camera listing

    @field_validator("cameras_every", mode="before")
    @classmethod
    def _cameras_every(cls, value: Any) -> float:
        seconds = duration_s(value)
        if not 5 <= seconds <= 3600:
            raise ValueError("must be between 5 seconds and 1 hour")
        return seconds

    @field_validator("window", mode="before")
    @classmethod
    def _window(cls, value: Any) -> float:
        seconds = duration_s(value)
        if not 10 <= seconds <= 24 * 3600:
            raise ValueError("must be between 10 seconds and 24 hours")
        return seconds

    @property
    def window_ms(self) -> int:
        return int(self.window * 1000)


class HealthConfig(_Section):
    channel: str | None = None
    after: float = Field(default=300, gt=0)

    @field_validator("channel")
    @classmethod
    def _channel(cls, value: str | None) -> str | None:
        return value if value is None else _channel_id(value)


class ChannelNotify(_Section):
    handover: tuple[str, ...] = ()  # "HH:MM" in the zone of `org`
    org: int | None = None
    at_risk: AtRiskDigest | None = None  # the at-risk digest (bot/notify/at_risk.py)

    @field_validator("handover")
    @classmethod
    def _times(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for one in value:
            parse_clock(one)
        if len(set(map(parse_clock, value))) != len(value):
            raise ValueError("a handover time is listed twice")
        return value


class MaintenanceEntry(_Section):
    """A weekly maintenance window of some panels, or of every panel of an organization."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    panels: tuple[int, ...] = ()
    org: int | None = None
    days: tuple[str, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    start: str = Field(alias="from")
    end: str = Field(alias="to")
    timezone: ZoneName | None = None  # default: the organization's zone ([notify.timezones], else timezone)
    reason: str | None = Field(default=None, max_length=200)
    # For a fire-system test: hold life-safety alarms too (core/life_safety.py); else they are posted, marked.
    hold_life_safety: bool = False

    @field_validator("days")
    @classmethod
    def _days(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("name at least one day")
        for day in value:
            parse_day(day)
        return value

    @field_validator("start", "end")
    @classmethod
    def _clock(cls, value: str) -> str:
        parse_clock(value)
        return value

    @model_validator(mode="after")
    def _whole(self) -> MaintenanceEntry:
        if not self.panels and self.org is None:
            raise ValueError("name the panels or the org it covers")
        if parse_clock(self.start) == parse_clock(self.end):
            raise ValueError("`from` and `to` are the same time")
        return self

    def weekly(self, zone: ZoneInfo) -> Weekly:
        return Weekly(
            frozenset(parse_day(d) for d in self.days), parse_clock(self.start), parse_clock(self.end), zone
        )

    def key(self) -> str:
        """Names this entry in the cache, so each occurrence is recorded once (editing it makes a new one)."""
        data = self.model_dump(mode="json")
        if not data["hold_life_safety"]:  # unset: the key entries had before the option existed
            del data["hold_life_safety"]
        text = json.dumps(data, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


class NotifyConfig(_Section):
    default_channel: str | None = None
    # Where samops says it is in trouble (the service refusing the login or unreachable, cards past their
    # SLA) and recovered: bot/notify/ops_notices.py. The older spelling `[notify.health] channel` still works.
    ops_channel: str | None = None
    interval: float | None = Field(default=None, gt=0)  # None: SAMOPS_POLL_INTERVAL, the one default
    source: str = "service"  # the notifier hosts the alarm poller (core/poller.py)
    timezone: ZoneName = "UTC"
    timezones: dict[int, ZoneName] = Field(default_factory=dict)
    summary_hours: float = Field(default=24, ge=0)
    dashboard_url: str | None = None  # default: [dashboard].url, else SAMOPS_DASHBOARD_URL
    routes: tuple[Route, ...] = ()
    storm: StormConfig = Field(default_factory=StormConfig)
    health: HealthConfig = Field(default_factory=HealthConfig)
    incidents: IncidentsConfig = Field(default_factory=IncidentsConfig)
    # [notify.channels.<id>]; the attribute has another name because channels() lists the channels posted to
    per_channel: dict[str, ChannelNotify] = Field(default_factory=dict, alias="channels")
    maintenance: tuple[MaintenanceEntry, ...] = ()
    # [notify.escalation.P1]: escalation of an alarm by its priority (core/priorities.py), wherever it was
    # posted, when its route sets none of its own
    escalation: dict[Literal["P1", "P2", "P3", "P4"], Escalation] = Field(default_factory=dict)
    _users_zone: Callable[[int | None], str | None] | None = PrivateAttr(default=None)
    _shown: ZoneInfo | None = PrivateAttr(default=None)  # `on_console`: the machine's zone

    @field_validator("ops_channel")
    @classmethod
    def _ops_channel(cls, value: str | None) -> str | None:
        return value if value is None else _channel_id(value)

    @property
    def ops(self) -> str | None:
        """The ops channel: `ops_channel`, else `[notify.health] channel`; None: the console."""
        return self.ops_channel or self.health.channel

    @field_validator("per_channel")
    @classmethod
    def _channel_ids(cls, value: dict[str, ChannelNotify]) -> dict[str, ChannelNotify]:
        for name in value:
            _channel_id(name)
        return value

    @field_validator("default_channel")
    @classmethod
    def _default_channel(cls, value: str | None) -> str | None:
        return value if value is None else _channel_id(value)

    @field_validator("source")
    @classmethod
    def _source(cls, value: str) -> str:
        if value not in {"cache", "service"}:
            raise ValueError("must be 'cache' or 'service'")
        return value

    def route_for(self, alarm: Alarm) -> Route | None:
        """The first matching route (None: the default channel)."""
        return next((route for route in self.routes if route.matches(alarm)), None)

    def poll_interval(self, default: float) -> float:
        """Seconds between polls: `interval` when configured, else `default` (SAMOPS_POLL_INTERVAL)."""
        return default if self.interval is None else self.interval

    def channel_for(self, alarm: Alarm) -> str | None:
        """The first matching route's channel, else the default channel."""
        route = self.route_for(alarm)
        return route.channel if route is not None else self.default_channel

    def zone_for(self, org_id: int | None, fallback: str | None = None) -> ZoneInfo:
        """The organization's zone, core's one reading of it (`core.timefmt.org_zone`): `timezones`, else
        `timezone` when the file sets it, else the zone most of its cached users have (when this process
        reads a cache: `reading_users_zones`), else UTC. The dashboard's default is the same zone."""
        # With no organization, the one `timezones` names when it names one (core.timefmt.org_zone).
        by_org = org_id in self.timezones if org_id is not None else len(self.timezones) == 1
        named = "timezone" in self.model_fields_set or by_org
        if named:
            return org_zone({"timezones": self.timezones, "timezone": self.timezone}, org_id)
        if fallback is None and self._users_zone is not None:
            fallback = self._users_zone(org_id)
        return org_zone({"timezones": self.timezones}, org_id, fallback=fallback)

    def reading_users_zones(self, users_zone: Callable[[int | None], str | None]) -> NotifyConfig:
        """This config, with the cached users' zone (`core.read.UsersZones`) as the zone of an organization
        it names none for: how the bot and the notifier read it, so that their times agree with the
        dashboard's default. The parsed model itself is left as it is."""
        reading = self.model_copy()
        reading._users_zone = users_zone
        return reading

    def shown_zone_for(self, org_id: int | None) -> ZoneInfo:
        """The zone a message about `org_id` shows its times in: the organization's (`zone_for`), or the
        machine's where the messages are read on its console (`on_console`). `zone_for` still says when a
        handover, a digest, a maintenance window or quiet hours fall: the organization's clock."""
        return self._shown or self.zone_for(org_id)

    def on_console(self) -> NotifyConfig:
        """This config for a notifier with no Slack, whose cards and digests are printed on the console of
        the machine it runs on: shown in that machine's zone (`core.timefmt.host_zone`, TZ honoured), as
        the log lines above them are, rather than the organization's."""
        reading = self.model_copy()
        host = host_zone()
        reading._shown = host if isinstance(host, ZoneInfo) else None  # a nameless offset: the org's zone
        return reading

    def maintenance_zone(self, entry: MaintenanceEntry) -> ZoneInfo:
        return ZoneInfo(entry.timezone) if entry.timezone else self.zone_for(entry.org)

    def channel_uses(self) -> dict[str, list[str]]:
        """Every channel this section names, once each, with what for (`route 1`, `default`, `ops`,
        `handover 07:00, 19:00`, `escalation of route 1`: that one is mentioned, not posted to)."""
        uses: dict[str, list[str]] = {}

        def add(channel: str, use: str) -> None:
            if use not in uses.setdefault(channel, []):
                uses[channel].append(use)

        for number, route in enumerate(self.routes, 1):
            add(route.channel, f"route {number}")
            for level in route.escalation():
                for target in level.targets:
                    if target.startswith("<#"):
                        add(target[2:-1], f"escalation of route {number}")
        for name, plan in sorted(self.escalation.items()):
            for level in plan.escalation():
                for target in level.targets:
                    if target.startswith("<#"):
                        add(target[2:-1], f"escalation of {name}")
        if self.default_channel:
            add(self.default_channel, "default")
        if self.ops:
            add(self.ops, "ops")  # `[notify] ops_channel` (or `[notify.health] channel`)
        for channel, settings in self.per_channel.items():
            if settings.handover:
                add(channel, f"handover {', '.join(settings.handover)}")
            if settings.at_risk is not None:
                add(channel, settings.at_risk.describe())
        return uses

    def channels(self) -> list[str]:
        """Every channel the notifier may post to."""
        names = [r.channel for r in self.routes]
        names += [c for c in (self.default_channel, self.ops) if c]
        names += [c for c, settings in self.per_channel.items() if settings.handover or settings.at_risk]
        return list(dict.fromkeys(names))


def parse_notify(data: dict[str, Any], source: str = "config") -> NotifyConfig:
    try:
        return NotifyConfig.model_validate(data)
    except ValidationError as err:
        raise NotifyConfigError(f"{source}: {one_line(err, 'notify.')}") from None


def with_channel_orgs(section: object, data: dict[str, object]) -> object:
    """A handover channel without its own `org` takes the bot's `[channels.<id>] org`: one place to say it."""
    bot_channels, ours = data.get("channels"), _table(section).get("channels")
    if not isinstance(bot_channels, dict) or not isinstance(ours, dict):
        return section
    theirs = cast("dict[str, object]", bot_channels)
    merged: dict[str, object] = {}
    for name, settings in cast("dict[str, object]", ours).items():
        org = _table(theirs.get(name)).get("org")
        if isinstance(settings, dict) and "org" not in settings and org is not None:
            settings = {**cast("dict[str, object]", settings), "org": org}
        merged[name] = settings
    return {**_table(section), "channels": merged}


def _table(value: object) -> dict[str, object]:
    """A TOML table (string keys), or an empty one for anything else."""
    return cast("dict[str, object]", value) if isinstance(value, dict) else {}
