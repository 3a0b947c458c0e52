"""The in-memory adapters opt into every contract suite."""

from __future__ import annotations

import pytest

from contracts.dirty_queue import DirtyQueueContract
from contracts.harness import StorageHarness
from contracts.index_store import IndexStoreContract
from contracts.indexer import IndexerContract
from contracts.message_repo import MessageRepoContract
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
