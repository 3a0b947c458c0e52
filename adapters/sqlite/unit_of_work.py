"""`SqliteIndexUnitOfWork`: an indexer batch as one `BEGIN IMMEDIATE` transaction on the
writer connection, spanning the FTS5 documents and the dirty-marker tables."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import attrs

from chat_recall.adapters.sqlite.index_store import SqliteFts5IndexStore
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.dirty_queue import SqliteDirtyQueue
from chat_recall.domain.model import IndexDocument, MessageId, MessageMarker, QuarantinedRow


@attrs.define
class SqliteIndexWriter:
    """Markers are cleared first: a document (or quarantine entry) of a marker found
    stale, one a host write marked again after the batch read its row, is left out;
    the newer marker brings the row as it is now."""

    connection: sqlite3.Connection
    index: SqliteFts5IndexStore
    stale: set[MessageId] = attrs.field(factory=set)
    set_aside: list[QuarantinedRow] = attrs.field(factory=list)

    def put(self, documents: Sequence[IndexDocument]) -> None:
        self.set_aside.extend(
            self.index.put(
                self.connection, [d for d in documents if d.message_id not in self.stale]
            )
        )

    def remove(self, message_ids: Sequence[MessageId]) -> None:
        self.index.remove(self.connection, message_ids)

    def clear(self, markers: Sequence[MessageMarker]) -> None:
        cleared = SqliteDirtyQueue.clear(self.connection, markers)
        self.stale.update(marker.id for marker in markers if marker.id not in cleared)

    def quarantine(self, rows: Sequence[QuarantinedRow]) -> None:
        self.index.set_aside(self.connection, [r for r in rows if r.message_id not in self.stale])


@attrs.define
class SqliteIndexUnitOfWork:
    database: SqliteDatabase
    index: SqliteFts5IndexStore

    @contextmanager
    def transaction(
        self, *, time_limit_seconds: float | None = None
    ) -> Iterator[SqliteIndexWriter]:
        with self.database.writing(time_limit_seconds=time_limit_seconds) as connection:
            yield SqliteIndexWriter(connection, self.index)
