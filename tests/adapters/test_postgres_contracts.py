"""The PostgreSQL adapter opts into every contract suite with one class, on a real
PostgreSQL server the test run starts itself (tests/conftest.py)."""

from __future__ import annotations

import pytest

from chat_recall.contracts.all import StorageContracts
from chat_recall.contracts.harness import StorageHarness
from chat_recall.contracts.import_target import ImportTargetContract
from tests.adapters.conftest import postgres_harness


class TestPostgresAdapter(StorageContracts):
    @pytest.fixture
    def harness(self, postgres_dsn: str) -> StorageHarness:
        return postgres_harness(postgres_dsn)


class TestPostgresImportTarget(ImportTargetContract):
    @pytest.fixture
    def harness(self, postgres_dsn: str) -> StorageHarness:
        return postgres_harness(postgres_dsn)
