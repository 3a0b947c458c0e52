"""The SQLite FTS5 adapter opts into every contract suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat_recall.contracts.dirty_queue import DirtyQueueContract
from chat_recall.contracts.harness import StorageHarness
from chat_recall.contracts.index_store import IndexStoreContract
from chat_recall.contracts.indexer import IndexerContract
from chat_recall.contracts.message_repo import MessageRepoContract
from tests.adapters.conftest import sqlite_harness


class SqliteHarness:
    @pytest.fixture
    def harness(self, sqlite_path: Path) -> StorageHarness:
        return sqlite_harness(sqlite_path)


class TestSqliteMessageRepo(SqliteHarness, MessageRepoContract):
    pass


class TestSqliteDirtyQueue(SqliteHarness, DirtyQueueContract):
    pass


class TestSqliteIndexStore(SqliteHarness, IndexStoreContract):
    pass


class TestSqliteIndexer(SqliteHarness, IndexerContract):
    pass
