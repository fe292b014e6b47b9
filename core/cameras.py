"""What is wrong with a camera, from what the service sent: one judgement for the cache's incident evidence
(core/cache/incidents.py), the read API's camera list, the dashboard and `/sam cameras`."""

from __future__ import annotations

from collections.abc import Iterable

# The one word for each state a camera can be down in, everywhere (the Overview, the Cameras page, `/sam
# cameras`, the handover and incident cards): the service reports it offline, or its `enabled` is false.
OFFLINE = "offline"
DISABLED = "disabled"

# Camera values that mean all is well; the spec does not enumerate them, so anything else is a problem.
CAMERA_OK_STATUS = frozenset({"online", "on", "1", "normal", "ok", "connected", "true"})
SD_CARD_OK = frozenset({"normal", "ok", "1", "healthy", "good", "none", "no_card", "nocard", "not_present"})


def camera_problems(
    status: str | None, bind_status: str | None, sd_card: str | None, enabled: bool | None = None
) -> tuple[str, ...]:
    """What is wrong with a camera, from what the service sent: operation 17 promises only a Resource
    summary (`enabled`), so a missing status is "not reported", never "offline"."""
    problems: list[str] = []
    if enabled is False:
        problems.append(DISABLED)
    state = (status or "").strip().lower()
    if state in ("offline", "off", "0", "false", "disconnected"):
        problems.append(OFFLINE)
    elif state and state not in CAMERA_OK_STATUS:
        problems.append(f"status: {status}")
    if sd_card is not None and sd_card.strip().lower() not in SD_CARD_OK:
        problems.append(f"sd card: {sd_card}")
    if (bind_status or "").strip().lower() in ("unbound", "unbind", "0", "false"):
        problems.append("not bound")
    return tuple(problems)


def camera_down(problems: Iterable[str]) -> str | None:
    """Whether a camera is down, from `camera_problems`: OFFLINE when the service reports it so, else
    DISABLED when it is out of service; None when it is neither (an SD-card fault, an unknown status)."""
    found = set(problems)
    return OFFLINE if OFFLINE in found else DISABLED if DISABLED in found else None
