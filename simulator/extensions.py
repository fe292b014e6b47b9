"""Opt-in answers beyond the spec (`--extensions`). By default every record carries only the spec's fields.

A real service may well send more than the spec lists; these let a test or a demo show what samops does
with such fields, without the product quietly coming to depend on them.
"""

from __future__ import annotations

ACTIVITY_RESOURCE_ID = "activity-resource-id"
CAMERA_FIELDS = "camera-fields"

EXTENSIONS: dict[str, str] = {
    ACTIVITY_RESOURCE_ID: "activities of operations 3 and 20 carry `resourceId`, the panel they belong to",
    CAMERA_FIELDS: "operation 17's Resource summaries also carry the Camera record's fields except "
    "securityCode and ncCode (name, brand, deviceType, status, bindStatus, sdCardStatus, version, ...)",
}


def parse_extensions(text: str) -> frozenset[str]:
    """`all`, `none`, or a comma list of names; ValueError naming the unknown ones."""
    names = {part.strip() for part in text.split(",") if part.strip()}
    if names <= {"none"}:
        return frozenset()
    if "all" in names:
        return frozenset(EXTENSIONS)
    unknown = sorted(names - EXTENSIONS.keys())
    if unknown:
        raise ValueError(f"unknown extension {', '.join(unknown)}; known: {', '.join(EXTENSIONS)}, all, none")
    return frozenset(names)
