"""Configuration of samops' core, read from the environment and `.env` (see `.env.example`)."""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Where the service is, who we are there, and how patient the client is.

    `SAM_*` variables describe the service; `SAMOPS_DATA_DIR` and `SAMOPS_DB` locate the local cache.
    """

    model_config = SettingsConfigDict(
        env_prefix="SAM_",
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,  # `SAM_ORGANIZATION_ID=` as in .env.example means "not set"
        extra="ignore",
        populate_by_name=True,
    )

    base_url: str = "http://127.0.0.1:8080/api"
    screen_name: str = "demo"
    password: SecretStr = SecretStr("demo")
    organization_id: int | None = None
    timeout: float = Field(default=30.0, gt=0)
    connect_timeout: float = Field(default=5.0, gt=0)
    max_retries: int = Field(default=2, ge=0, le=20)
    first_page: int = Field(default=1, ge=0)
    page_size: int = Field(default=100, ge=1)
    # The largest answer read from the service (SAM_MAX_RESPONSE_BYTES); larger ones are cut off.
    max_response_bytes: int = Field(default=16 * 1024 * 1024, ge=1024)

    data_dir: Path = Field(
        default=Path(".samops"), validation_alias=AliasChoices("SAMOPS_DATA_DIR", "data_dir")
    )
    db: Path | None = Field(default=None, validation_alias=AliasChoices("SAMOPS_DB", "db"))

    @property
    def db_path(self) -> Path:
        """The cache file: `SAMOPS_DB`, else `cache.db` in the data folder."""
        return self.db if self.db is not None else self.data_dir / "cache.db"
