"""A third party's adapter is wired with `bootstrap.custom` and opts into a contract:
here the in-memory adapters play that part."""

from __future__ import annotations

import pytest

from adapters import bootstrap
from adapters.memory.database import InMemoryDatabase, InMemoryHostStore
from adapters.memory.dirty_queue import InMemoryDirtyQueue
from adapters.memory.index_store import InMemoryIndexStore
from adapters.memory.message_repo import InMemoryMessageRepo
from application.service import ChatRecall
from contracts.harness import StorageHarness
from contracts.indexer import IndexerContract


def third_party_harness() -> StorageHarness:
    database = InMemoryDatabase()

    def open_recall() -> ChatRecall:
        return bootstrap.custom(
            repo=InMemoryMessageRepo(database),
            index=InMemoryIndexStore(database),
            dirty=InMemoryDirtyQueue(database),
            host=InMemoryHostStore(database),
        )

    return StorageHarness(open_recall)


class TestThirdPartyIndexer(IndexerContract):
    @pytest.fixture
    def harness(self) -> StorageHarness:
        return third_party_harness()
