"""Silent-panel supervision's rule (core/supervision.py) over a real cache file: `[supervision]` parsed once
with the config, the most specific silent_after winning and bad entries refused naming the field; silence
read from activities of any kind and from controller updates, never from samops' own alarms; one episode per
silence, its id stable and apart from every service eventId; the alarm row written again when the cache
loses it; a panel that reports again resolved by samops."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core import lifecycle, supervision
from core.alarms import is_alarm, is_supervision, silent_since
from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.clock import DAY_MS, HOUR_MS, MINUTE_MS
from core.config import ConfigError, parse_config
from core.priorities import Priorities, Priority
from core.read import at_risk_of
from core.read.history import cached_count
from core.supervision import SupervisionConfig, raise_silent, restore_reporting

T0 = 1_795_000_000_000
ORG = 1001


@pytest.fixture
def db(tmp_path: Path) -> Any:
    db = open_cache(tmp_path / "cache.db")
    with write_transaction(db):
        panels = [
            {"resource_id": 101, "org_id": ORG, "name": "Warehouse", "enabled": 1},
            {"resource_id": 102, "org_id": ORG, "name": "Office", "enabled": 1},
            {"resource_id": 103, "org_id": ORG, "name": "Shut down", "enabled": 0},
        ]
        upsert_dicts(db, "panels", panels, "resource_id")
    return db


def activity(db: Any, panel: int, at: int, event_id: str, kind: str = "event") -> None:
    with write_transaction(db):
        row = (event_id, panel, ORG, at, "Door opened", kind, None, None, None, None, None)
        upsert_activities(db, "activities", [row])


def controller_update(db: Any, panel: int, at: int) -> None:
    with write_transaction(db):
        row = {"resource_controller_id": panel * 100, "resource_id": panel, "order_no": 1, "last_update": at}
        upsert_dicts(db, "controller_values", [row], "resource_controller_id")


def config(**data: Any) -> SupervisionConfig:
    return parse_config({"supervision": data}).supervision


def raise_now(db: Any, cfg: SupervisionConfig, now: int, since: int = 0) -> list[str]:
    with write_transaction(db):
        return [a.event_id for a in raise_silent(db, cfg, now, since)]


def test_the_most_specific_silent_after_wins() -> None:
    cfg = config(silent_after="2d", orgs={"1001": "12h", "1002": "off"}, panels={"101": "90m", "102": "off"})
    assert cfg.after_for(ORG, 101) == 90 * MINUTE_MS
    assert cfg.after_for(ORG, 102) is None
    assert cfg.after_for(ORG, 104) == 12 * HOUR_MS
    assert cfg.after_for(1002, 201) is None
    assert cfg.after_for(None, 301) == 2 * DAY_MS
    assert SupervisionConfig().after_for(ORG, 101) == DAY_MS  # the default: a day


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"silent_after": 24}, "supervision.silent_after"),  # hours or minutes? refused
        ({"silent_after": "soon"}, "supervision.silent_after"),
        ({"silent_after": "0.5m"}, "supervision.silent_after"),  # shorter than a minute
        ({"orgs": {"acme": "2h"}}, "supervision.orgs.acme"),
        ({"panels": {"101": "2 weeks"}}, "supervision.panels.101"),
        ({"silent_afer": "2h"}, "supervision.silent_afer"),
    ],
)
def test_bad_entries_are_refused_naming_the_field(data: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config({"supervision": data}, "samops.toml")
    assert named in str(err.value)
    assert "\n" not in str(err.value)


def test_silence_is_read_from_activities_of_any_kind_and_controller_updates(db: Any) -> None:
    cfg = config(silent_after="24h")
    activity(db, 101, T0, "EV-1")  # an event, not an alarm, is a sign of life too
    controller_update(db, 102, T0 + 2 * HOUR_MS)
    assert raise_now(db, cfg, T0 + 24 * HOUR_MS - 1) == []
    assert raise_now(db, cfg, T0 + 24 * HOUR_MS) == [supervision.event_id(101, T0)]
    assert raise_now(db, cfg, T0 + 25 * HOUR_MS) == []  # one episode per silence, not one per look
    # 102 spoke two hours later; 103 is disabled in the service and expected to say nothing.
    assert raise_now(db, cfg, T0 + 26 * HOUR_MS) == [supervision.event_id(102, T0 + 2 * HOUR_MS)]


def test_silence_is_never_counted_from_before_samops_watched(db: Any) -> None:
    activity(db, 101, T0 - 7 * DAY_MS, "EV-1")  # quiet for a week before the first start at T0
    assert raise_now(db, config(silent_after="24h"), T0 + HOUR_MS, since=T0) == []
    assert raise_now(db, config(panels={"101": "24h"}, silent_after="off"), T0 + DAY_MS, since=T0) == [
        supervision.event_id(101, T0)
    ]
    # Once it reports, it was silent for the whole of it: from its last word, a week before samops watched.
    activity(db, 101, T0 + DAY_MS + HOUR_MS, "EV-2")
    with write_transaction(db):
        [done] = restore_reporting(db, T0 + DAY_MS + HOUR_MS)
    assert done.episode.restored_note == "restored after 193 h"


def test_the_card_says_how_long_the_panel_was_quiet_not_only_the_threshold(db: Any) -> None:
    activity(db, 101, T0 - 7 * DAY_MS, "EV-1")  # quiet for a week before samops watched (the trial's case)
    [event_id] = raise_now(db, config(silent_after="off", panels={"101": "24h"}), T0 + DAY_MS, since=T0)
    said = db.conn.execute("SELECT description FROM activities WHERE event_id = ?", [event_id]).fetchone()[0]
    # No clock time in the stored text: the card shows the alarm's own time in the organization's zone.
    assert said == (
        "No activity and no controller update for at least 24 h (last heard 192 h before this alarm)"
    )


def test_the_alarm_is_samops_own_and_never_a_service_event(db: Any) -> None:
    activity(db, 101, T0, "EV-1")
    [event_id] = raise_now(db, config(silent_after="off", panels={"101": "24h"}), T0 + DAY_MS)
    assert event_id == f"silent:101:{T0}" and is_supervision(event_id)
    row = db.conn.execute(
        "SELECT event_type, violation_type, violation_name, activity_time FROM activities WHERE event_id = ?",
        [event_id],
    ).fetchone()
    assert tuple(row) == ("supervision", "error", "Communication lost", T0 + DAY_MS)
    assert is_alarm(row[0], row[1])
    # P2 by default, through the priorities as every alarm: from its violationType, or a rule naming it.
    from core.read import alarms as read_alarms

    [alarm] = [a for a in read_alarms.recent_alarms(db, read_alarms.AlarmFilter()) if a.event_id == event_id]
    assert Priorities().of(alarm) is Priority.P2
    rules = parse_config({"priorities": [{"priority": "P1", "event_types": ["supervision"]}]}).priority_book()
    assert rules.of(alarm) is Priority.P1
    # A service record under samops' reserved id is not stored: the two can never be confused.
    activity(db, 101, T0 + DAY_MS + 1, f"SILENT:101:{T0}", kind="violation")
    assert db.conn.execute("SELECT count(*) FROM activities WHERE resource_id = 101").fetchone()[0] == 2
    # Reconciliation compares the service's count with the cache's: samops' own alarm is not counted.
    assert cached_count(db, ORG, T0, T0 + 2 * DAY_MS) == 1


def test_the_records_write_the_alarm_again_when_the_cache_loses_it(db: Any) -> None:
    activity(db, 101, T0, "EV-1")
    [event_id] = raise_now(db, config(silent_after="off", panels={"101": "24h"}), T0 + DAY_MS)
    with write_transaction(db):
        db.conn.execute(
            "DELETE FROM activities WHERE event_id = ?", [event_id]
        )  # a full sync's delete_missing
    with write_transaction(db):
        assert supervision.restore_rows(db) == 1
        assert supervision.restore_rows(db) == 0
    assert db.conn.execute("SELECT 1 FROM activities WHERE event_id = ?", [event_id]).fetchone()


@pytest.mark.parametrize("how", ["activity", "controller update"])
def test_a_panel_that_reports_again_is_resolved_by_samops(db: Any, how: str) -> None:
    activity(db, 101, T0, "EV-1")
    [event_id] = raise_now(db, config(silent_after="off", panels={"101": "24h"}), T0 + DAY_MS)
    with write_transaction(db):
        lifecycle.open_alarms(db, [(event_id, T0 + DAY_MS)], T0 + DAY_MS)  # as discovery opens it
        still = restore_reporting(db, T0 + 25 * HOUR_MS)
    assert still == []  # its own alarm is no sign of life
    if how == "activity":
        activity(db, 101, T0 + 26 * HOUR_MS - MINUTE_MS, "EV-2")
    else:
        controller_update(db, 101, T0 + 26 * HOUR_MS - MINUTE_MS)
    with write_transaction(db):
        [done] = restore_reporting(db, T0 + 26 * HOUR_MS)
        assert restore_reporting(db, T0 + 27 * HOUR_MS) == []  # once
    assert not done.unchanged and done.episode.restored_note == "restored after 26 h"
    state = lifecycle.get(db, event_id)
    assert state is not None and state.state is lifecycle.State.RESOLVED
    assert (state.resolved_by, state.note) == ("samops", "restored after 26 h")
    assert [e.event_id for e in supervision.untold(db)] == [event_id]
    # Silent again later: a new silence, a new alarm.
    assert raise_now(db, config(silent_after="off", panels={"101": "24h"}), T0 + 50 * HOUR_MS) == [
        supervision.event_id(101, T0 + 26 * HOUR_MS - MINUTE_MS)
    ]


def test_only_the_panels_whose_activities_are_read_are_supervised(db: Any) -> None:
    cfg = config(silent_after="24h")
    activity(db, 101, T0, "EV-1")
    activity(db, 102, T0, "EV-2")
    # The poller reads 102 alone (SAM_ORGANIZATION_ID, or 101 no longer listed): 101's silence means nothing.
    with write_transaction(db):
        raised = raise_silent(db, cfg, T0 + DAY_MS, 0, watched={102})
    assert [a.event_id for a in raised] == [supervision.event_id(102, T0)]
    with write_transaction(db):
        assert raise_silent(db, cfg, T0 + DAY_MS, 0, watched=set()) == []  # before the first poll: nothing


def test_a_full_sync_keeps_samops_own_alarms(db: Any) -> None:
    from core.cache.writes import delete_missing

    activity(db, 101, T0, "EV-1")
    [event_id] = raise_now(db, config(silent_after="off", panels={"101": "24h"}), T0 + DAY_MS)
    with write_transaction(db):
        assert delete_missing(db, "activities", "event_id", []) == 1  # the service lists nothing any more
    assert [r[0] for r in db.conn.execute("SELECT event_id FROM activities")] == [event_id]


def test_the_at_risk_list_says_when_a_panel_fell_silent_not_when_samops_noticed(db: Any) -> None:
    """A silence that is over is listed from the panel's last sign of life (the alarm's id keeps it), not
    from the alarm's own time, silent_after later (the trial of issue 24: 'was silent from' 2 min late)."""
    activity(db, 101, T0, "EV-1")
    [event_id] = raise_now(db, config(silent_after="off", panels={"101": "24h"}), T0 + DAY_MS)
    assert silent_since(event_id) == T0
    assert silent_since("EV-1") is None and silent_since("silent:1:x") is None
    with write_transaction(db):
        lifecycle.open_alarms(db, [(event_id, T0 + DAY_MS)], T0 + DAY_MS)
    activity(db, 101, T0 + 26 * HOUR_MS, "EV-2")
    with write_transaction(db):
        restore_reporting(db, T0 + 26 * HOUR_MS + MINUTE_MS)
    [silent] = at_risk_of(db, ORG, T0 + 27 * HOUR_MS).silent
    assert (silent.resource_id, silent.since, silent.now) == (101, T0, False)
