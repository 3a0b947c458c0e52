"""`SqliteIndexUnitOfWork`: an indexer batch as one transaction on the writer connection,
spanning the FTS5 documents and the dirty-marker tables.

The writer gathers the batch's parts, and the unit of work applies them when the block
ends, in one `SqliteDatabase.read_then_write` transaction: everything the batch must
read (which markers are unchanged, which sources still exist, what the ids hold now) is
read, and every statement's values made, before the first write takes the write lock;
SQLite grants it only if nothing was committed since those reads, and otherwise the
transaction is done again under BEGIN IMMEDIATE. So the host waits only for the writes
and the COMMIT, and what is written is what a transaction holding the lock throughout
would have written.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import attrs

from chat_recall.adapters.sqlite.index_store import Put, Removal, SqliteFts5IndexStore
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.dirty_queue import SqliteDirtyQueue
from chat_recall.domain.model import IndexDocument, MessageId, MessageMarker, QuarantinedRow


@attrs.define
class SqliteIndexWriter:
    """Gathers a batch's parts (applied by `SqliteIndexUnitOfWork` as its block ends).
    Markers are cleared first: a document (or quarantine entry) of a marker found
    stale, one a host write marked again after the batch read its row, is left out;
    the newer marker brings the row as it is now."""

    markers: list[MessageMarker] = attrs.field(factory=list)
    removals: list[MessageId] = attrs.field(factory=list)
    documents: list[IndexDocument] = attrs.field(factory=list)
    rows: list[QuarantinedRow] = attrs.field(factory=list)
    stale: set[MessageId] = attrs.field(factory=set)  # known once applied
    set_aside: list[QuarantinedRow] = attrs.field(factory=list)

    def put(self, documents: Sequence[IndexDocument]) -> None:
        self.documents.extend(documents)

    def remove(self, message_ids: Sequence[MessageId]) -> None:
        self.removals.extend(message_ids)

    def clear(self, markers: Sequence[MessageMarker]) -> None:
        self.markers.extend(markers)

    def quarantine(self, rows: Sequence[QuarantinedRow]) -> None:
        self.rows.extend(rows)


@attrs.frozen
class _Read:
    """What a batch's transaction read before writing."""

    unchanged: str  # the ids of the markers cleared (a JSON array)
    stale: set[MessageId]
    removal: Removal
    put: Put


@attrs.define
class SqliteIndexUnitOfWork:
    database: SqliteDatabase
    index: SqliteFts5IndexStore

    @contextmanager
    def transaction(
        self, *, time_limit_seconds: float | None = None
    ) -> Iterator[SqliteIndexWriter]:
        writer = SqliteIndexWriter()
        yield writer
        self.database.read_then_write(
            lambda connection: self._read(connection, writer),
            lambda connection, read: self._write(connection, writer, read),
            time_limit_seconds=time_limit_seconds,
        )

    def _read(self, connection: sqlite3.Connection, writer: SqliteIndexWriter) -> _Read:
        unchanged = SqliteDirtyQueue.unchanged(connection, writer.markers)
        cleared = set(SqliteDirtyQueue.ids(unchanged))
        stale = {marker.id for marker in writer.markers if marker.id not in cleared}
        puts = [d for d in writer.documents if d.message_id not in stale]
        return _Read(
            unchanged,
            stale,
            self.index.to_remove(connection, writer.removals),
            self.index.to_put(connection, puts, removed=set(writer.removals)),
        )

    def _write(
        self, connection: sqlite3.Connection, writer: SqliteIndexWriter, read: _Read
    ) -> None:
        SqliteDirtyQueue.delete(connection, read.unchanged)
        self.index.write_removal(connection, read.removal)
        set_aside = self.index.write(connection, read.put)
        self.index.set_aside(connection, [r for r in writer.rows if r.message_id not in read.stale])
        writer.stale, writer.set_aside = read.stale, set_aside
