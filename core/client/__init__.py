"""The typed client of the service: `from core.client import SamClient`."""

from core.client.api import SamClient
from core.client.base import BaseClient
from core.client.operations import OPERATIONS, Operation, Param

__all__ = ["OPERATIONS", "BaseClient", "Operation", "Param", "SamClient"]
