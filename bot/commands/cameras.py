"""`/sam cameras [filter]`: the caller's cameras, live (operation 17), those with problems first."""

from __future__ import annotations

from bot.context import AppContext
from bot.render.lists import cameras_blocks
from bot.slash.registry import Invocation, Reply, subcommand
from core.models import CameraSummary
from core.read import camera_problems


def problems_of(cam: CameraSummary) -> tuple[str, ...]:
    return camera_problems(cam.status, cam.bind_status, cam.sd_card_status, cam.enabled)


def matches(cam: CameraSummary, text: str) -> bool:
    fields = (
        cam.name,
        cam.resource_name,
        cam.brand,
        cam.device_model,
        cam.model_name,
        cam.status,
        cam.device_type,
    )
    return text in str(cam.resource_id) or any(text in (f or "").lower() for f in fields)


@subcommand(
    "cameras",
    usage="/sam cameras [filter]",
    summary="cameras, problems first; filter by name, brand, model or status, or `problems`",
    examples=("/sam cameras", "/sam cameras problems", "/sam cameras kadikoy"),
)
def cameras(inv: Invocation, ctx: AppContext) -> Reply:
    text = " ".join(inv.args).strip()
    wanted = text.lower()
    found = [(cam, problems_of(cam)) for cam in ctx.client.list_cameras(org=inv.org_id)]
    if wanted in {"problems", "problem", "broken"}:
        found = [(c, p) for c, p in found if p]
    elif wanted:
        found = [(c, p) for c, p in found if matches(c, wanted)]
    found.sort(key=lambda cp: (not cp[1], (cp[0].name or "").lower(), cp[0].resource_id or 0))
    message = cameras_blocks(found, text)
    return Reply(text=message.text, blocks=message.blocks)
