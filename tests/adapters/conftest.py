"""The two shipped adapters as contract harnesses."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import attrs
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.memory.database import InMemoryDatabase
from chat_recall.application.service import ChatRecall
from chat_recall.contracts.harness import Capabilities, StorageHarness
from chat_recall.domain.text.language import Language


def sqlite_harness(path: Path) -> StorageHarness:
    def open_recall(language: Language | None = None) -> ChatRecall:
        return bootstrap.sqlite(path, create_host_schema=True, language=language)

    def dump() -> object:
        """Every row of every table, chat-recall's and the host's, as SQL text."""
        connection = sqlite3.connect(path)
        try:
            return list(connection.iterdump())
        finally:
            connection.close()

    return StorageHarness(open_recall, storage_state=dump, open_in=open_recall)


def postgres_harness(dsn: str) -> StorageHarness:
    def open_recall(language: Language | None = None) -> ChatRecall:
        return bootstrap.postgres(dsn, create_host_schema=True, language=language)

    def dump() -> object:
        """Every row of every table in the test's schema, chat-recall's and the host's."""
        import psycopg

        with psycopg.connect(dsn) as connection:
            tables = [
                row[0]
                for row in connection.execute(
                    "SELECT relname FROM pg_class WHERE relkind = 'r' "
                    "AND relnamespace = current_schema()::regnamespace ORDER BY relname"
                )
            ]
            return {
                table: connection.execute(f'SELECT * FROM "{table}" ORDER BY 1').fetchall()
                for table in tables
            } | {
                "sequences": connection.execute(
                    "SELECT sequencename, last_value FROM pg_sequences "
                    "WHERE schemaname = current_schema() ORDER BY 1"
                ).fetchall()
            }

    return StorageHarness(
        open_recall,
        Capabilities(exact_fts5_scores=False, reads_live_rows=True),
        storage_state=dump,
        open_in=open_recall,
    )


def memory_harness() -> StorageHarness:
    database = InMemoryDatabase()

    def open_recall(language: Language | None = None) -> ChatRecall:
        return bootstrap.in_memory(database=database, language=language)

    def state() -> object:
        with database.lock:
            return repr(attrs.asdict(database, filter=lambda field, _: field.name != "lock"))

    return StorageHarness(open_recall, storage_state=state, open_in=open_recall)


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "host.db"
