"""`/sam sensor rename <sensorId> <text>`: change a sensor's description (operation 9)."""

from __future__ import annotations

from bot.context import AppContext
from bot.forms.fields import parse_id, parse_name
from bot.render.common import escape, typed
from bot.render.forms import write_answer
from bot.roles import Role
from bot.slash.registry import Invocation, Reply, UsageError, subcommand
from bot.writes import WriteRequest, not_done_title, outcome_text, run_write, slash_key

USAGE = "/sam sensor rename <sensorId> <text>"


@subcommand(
    "sensor",
    "rename",
    usage=USAGE,
    summary="change a sensor's description",
    role=Role.TECHNICIAN,
    write=True,
    examples=('/sam sensor rename 10010101 "Front door (main entrance)"',),
)
def rename_sensor(inv: Invocation, ctx: AppContext) -> Reply:
    if len(inv.args) < 2:
        raise UsageError("give the sensor id and the new description")
    sensor_id = parse_id(inv.args[0], "sensorId")
    text = parse_name(" ".join(inv.args[1:]), "text")
    request = WriteRequest(
        slack_user=inv.user_id,
        command=f"sensor rename {sensor_id}",
        summary=f"sensor {sensor_id} description set to “{text}”",
        dedupe_key=slash_key(inv),
        org_id=inv.org_id,
        reference=inv.reference,
    )
    outcome = run_write(
        ctx, request, lambda: ctx.client.update_sensor_description(sensor_id, text, org=inv.org_id)
    )
    if outcome.ok:
        title = f"Sensor {sensor_id} renamed" if outcome.ran else outcome.message
        lines = [f"New description: {typed(text)}"] if outcome.ran else []
    else:
        title = not_done_title(outcome, f"Sensor {sensor_id} not renamed", f"Renaming sensor {sensor_id}")
        lines = [escape(outcome.message)]
    blocks = write_answer(title, lines, outcome.reference, ok=outcome.ok)
    text = outcome_text(title, outcome)
    return Reply(text=text, blocks=blocks, audit_summary=request.summary)
