"""The two shipped adapters as contract harnesses."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.memory.database import InMemoryDatabase
from chat_recall.application.service import ChatRecall
from chat_recall.contracts.harness import StorageHarness


def sqlite_harness(path: Path) -> StorageHarness:
    def open_recall() -> ChatRecall:
        return bootstrap.sqlite(path, create_host_schema=True)

    return StorageHarness(open_recall)


def memory_harness() -> StorageHarness:
    database = InMemoryDatabase()

    def open_recall() -> ChatRecall:
        return bootstrap.in_memory(database=database)

    return StorageHarness(open_recall)


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "host.db"
