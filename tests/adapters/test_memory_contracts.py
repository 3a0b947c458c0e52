"""The in-memory adapters opt into every contract suite with one class."""

from __future__ import annotations

import pytest

from chat_recall.contracts.all import StorageContracts
from chat_recall.contracts.harness import StorageHarness
from chat_recall.contracts.import_target import ImportTargetContract
from tests.adapters.conftest import memory_harness


class TestInMemoryAdapter(StorageContracts):
    @pytest.fixture
    def harness(self) -> StorageHarness:
        return memory_harness()


class TestInMemoryImportTarget(ImportTargetContract):
    @pytest.fixture
    def harness(self) -> StorageHarness:
        return memory_harness()
