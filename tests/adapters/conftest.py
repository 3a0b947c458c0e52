"""The two shipped adapters as contract harnesses."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters import bootstrap
from adapters.memory.database import InMemoryDatabase
from application.service import ChatRecall
from contracts.harness import StorageHarness


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
