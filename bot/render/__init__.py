"""Block Kit messages as pure functions, one module per subject (docs/architecture.md, "bot")."""
