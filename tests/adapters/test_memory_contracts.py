"""The in-memory adapters opt into every contract suite."""

from __future__ import annotations

import pytest

from chat_recall.contracts.dirty_queue import DirtyQueueContract
from chat_recall.contracts.harness import StorageHarness
from chat_recall.contracts.index_store import IndexStoreContract
from chat_recall.contracts.indexer import IndexerContract
from chat_recall.contracts.message_repo import MessageRepoContract
from tests.adapters.conftest import memory_harness


class MemoryHarness:
    @pytest.fixture
    def harness(self) -> StorageHarness:
        return memory_harness()


class TestInMemoryMessageRepo(MemoryHarness, MessageRepoContract):
    pass


class TestInMemoryDirtyQueue(MemoryHarness, DirtyQueueContract):
    pass


class TestInMemoryIndexStore(MemoryHarness, IndexStoreContract):
    pass


class TestInMemoryIndexer(MemoryHarness, IndexerContract):
    pass
