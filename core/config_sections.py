"""Sections of `samops.toml` read by a process that reads no other part of it (the dashboard): the bot parses
the whole file once at its start (bot/config.py) and says there why a file cannot be used; these readers take
only the tables a page needs, each through the same models, so a value means the same everywhere."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

Sections = TypeVar("Sections", bound=BaseModel)


def one_line(err: ValidationError, section: str = "") -> str:
    """pydantic's errors as one line naming each field (dotted, after `section`): "priorities.0.priority:
    Value error, …"."""
    return "; ".join(
        section + ".".join(map(str, e["loc"])) + f": {e['msg']}" for e in err.errors(include_url=False)
    )


def read_sections(config_path: Path, model: type[Sections]) -> Sections | None:
    """The tables of the TOML at `config_path` that `model` names (the model ignores the rest): None when
    the file is missing or not TOML (the bot says why at its start); a ValueError of one line naming the
    field when an entry is bad."""
    try:
        data = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise ValueError(one_line(err)) from None
