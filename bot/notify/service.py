"""The notifier loop: discover new alarms into the outbox, deliver them (singly or grouped in a storm),
and send health notices.

Exactly once: an alarm is recorded 'pending' in the same transaction that discovers it, posted, then
recorded 'posted' with its ts. Before a notifier posts anything in a channel (cards, storm and incident cards,
their threads, the behind notice) it leases the channel's deliveries in the records (`deliver:<channel>`,
core/cache/claims.py) and reads what is pending only then, so a second notifier on the same records (a
standby, or one started by hand with `--beside`) never posts what the first is posting or has recorded. A
kill between Slack's answer and the record repeats that one message once the lease is free (at once on this
machine: its owner's pid is gone); nothing is lost because discovery is "every alarm after the watermark
(minus an overlap, never before the baseline or what the source may still write) not in the outbox yet".
The watermark keeps a poll's cost that of the overlap window, not of the install's history.

The alarm path comes first: `alarm_cycle` (poll, discover, deliver) runs on the notifier's thread, and the
timed jobs (escalation, paging, digests, maintenance ends, supervision's restorations, the camera listing,
overdue and keyholder edits: bot/notify/jobs.py, one registry) run after it in `cycle` or, in a long-running
notifier, on a thread of their own, so none of them holds up the next poll or its cards.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot import cards
from bot.notify.at_risk import AtRiskDigests
from bot.notify.delivery import Delivery, DeliveryError, NotYet, SlackDelivery
from bot.notify.escalation import Escalator
from bot.notify.handover import Handovers
from bot.notify.incidents import IncidentCards
from bot.notify.jobs import Job, JobRunner, Step, run_all
from bot.notify.keyholders import KeyholderCards
from bot.notify.ops_notices import SLA, HealthMonitor, Notice, sla_failing_since, sync_failing_since
from bot.notify.overdue import OverdueCards
from bot.notify.paging import Directory, Pager
from bot.notify.quiet import QuietHours
from bot.notify.storm import StormCards
from bot.notify.supervision import Supervision
from bot.notify.watch import CycleWatch
from bot.render import alarms as render
from core import cache, lifecycle, read
from core.action_plans import ActionPlans
from core.alarms import Alarm
from core.cache import CardThread, OutboxEntry, write_transaction
from core.clock import now_ms
from core.config import NotifyConfig
from core.errors import SamError
from core.life_safety import LifeSafetyConfig
from core.notify.source import ServiceSource, Source
from core.priorities import Priorities
from core.sqlite_lib import sqlite_utils
from core.supervision import SupervisionConfig
from core.text import counted, duration

CONSOLE_CHANNEL = "console"
MAX_BACKOFF_S = 60.0
# A channel's deliveries are leased (core/cache/claims.py) for this long: far longer than one delivery takes
# with Slack slow (its client's 30 s timeout, a retry), so a live notifier never loses its lease midway; a
# dead one's is free at once on this machine (its pid is gone).
DELIVERY_LEASE_MS = 10 * 60_000
LEASE_RETRY_S = 0.5  # another notifier delivers the channel: look again this soon

log = logging.getLogger(__name__)


@dataclass
class Notifier:
    db: sqlite_utils.Database
    config: NotifyConfig
    delivery: Delivery
    source: Source
    dashboard_url: str
    started_at: int = field(default_factory=now_ms)
    _backoff: dict[str, tuple[float, float]] = field(default_factory=dict)  # channel -> (until, seconds)
    _service_failing_since: int | None = None
    storm: StormCards = field(init=False)
    _service_error: str = ""
    _login_recorded: str | None = None
    # Silences, maintenance, handovers and escalation run on it (tests pass a fake clock).
    clock: Callable[[], int] = now_ms
    quiet: QuietHours = field(init=False)
    handovers: Handovers = field(init=False)
    at_risk: AtRiskDigests = field(init=False)
    incidents: IncidentCards = field(init=False)
    # The priorities and their SLA ([[priorities]], [sla]): the cards show them, and an open card past its
    # SLA is edited once to say it is overdue.
    priorities: Priorities = field(default_factory=Priorities)
    overdue: OverdueCards = field(init=False)
    keyholders: KeyholderCards = field(init=False)  # edits cards drawn before their keyholder line was read
    plans: ActionPlans = field(default_factory=lambda: ActionPlans(()))  # [[action_plans]]: the checklists
    # Silent-panel supervision ([supervision], core/supervision.py): off unless given (`samops notify` gives
    # the config's, on by default), so that a notifier built for one test pages about nothing else.
    supervision_config: SupervisionConfig | None = None
    supervision: Supervision = field(init=False)
    pager: Pager = field(init=False)  # direct messages to people (bot/notify/paging.py)
    # [life_safety] (core/life_safety.py): the alarms no silence holds, posted marked during maintenance.
    life_safety: LifeSafetyConfig = field(default_factory=LifeSafetyConfig)
    owner: str = field(default_factory=cache.process_owner)  # whose leases this notifier takes
    # Records that alarms flow, promises `samops up` the next cycle, beats the heartbeat: bot/notify/watch.py.
    watch: CycleWatch | None = None
    escalator: Escalator = field(init=False)
    # The cache's file: given, a long-running notifier runs its timed jobs on a thread of their own with a
    # connection of their own (bot/notify/jobs.py); None (in-process tests), after the alarm path.
    db_path: Path | None = None

    def __post_init__(self) -> None:
        self.storm = StormCards(self.db, self.config, self.delivery, self.drawing)
        self.quiet = QuietHours(self.db, self.config, self.delivery, self.clock, self.life_safety)
        self.handovers = Handovers(self.db, self.config, self.delivery, self.clock, self.priorities)
        self.at_risk = AtRiskDigests(self.db, self.config, self.delivery, self.clock)
        self.incidents = IncidentCards(self.db, self.config, self.delivery, self.drawing, self.clock)
        self.overdue = OverdueCards(
            self.db, self.priorities, self.config.channels, self.delivery, self.drawing, self.clock
        )
        self.keyholders = KeyholderCards(self.db, self.delivery, self.drawing, self.clock)
        self.escalator = Escalator(self.db, self.config, self.delivery, self.clock, self.priorities)
        off = SupervisionConfig(silent_after=None)
        self.supervision = Supervision(
            self.db,
            self.supervision_config or off,
            self.delivery,
            self.drawing,
            self.clock,
            self.baseline,
            self._watched,
            lambda: self._service_failing_since is None,
        )
        directory = Directory(self.delivery.client) if isinstance(self.delivery, SlackDelivery) else None
        self.pager = Pager(
            self.db, self.config, self.delivery, self.drawing, self.clock, self.priorities, directory
        )

    # --- start ----------------------------------------------------------------------------------------

    def start(self) -> int:
        """On the very first start fix the baseline (the migrations made our tables); returns the baseline."""
        with write_transaction(self.db):
            baseline = cache.get_state(self.db, "baseline")
            if baseline is None:
                baseline = str(now_ms())
                cache.set_state(self.db, "baseline", baseline)
                cache.set_state(self.db, "summary", "pending")
        self.storm.reopen()
        return int(baseline)

    def baseline(self) -> int:
        return int(cache.get_state(self.db, "baseline") or 0)

    # --- one cycle ------------------------------------------------------------------------------------

    def cycle(self) -> float:
        """The alarm path, then every timed job once; returns how soon the next cycle is worth running (s)."""
        wait = self.alarm_cycle()
        run_all(self.timed_jobs(), self.clock())
        return wait

    def alarm_cycle(self) -> float:
        """Poll, discover, check health, deliver: the path from a new alarm to its card, which waits for no
        timed job; returns how soon delivery is worth trying again (s)."""
        self._poll()
        self._post_first_start_summary()
        self.discover()
        self._check_health()
        return self.deliver()

    def run(self, interval: float, stop: threading.Event, once: bool = False) -> None:
        jobs: JobRunner | None = None
        started, next_poll = False, 0.0
        try:
            while not stop.is_set():
                if jobs is not None and jobs.failed is not None:
                    raise jobs.failed  # the timed jobs' thread stopped on an error: the notifier stops too
                try:
                    # A cache deleted under the notifier: a fresh one, that this cycle's poll refills (with
                    # the panels listed again, or its cards would name no panel until the sync's next
                    # listing).
                    if cache.reopen_if_replaced(self.db) and isinstance(self.source, ServiceSource):
                        self.source.poller.forget_panels()
                    if not started:
                        self.start()
                        started = True
                        jobs = self._start_jobs(interval, once)
                        if self.watch is not None:
                            self.watch.started()
                    if time.monotonic() >= next_poll:
                        next_poll = time.monotonic() + interval
                        wait = self.alarm_cycle() if jobs is not None else self.cycle()
                        if self.watch is not None:
                            self.watch.cycle_done(self._service_failing_since is None, not self._backoff)
                    else:
                        wait = self.deliver()  # between polls, only what pacing allows now
                except sqlite3.OperationalError as err:
                    # The sync can hold the write lock longer than the busy timeout; nothing is half-done
                    # (every step is its own transaction), so the next cycle simply goes on.
                    log.warning("notify: the cache is busy (%s); trying again", err)
                    stop.wait(interval)
                    continue
                if once:
                    # --once: finish delivering what was discovered, then stop.
                    while wait < interval and self._has_work() and not stop.is_set():
                        stop.wait(max(wait, 0.02))
                        wait = self.deliver()
                    return
                until_poll = max(0.0, next_poll - time.monotonic())
                stop.wait(min(until_poll, max(wait, 0.02)) if self._has_work() else until_poll)
        finally:
            if jobs is not None:
                jobs.stop()

    def _start_jobs(self, interval: float, once: bool) -> JobRunner | None:
        """The timed jobs on their own thread and connection (a long-running notifier given its cache's
        path); None: they run in `cycle`, after the alarm path (`--once`, in-process tests)."""
        if once or self.db_path is None:
            return None
        path = self.db_path

        def build() -> tuple[sqlite_utils.Database, list[Job]]:
            beside = replace(self, db=cache.open_cache(path), _backoff={})
            return beside.db, beside.timed_jobs()

        return JobRunner(build, self.clock, interval).start()

    def timed_jobs(self) -> list[Job]:
        """Every timed job (bot/notify/jobs.py), in the order they run after the alarm path: the one
        registry, where a new job is one line."""
        return [
            Step(
                "supervision", self.supervision.tick
            ),  # resolve panels that reported again, tell their cards
            Step("maintenance", self.quiet.tick),  # the TOML's windows in force, summaries of those ended
            Step("handover", self.handovers.tick),
            Step("at-risk", self.at_risk.tick),
            Step("cameras", lambda: self.source.poll_cameras(self.db)),  # a paced read: incidents' evidence
            Step("escalation", self.escalator.run),
            Step("paging", self.pager.run),
            Step("overdue", self.overdue.run),
            Step("keyholders", self.keyholders.run),
        ]

    def _poll(self) -> None:
        try:
            self.source.poll(self.db, self.baseline())
        except SamError as err:
            self._service_error = f"{type(err).__name__}: {err}"
            if self._service_failing_since is None:  # an outage is one line when it starts, one when it ends
                self._service_failing_since = now_ms()
                log.warning(
                    "notify: the service failed: %s (polls go on; a line when it answers again)",
                    self._service_error,
                )
            return
        finally:
            self._record_login()
        if self._service_failing_since is not None:
            lasted = duration((now_ms() - self._service_failing_since) / 1000)
            log.warning("notify: the service answers again, after %s unavailable", lasted)
        self._service_failing_since = None

    def _record_login(self) -> None:
        """The service client's refused-login back-off into the cache for `samops status`, when it changed."""
        if not isinstance(self.source, ServiceSource):
            return
        refusal = self.source.client.login_backoff.refusal
        now = refusal.to_json() if refusal is not None else None
        if now != self._login_recorded:
            with write_transaction(self.db):
                cache.record_login_refusal(self.db, "notify", now)
            self._login_recorded = now

    def discover(self) -> int:
        """Record every new alarm in the outbox ('pending', or 'silenced'), in one transaction."""
        with write_transaction(self.db):
            since = cache.discovery_since(self.db, self.baseline(), self.source.floor(self.db))
            found = cache.undiscovered_alarms(self.db, since)
            cache.advance_watermark(self.db, found, now_ms())
            # Late arrivals (docs/history.md): found by when samops saw them, their own time long past.
            arrived = cache.undiscovered_arrivals(self.db, cache.seen_since(self.db, self.baseline()))
            cache.advance_seen_watermark(self.db, len(arrived))
            listed = {a.event_id for a in found}
            found += sorted((a for a in arrived if a.event_id not in listed), key=lambda a: a.activity_time)
            # samops' own alarms: panels newly silent ("communication lost", bot/notify/supervision.py).
            listed = {a.event_id for a in found}
            found += [a for a in self.supervision.raise_due() if a.event_id not in listed]
            # In a silence or maintenance window: recorded, not posted (life-safety alarms: posted, marked).
            quieted = self.quiet.holding(found)
            held = {event_id: window.id for event_id, window in quieted.held.items()}
            entries = [
                (a.event_id, self._channel_for(a), cache.SILENCED if a.event_id in held else cache.PENDING)
                for a in found
            ]
            cache.enqueue(self.db, entries)
            self.quiet.record(quieted)
            self._open_lifecycle(found, held)
            self.incidents.discover(found, held, since)
        if entries:
            # The held ones counted apart, and each told with its reason: none is held out of sight.
            apart = f" ({len(held)} held back, {len(entries) - len(held)} to post)" if held else ""
            log.info("notify: %s%s", counted(len(entries), "new alarm"), apart)
            self.quiet.tell(found, quieted)
        return len(entries)

    # --- the alarm lifecycle -----------------------------------------------------------------------------

    def _open_lifecycle(self, found: list[Alarm], held: Mapping[str, int]) -> None:
        """Alarms to be posted start their lifecycle open (in discovery's transaction); those held back by a
        silence or maintenance window are recorded only."""
        seen = read.seen_times(self.db, [a.event_id for a in found])
        # A late alarm's time to acknowledge starts when it reached samops, not when it happened (the one
        # rule of the card and the overdue edit: read.lateness).
        opened = [
            (a.event_id, a.activity_time + (read.lateness(a.activity_time, seen.get(a.event_id)) or 0))
            for a in found
            if a.event_id not in held
        ]
        lifecycle.open_alarms(self.db, opened, self.clock())

    def _watched(self) -> set[int] | None:
        """The panels whose silence means something: those the poller reads (none before its first poll);
        with the cache source, every panel the sync wrote."""
        if isinstance(self.source, ServiceSource):
            return {p for ids in self.source.poller.panels.values() for p in ids}
        return None

    def escalate(self) -> int:
        """Post the escalation levels that are due (bot/notify/escalation.py)."""
        return self.escalator.run()

    def _channel_for(self, alarm: Alarm) -> str:
        return self.config.channel_for(alarm) or CONSOLE_CHANNEL

    # --- delivery -------------------------------------------------------------------------------------

    def deliver(self) -> float:
        """Deliver what each channel's pace allows; returns the time until the earliest channel is due."""
        waits = [60.0]
        channels = set(cache.pending_channels(self.db)) | {c.channel for c in self._cards_with_work()}
        channels |= set(self.incidents.channels())
        for channel in sorted(channels):
            if self._backoff.get(channel, (0.0, 0.0))[0] > time.monotonic():
                waits.append(self._backoff[channel][0] - time.monotonic())
                continue
            # Claimed before anything is posted there: another notifier on these records leaves the channel
            # alone meanwhile, and reads what is still to post only after this one recorded what it posted.
            lease = f"deliver:{channel}"
            if not cache.take_lease(self.db, lease, self.owner, now_ms(), DELIVERY_LEASE_MS):
                waits.append(LEASE_RETRY_S)
                continue
            try:
                self._deliver_channel(channel)
                self._backoff.pop(channel, None)
            except NotYet as wait:
                waits.append(wait.wait)
            except DeliveryError as err:
                seconds = min(MAX_BACKOFF_S, self._backoff.get(channel, (0.0, 0.5))[1] * 2)
                self._backoff[channel] = (time.monotonic() + seconds, seconds)
                log.warning("notify: delivery to %s failed (%s); retrying in %.0f s", channel, err, seconds)
                waits.append(seconds)
            finally:
                cache.end_lease(self.db, lease, self.owner)
        return min(waits)

    def _deliver_channel(self, channel: str) -> None:
        entries = cache.pending(self.db, channel)
        if entries and self.delivery.console:
            for entry in entries:
                self.delivery.post(channel, self._card(entry.alarm), ref=read.console_ref(entry.rowid))
                with write_transaction(self.db):
                    cache.mark_delivered(self.db, [entry.alarm.event_id], cache.CONSOLE, None)
            return
        if entries:
            self._tell_if_behind(channel, entries)
            entries = self.incidents.take(channel, entries)  # an incident's alarms go to its card
            storm = self.config.storm
            budget = max(0, storm.threshold - cache.delivered_since(self.db, channel, self._window_start()))
            singles, grouped = (
                (entries, []) if len(entries) <= budget else (entries[:budget], entries[budget:])
            )
            for entry in singles:
                self._post_single(channel, entry)
            if grouped:
                self.storm.group(channel, grouped)  # counted at once; new cards wait for a slot like any post
        self.incidents.update(channel)
        self.storm.update(channel)
        self.storm.post_details(channel)
        if not cache.pending(self.db, channel, limit=1):
            self._clear_behind(channel)

    def _post_single(self, channel: str, entry: OutboxEntry) -> None:
        try:
            ts = self.delivery.post(channel, self._card(entry.alarm))
        except DeliveryError as err:
            with write_transaction(self.db):
                cache.record_failure(self.db, [entry.alarm.event_id], str(err))
            raise
        with write_transaction(self.db):
            cache.mark_delivered(self.db, [entry.alarm.event_id], cache.POSTED, ts)
            self.incidents.posted(entry.alarm.event_id, channel, ts)

    def _cards_with_work(self) -> list[CardThread]:
        return self.storm.with_work()

    def _has_work(self) -> bool:
        return bool(cache.pending_channels(self.db) or self._cards_with_work() or self.incidents.channels())

    def _tell_if_behind(self, channel: str, entries: list[OutboxEntry]) -> None:
        """Tell the channel once when its backlog needs longer than `behind_after` to get out."""
        storm = self.config.storm
        # Queue length, not alarm age: in cache mode every alarm is as old as the sync's lag.
        backlog_s = len(entries) / storm.posts_per_second
        if backlog_s < storm.behind_after or cache.get_state(self.db, f"behind:{channel}"):
            return
        text = (
            f":hourglass: Delivery to this channel is behind: {counted(len(entries), 'alarm')} to post. "
            "They are grouped per panel and none are dropped; every alarm is in the dashboard."
        )
        self.delivery.post(channel, render.notice(text))
        with write_transaction(self.db):
            cache.set_state(self.db, f"behind:{channel}", str(now_ms()))

    def _clear_behind(self, channel: str) -> None:
        if cache.get_state(self.db, f"behind:{channel}"):
            with write_transaction(self.db):
                cache.set_state(self.db, f"behind:{channel}", None)

    # --- first start and health -----------------------------------------------------------------------

    def _post_first_start_summary(self) -> None:
        if cache.get_state(self.db, "summary") != "pending":
            return
        if self._service_failing_since is not None:  # "none in the last 24 h" would be a guess: poll first
            return
        hours = self.config.summary_hours
        baseline = self.baseline()
        before = cache.alarms_before(self.db, baseline - int(hours * 3_600_000), baseline)
        message = render.first_start_summary(before, hours, self.config.shown_zone_for(None))
        channel = self.config.default_channel or CONSOLE_CHANNEL
        # Claimed first, and looked at again once claimed: two notifiers starting together post it once.
        if not cache.take_lease(self.db, "summary", self.owner, now_ms(), DELIVERY_LEASE_MS):
            return
        posted = False
        try:
            if cache.get_state(self.db, "summary") == "pending":
                self.delivery.post(channel, message)
                posted = True
        except (NotYet, DeliveryError) as err:
            log.info("notify: the first-start summary waits (%s)", err)
        finally:
            with write_transaction(self.db):  # the record and the lease's end together
                if posted:
                    cache.set_state(self.db, "summary", "posted")
                cache.end_lease(self.db, "summary", self.owner)

    def _check_health(self) -> None:
        now = now_ms()
        monitor = HealthMonitor(self.db, self.config.health)
        after_ms = int(self.config.health.after * 1000)
        checks: list[tuple[str, int | None, str]] = []
        if self.source.name == "service":
            checks.append(("service", self._service_failing_since, self._service_error))
        else:
            since, error = sync_failing_since(self.db, self.started_at, now, after_ms)
            checks.append(("sync", since, error))
        if not self.delivery.console:
            # On the notifier's clock, as the overdue edits (tests move it)
            late = sla_failing_since(self.db, self.priorities, self.config.channels(), self.clock())
            checks.append((SLA, *late))
        for name, since, detail in checks:
            if monitor.check(name, since, detail, now) is None:
                continue  # a read first: no write lock taken for nothing
            # Claimed, then looked at again: two notifiers on these records send a notice once.
            lease = f"health:{name}"
            if not cache.take_lease(self.db, lease, self.owner, now, DELIVERY_LEASE_MS):
                continue
            try:
                notice = monitor.check(name, since, detail, now)
                if notice is not None and self._send_notice(notice):
                    monitor.sent(notice, now, self.config.ops or CONSOLE_CHANNEL)
            finally:
                cache.end_lease(self.db, lease, self.owner)

    def _send_notice(self, notice: Notice) -> bool:
        channel = self.config.ops
        if channel is None or self.delivery.console:
            log.warning("notify: %s", notice.text)
            return True
        try:
            self.delivery.post(channel, render.notice(notice.text))
        except (NotYet, DeliveryError) as err:
            log.info("notify: health notice waits (%s)", err)
            return False
        return True

    # --- rendering ------------------------------------------------------------------------------------

    def _window_start(self) -> int:
        return self.storm.window_start()

    def drawing(self) -> cards.Drawing:
        """What the notifier draws cards with (bot/cards.py), with its source's freshness."""
        zone_for = self.config.shown_zone_for
        data_as_of = self.source.data_as_of(self.db)
        return cards.Drawing(
            self.db,
            zone_for,
            data_as_of,
            self.dashboard_url,
            self.priorities,
            self.clock,
            self.plans,
            org_zone_for=self.config.zone_for,  # keyholders judged on the organization's clock
        )

    def _card(self, alarm: Alarm) -> render.Rendered:
        return cards.draw_alarm(self.drawing(), alarm)
