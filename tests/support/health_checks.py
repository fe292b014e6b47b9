"""Every hypothesis health check, for the tests whose examples start processes (slow by design)."""

from __future__ import annotations

from hypothesis import HealthCheck

# hypothesis's HealthCheck iterates through an untyped metaclass __iter__ (it leaves out the deprecated
# checks), which a type checker reads as yielding the metaclass.
ALL_HEALTH_CHECKS: list[HealthCheck] = list(HealthCheck)  # pyright: ignore[reportAssignmentType]
