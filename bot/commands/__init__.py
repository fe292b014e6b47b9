"""The `/sam` subcommands, one module per command word. Each declares its subcommands with
`bot.slash.registry.subcommand`; importing this package imports every one of them, by name, here."""

from bot.commands import (  # noqa: F401  # imported for their @subcommand declarations
    access,
    alarms,
    at_risk,
    audit,
    bills,
    camera,
    cameras,
    customer,
    handover,
    help,
    maintenance,
    notify_me,
    panel,
    privileges,
    role,
    sensor,
    silences,
    task,
    user,
    who_can,
    whoami,
)
