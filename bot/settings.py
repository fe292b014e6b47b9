"""The bot's settings from the environment and `.env`: Slack secrets, the port, where the config is."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_SLACK_API_URL = "https://slack.com/api/"


class BotSettings(BaseSettings):
    """`SLACK_*` secrets and endpoints, `SAMOPS_*` bot options (architecture.md, "Files and environment").

    Everything that is not a secret and not about where things run lives in the TOML config instead.
    """

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None  # set: Socket Mode
    slack_api_url: str = DEFAULT_SLACK_API_URL

    samops_bot_host: str = "127.0.0.1"
    samops_bot_port: int = Field(default=3000, ge=0, le=65535)
    # Acks and lazy listeners share bolt's executor: it must hold every answer in flight plus the acks.
    samops_bot_workers: int = Field(default=96, ge=4, le=1024)
    samops_config: Path = Path("samops.toml")
    samops_data_dir: Path = Path(".samops")

    @property
    def api_url(self) -> str:
        """The Web API base, with the trailing slash slack_sdk needs."""
        return self.slack_api_url if self.slack_api_url.endswith("/") else self.slack_api_url + "/"
