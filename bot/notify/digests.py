"""A digest a channel gets on a schedule (the shift handover, the at-risk list): posted once per due time,
even across restarts and with two notifiers on one cache, and never for a time before the notifier first
watched the channel (a missed one is posted late, once).

The due time is claimed before the post and given back when the post fails, so that the next cycle tries
again."""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.notify.delivery import Delivery, DeliveryError, NotYet
from bot.render.common import Rendered
from core import cache
from core.cache import write_transaction
from core.sqlite_lib import sqlite_utils

log = logging.getLogger(__name__)


def watching_since(db: sqlite_utils.Database, kind: str, channel: str, now: int) -> int:
    """When the notifier first watched `channel` for the `kind` digest ("handover", "at-risk"); now, the
    first time it is asked."""
    key = f"{kind}-since:{channel}"
    value = cache.get_state(db, key)
    if value is None:
        with write_transaction(db):
            cache.set_state(db, key, str(now))
        return now
    return int(value)


def post_once(
    db: sqlite_utils.Database,
    delivery: Delivery,
    channel: str,
    key: str,
    message: Callable[[], Rendered],
    what: str,
    now: int,
) -> None:
    """Post `message()` to `channel` unless the due time `key` was claimed already; `what` names the digest
    in the log ("handover digest")."""
    if not cache.claim_once(db, key, at=now):
        return
    try:
        delivery.post(channel, message())
    except (NotYet, DeliveryError) as err:
        cache.release_claim(db, key)
        log.info("notify: the %s for %s waits (%s)", what, channel, err)
        return
    log.info("notify: %s posted to %s (%s)", what, channel, key)
