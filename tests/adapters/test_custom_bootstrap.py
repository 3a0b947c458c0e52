"""A third party's adapter is wired with `bootstrap.custom` and opts into a contract:
here the in-memory adapters play that part."""

from __future__ import annotations

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.memory.database import InMemoryDatabase, InMemoryHostStore
from chat_recall.adapters.memory.dirty_queue import InMemoryDirtyQueue
from chat_recall.adapters.memory.index_store import InMemoryIndexStore
from chat_recall.adapters.memory.message_repo import InMemoryMessageRepo
from chat_recall.adapters.memory.unit_of_work import InMemoryIndexUnitOfWork
from chat_recall.application.service import ChatRecall
from chat_recall.contracts.harness import StorageHarness
from chat_recall.contracts.indexer import IndexerContract


def third_party_harness() -> StorageHarness:
    database = InMemoryDatabase()

    def open_recall() -> ChatRecall:
        index = InMemoryIndexStore(database)
        return bootstrap.custom(
            repo=InMemoryMessageRepo(database),
            index=index,
            unit_of_work=InMemoryIndexUnitOfWork(database, index),
            dirty=InMemoryDirtyQueue(database),
            host=InMemoryHostStore(database),
        )

    return StorageHarness(open_recall)


class TestThirdPartyIndexer(IndexerContract):
    @pytest.fixture
    def harness(self) -> StorageHarness:
        return third_party_harness()
