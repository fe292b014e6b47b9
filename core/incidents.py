"""Site incidents: the rule that joins evidence on one site into one incident (pure; no cache, no clock).

Evidence is what happened on a site: an alarm, a tamper or supervision error, a sensor going to error, a
camera of the site going offline or being disabled (core/cameras.py names each state).
Evidence of the same site joins an incident when its own time (the
activity's `activityTime`; for a camera, when the change was first seen) lies within the incident's span
widened by the window on both sides. So parts that ARRIVE out of order still join: a part arriving late with
an earlier time joins the incident whose span ± window covers it, and the timeline is ordered by time.
Evidence of two or more different kinds is an incident; repeated alarms of one kind alone are not.

"The same site", since the service has no site record: the same panel. A camera belongs to a panel's site
when it is in the same organization and its name contains the panel's name (case-insensitive, on word
boundaries), or when both carry the same tree path (the spec's Resource summary, which operation 17 answers
for cameras and the login lists for panels, has `treePath`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from core.alarms import is_alarm
from core.cameras import DISABLED, OFFLINE

DEFAULT_WINDOW_MS = 10 * 60_000

# The kinds of evidence, as the incident card's title names them.
ALARM = "alarm"
TAMPER = "tamper"
SUPERVISION = "supervision error"
SENSOR_ERROR = "sensor error"
CAMERA_OFFLINE = "camera offline"  # the service reports the camera offline
CAMERA_DISABLED = "camera disabled"  # its `enabled` turned false: out of service, not known to be offline
KINDS = (ALARM, TAMPER, SUPERVISION, SENSOR_ERROR, CAMERA_OFFLINE, CAMERA_DISABLED)
CAMERA_KINDS = {OFFLINE: CAMERA_OFFLINE, DISABLED: CAMERA_DISABLED}  # core.cameras.camera_down's word -> kind
CAMERA_REF = "camera:"  # how a camera change's ref starts; every other ref is an activity's eventId

ERROR = "error"  # the spec's eventType and violationType of an error


@dataclass(frozen=True)
class Evidence:
    """One thing that happened on a site. `ref` names it: an activity's eventId, or a camera change's id."""

    kind: str
    time: int  # epoch-ms: the activity's own time, or when a camera change was first seen
    panel: int
    org: int | None
    ref: str
    text: str = ""

    @property
    def event_id(self) -> str | None:
        """The activity's eventId (what operators quote to the service's support); None for a camera."""
        return None if self.ref.startswith(CAMERA_REF) else self.ref


def evidence_kind(
    event_type: str | None, violation_type: str | None, violation_name: str | None, description: str | None
) -> str | None:
    """What an activity is as site evidence, or None when it is none (an ordinary event).

    Tamper and supervision are named by the activity's violationName or description; an error (eventType or
    violationType `error`) that names a sensor is a sensor error, any other error a supervision error (the
    panel reporting its own trouble); any other alarm (core.alarms.is_alarm) is an alarm."""
    words = f"{violation_name or ''} {description or ''}".lower()
    error = (event_type or "").lower() == ERROR or (violation_type or "").lower() == ERROR
    if "tamper" in words:
        return TAMPER
    if "supervision" in words:
        return SUPERVISION
    if error:
        return SENSOR_ERROR if "sensor" in words else SUPERVISION
    if is_alarm(event_type, violation_type):
        return ALARM
    return None


def _words(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(name.strip())}(?!\w)", re.IGNORECASE)


def camera_on_site(
    camera_name: str | None,
    camera_tree_path: str | None,
    camera_org: int | None,
    panel_name: str | None,
    panel_tree_path: str | None,
    panel_org: int | None,
) -> bool:
    """Whether a camera belongs to a panel's site: same organization, and its name holds the panel's name
    as whole words, or both have the same tree path below the root (`/` is every resource's, no site's)."""
    if camera_org is None or camera_org != panel_org:
        return False
    if panel_name and panel_name.strip() and camera_name and _words(panel_name).search(camera_name):
        return True
    camera_place, panel_place = _site_path(camera_tree_path), _site_path(panel_tree_path)
    return camera_place is not None and camera_place == panel_place


def _site_path(tree_path: str | None) -> str | None:
    """A tree path as a place, or None when it names none: `/` (the root every resource sits under, so no
    site) and blank paths hold no place; `/a/b/` and `a/b` are the same place."""
    place = (tree_path or "").strip().strip("/").strip()
    return place or None


@dataclass(frozen=True)
class Span:
    """An incident's place in time on one panel: what new evidence is compared with."""

    panel: int
    first: int
    last: int

    def covers(self, time: int, window_ms: int) -> bool:
        return self.first - window_ms <= time <= self.last + window_ms

    def widened(self, time: int) -> Span:
        return Span(self.panel, min(self.first, time), max(self.last, time))


def place(spans: Sequence[Span], evidence: Evidence, window_ms: int) -> int | None:
    """The index of the incident that `evidence` joins (the earliest one of its panel whose span ± window
    covers its time), or None: it starts an incident of its own."""
    found = [
        (span.first, i)
        for i, span in enumerate(spans)
        if span.panel == evidence.panel and span.covers(evidence.time, window_ms)
    ]
    return min(found)[1] if found else None


@dataclass
class Incident:
    """Evidence joined by `place`. It is an incident once it holds two different kinds of evidence (an
    alarm and a tamper, an alarm and a camera offline): repeated alarms of one kind are what storm control
    groups, and each keeps its own card until something else happens on the site."""

    panel: int
    evidence: list[Evidence] = field(default_factory=list)

    @property
    def span(self) -> Span:
        times = [e.time for e in self.evidence]
        return Span(self.panel, min(times), max(times))

    @property
    def is_incident(self) -> bool:
        return len(self.kinds) >= 2

    @property
    def kinds(self) -> tuple[str, ...]:
        return kinds_of(e.kind for e in self.evidence)

    def timeline(self) -> list[Evidence]:
        return sorted(self.evidence, key=lambda e: (e.time, e.ref))


def kinds_of(kinds: Iterable[str]) -> tuple[str, ...]:
    """Distinct kinds in the order of KINDS (an alarm first), for the card's title."""
    present = set(kinds)
    return tuple(k for k in KINDS if k in present) + tuple(sorted(present - set(KINDS)))


def correlate(arrivals: Iterable[Evidence], window_ms: int = DEFAULT_WINDOW_MS) -> list[Incident]:
    """Join evidence in the order it ARRIVES, as the notifier does; a ref seen before is ignored."""
    incidents: list[Incident] = []
    seen: set[str] = set()
    for evidence in arrivals:
        if evidence.ref in seen:
            continue
        seen.add(evidence.ref)
        index = place([i.span for i in incidents], evidence, window_ms)
        if index is None:
            incidents.append(Incident(evidence.panel, [evidence]))
        else:
            incidents[index].evidence.append(evidence)
    return incidents
