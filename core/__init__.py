"""Everything that speaks the service: settings, client, Idempotency-Key, errors, cache, sync, read API.

Importing `core` changes nothing process-wide: it may be imported from any thread (the dashboard's sessions
do). The start-up saving on sqlite-utils' pandas import lives in the `samops` entry point (samops/cli.py).
"""
