"""The tantivy engine opts into every contract suite with one class."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host.engines import Engine, tantivy_directory
from chat_recall.adapters.tantivy.index_store import TantivyIndexStore
from chat_recall.application.service import ChatRecall
from chat_recall.contracts.all import StorageContracts
from chat_recall.contracts.harness import Capabilities, StorageHarness
from chat_recall.contracts.import_target import ImportTargetContract
from chat_recall.domain.text.language import Language


def publish(recall: ChatRecall) -> None:
    index = recall.index
    assert isinstance(index, TantivyIndexStore)
    index.publish()


def tantivy_harness(path: Path) -> StorageHarness:
    def open_recall(language: Language | None = None) -> ChatRecall:
        return bootstrap.sqlite(
            path, create_host_schema=True, engine=Engine.TANTIVY, language=language
        )

    def dump() -> object:
        """Every row of every table, and every file of the tantivy indexes."""
        connection = sqlite3.connect(path)
        try:
            tables = list(connection.iterdump())
        finally:
            connection.close()
        directory = tantivy_directory(path)
        files = sorted(
            (str(file.relative_to(directory)), file.read_bytes())
            for file in directory.rglob("*")
            if file.is_file()
        )
        return tables, files

    return StorageHarness(
        open_recall,
        # bm25 per field, not FTS5's one bm25 over weighted columns: order properties only.
        Capabilities(exact_fts5_scores=False, grouped_publishing=True),
        storage_state=dump,
        publish=publish,
        open_in=open_recall,
    )


class TestTantivyAdapter(StorageContracts):
    @pytest.fixture
    def harness(self, tmp_path: Path) -> StorageHarness:
        return tantivy_harness(tmp_path / "host.db")


class TestTantivyImportTarget(ImportTargetContract):
    @pytest.fixture
    def harness(self, tmp_path: Path) -> StorageHarness:
        return tantivy_harness(tmp_path / "host.db")
