"""The SQLite FTS5 adapter opts into every contract suite with one class."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat_recall.contracts.all import SUITES, StorageContracts
from chat_recall.contracts.harness import StorageHarness
from chat_recall.contracts.import_target import ImportTargetContract
from tests.adapters.conftest import sqlite_harness


class TestSqliteAdapter(StorageContracts):
    @pytest.fixture
    def harness(self, sqlite_path: Path) -> StorageHarness:
        return sqlite_harness(sqlite_path)


def test_the_suites_test_names_are_distinct() -> None:
    names = [name for suite in SUITES for name in vars(suite) if name.startswith("test_")]
    assert len(names) == len(set(names))


class TestSqliteImportTarget(ImportTargetContract):
    @pytest.fixture
    def harness(self, sqlite_path: Path) -> StorageHarness:
        return sqlite_harness(sqlite_path)
