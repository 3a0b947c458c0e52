"""`SqliteIndexUnitOfWork`: an indexer batch as one `BEGIN IMMEDIATE` transaction on the
writer connection, spanning the FTS5 documents and the dirty-marker tables."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import attrs

from chat_recall.adapters.sqlite.database import SqliteDatabase
from chat_recall.adapters.sqlite.dirty_queue import SqliteDirtyQueue
from chat_recall.adapters.sqlite.index_store import SqliteFts5IndexStore
from chat_recall.domain.model import IndexDocument, MessageId, MessageMarker, QuarantinedRow


@attrs.frozen
class SqliteIndexWriter:
    connection: sqlite3.Connection
    index: SqliteFts5IndexStore

    def put(self, documents: Sequence[IndexDocument]) -> None:
        self.index.put(self.connection, documents)

    def remove(self, message_ids: Sequence[MessageId]) -> None:
        self.index.remove(self.connection, message_ids)

    def clear(self, markers: Sequence[MessageMarker]) -> None:
        SqliteDirtyQueue.clear(self.connection, markers)

    def quarantine(self, rows: Sequence[QuarantinedRow]) -> None:
        self.index.set_aside(self.connection, rows)


@attrs.define
class SqliteIndexUnitOfWork:
    database: SqliteDatabase
    index: SqliteFts5IndexStore

    @contextmanager
    def transaction(self) -> Iterator[SqliteIndexWriter]:
        with self.database.writing() as connection:
            yield SqliteIndexWriter(connection, self.index)
