"""The two shipped adapters as contract harnesses."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import attrs
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.memory.database import InMemoryDatabase
from chat_recall.application.service import ChatRecall
from chat_recall.contracts.harness import StorageHarness


def sqlite_harness(path: Path) -> StorageHarness:
    def open_recall() -> ChatRecall:
        return bootstrap.sqlite(path, create_host_schema=True)

    def dump() -> object:
        """Every row of every table, chat-recall's and the host's, as SQL text."""
        connection = sqlite3.connect(path)
        try:
            return list(connection.iterdump())
        finally:
            connection.close()

    return StorageHarness(open_recall, storage_state=dump)


def memory_harness() -> StorageHarness:
    database = InMemoryDatabase()

    def open_recall() -> ChatRecall:
        return bootstrap.in_memory(database=database)

    def state() -> object:
        with database.lock:
            return repr(attrs.asdict(database, filter=lambda field, _: field.name != "lock"))

    return StorageHarness(open_recall, storage_state=state)


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "host.db"
