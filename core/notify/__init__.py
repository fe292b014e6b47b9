"""Where the notifier's alarms come from, in core (no Slack here): the service poll or the cache
(`source.py`). Discovery, delivery and the timed jobs are hosted by bot/notify/ (docs/architecture.md)."""
