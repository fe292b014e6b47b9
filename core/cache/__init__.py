"""The cache: the SQLite file every part shares, and every write to it.

`bot/`, `dashboard/` and `samops/` use these names only (`from core import cache`, then `cache.enqueue(...)`,
or `from core.cache import Card`); the modules behind them are private to core, and every SQL statement of
samops sits in them or in `core.read` (tests/test_storage_boundary.py holds both to it). A name too generic
to stand alone is given its module's word here (`audit.record` is `record_audit`). core/read builds on this
package, never the other way round; core's own modules import the modules here directly.

- `db`: opening the files (`open_cache` to write, `open_reader` for pages; `reopen_if_replaced` once per
  poll); `records`: which tables are the team's own, in records.db; `service`: one service per cache;
  `transactions`: one write at once;
- `outbox`: what the notifier discovered, posted and still has to post, its cards and its small state;
- `incidents`: site incidents, their evidence and cards; `quiet`: silences and maintenance windows;
- `claims`: keys taken once across processes; `audit`: what people did through the bot; `tasks`: task forms;
  `plans`: action-plan ticks and overrides; `paging`: personal paging preferences and the pages sent;
- `writes`: the synced tables' rows; `lifecycle`, `cursors`, `sync_state`, `panel_access`, `schema`,
  `alarm_sql`: core's own.

CONTRACT: these names are what `bot/`, `dashboard/` and `samops/` are written against (docs/architecture.md).
"""

from core.cache.audit import OUTCOMES as AUDIT_OUTCOMES
from core.cache.audit import AuditEntry
from core.cache.audit import recent as recent_audit
from core.cache.audit import record as record_audit
from core.cache.audit import settle as settle_audit
from core.cache.claims import claim_once, end_lease, is_claimed, process_owner, take_lease
from core.cache.claims import release as release_claim
from core.cache.db import CacheUnavailableError, RecordsLostError, open_cache, open_reader, reopen_if_replaced
from core.cache.incidents import IncidentRow, camera_changes_since, note_camera_changes
from core.cache.incidents import alarms as incident_alarms
from core.cache.incidents import by_card as incident_by_card
from core.cache.incidents import channels_to_edit as incident_channels_to_edit
from core.cache.incidents import get as get_incident
from core.cache.incidents import mark_edited as mark_incident_edited
from core.cache.incidents import of_event as incident_of_event
from core.cache.incidents import record as record_evidence
from core.cache.incidents import set_card as set_incident_card
from core.cache.incidents import timeline as incident_timeline
from core.cache.incidents import to_edit as incidents_to_edit
from core.cache.outbox import (
    CONSOLE,
    GROUPED,
    PENDING,
    POSTED,
    SILENCED,
    CardCounts,
    CardThread,
    OutboxEntry,
    advance_seen_watermark,
    advance_watermark,
    alarms_before,
    any_state,
    card_counts,
    cards,
    clear_states,
    delivered_since,
    discovery_since,
    enqueue,
    get_alarm,
    get_state,
    mark_delivered,
    open_card,
    pending,
    pending_channels,
    record_failure,
    save_card,
    seen_since,
    set_state,
    silence_until,
    track_card,
    undetailed,
    undiscovered_alarms,
    undiscovered_arrivals,
)
from core.cache.paging import (
    claim_page,
    claimed_pages,
    follow_zone,
    mark_page_sent,
    page_at,
    pages_sent,
    prefs_of,
    prefs_of_all,
    release_page,
)
from core.cache.paging import set_prefs as set_page_prefs
from core.cache.plans import Override as PlanOverride
from core.cache.plans import Tick as PlanTick
from core.cache.plans import override_of as plan_override_of
from core.cache.plans import record_overrides as record_plan_overrides
from core.cache.plans import tick as tick_plan_step
from core.cache.plans import ticks as plan_ticks
from core.cache.quiet import (
    add_window,
    ended_unsummarized,
    mark_summarized,
    pass_on_held,
    record_held,
    record_marked,
    silence_panel,
)
from core.cache.quiet import lift as lift_window
from core.cache.quiet import overlapping as overlapping_windows
from core.cache.service import Service
from core.cache.sync_state import record_login_refusal
from core.cache.tasks import KnownTask, load_task, save_task
from core.cache.transactions import BusyError, is_busy, savepoint, write_transaction
from core.cache.writes import camera_row, upsert_dicts

__all__ = [
    "AUDIT_OUTCOMES",
    "CONSOLE",
    "GROUPED",
    "PENDING",
    "POSTED",
    "SILENCED",
    "AuditEntry",
    "BusyError",
    "CacheUnavailableError",
    "CardCounts",
    "CardThread",
    "IncidentRow",
    "KnownTask",
    "OutboxEntry",
    "PlanOverride",
    "PlanTick",
    "RecordsLostError",
    "Service",
    "add_window",
    "advance_seen_watermark",
    "advance_watermark",
    "alarms_before",
    "any_state",
    "camera_changes_since",
    "camera_row",
    "card_counts",
    "cards",
    "claim_once",
    "claim_page",
    "claimed_pages",
    "clear_states",
    "delivered_since",
    "discovery_since",
    "end_lease",
    "ended_unsummarized",
    "enqueue",
    "follow_zone",
    "get_alarm",
    "get_incident",
    "get_state",
    "incident_alarms",
    "incident_by_card",
    "incident_channels_to_edit",
    "incident_of_event",
    "incident_timeline",
    "incidents_to_edit",
    "is_busy",
    "is_claimed",
    "lift_window",
    "load_task",
    "mark_delivered",
    "mark_incident_edited",
    "mark_page_sent",
    "mark_summarized",
    "note_camera_changes",
    "open_cache",
    "open_card",
    "open_reader",
    "overlapping_windows",
    "page_at",
    "pages_sent",
    "pass_on_held",
    "pending",
    "pending_channels",
    "plan_override_of",
    "plan_ticks",
    "prefs_of",
    "prefs_of_all",
    "process_owner",
    "recent_audit",
    "record_audit",
    "record_evidence",
    "record_failure",
    "record_held",
    "record_login_refusal",
    "record_marked",
    "record_plan_overrides",
    "release_claim",
    "release_page",
    "reopen_if_replaced",
    "save_card",
    "save_task",
    "savepoint",
    "seen_since",
    "set_incident_card",
    "set_page_prefs",
    "set_state",
    "settle_audit",
    "silence_panel",
    "silence_until",
    "take_lease",
    "tick_plan_step",
    "track_card",
    "undetailed",
    "undiscovered_alarms",
    "undiscovered_arrivals",
    "upsert_dicts",
    "write_transaction",
]
