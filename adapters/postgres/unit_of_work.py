"""`PostgresIndexUnitOfWork`: an indexer batch as one write transaction spanning the
documents and the dirty markers, applied at most once across indexer processes.

The writer collects the batch's operations and applies them when the block ends, in
one transaction that takes the batch advisory lock (two indexers never apply at the
same time), writes, and then claims the batch's markers: `DELETE ... WHERE seq = <read>
RETURNING`. A marker another indexer already cleared, or the host marked again since
it was read, is not claimed, and the documents written for it are dropped: another
process applied that row already, or a newer version of it is pending. Writes without
markers (tests, repairs) are applied as given.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import attrs
import psycopg

from chat_recall.adapters.postgres.database import PostgresDatabase
from chat_recall.adapters.postgres.index_store import PostgresIndexStore
from chat_recall.adapters.postgres.migrations import DIRTY_MESSAGES, LOCK_BATCH, lock_key_sql
from chat_recall.domain.model import IndexDocument, MessageId, MessageMarker, QuarantinedRow


@attrs.define
class PostgresIndexWriter:
    puts: list[IndexDocument] = attrs.field(factory=list)
    removals: list[MessageId] = attrs.field(factory=list)
    quarantined: list[QuarantinedRow] = attrs.field(factory=list)
    markers: list[MessageMarker] = attrs.field(factory=list)
    stale: set[MessageId] = attrs.field(factory=set)  # known when `apply` returns
    # This index has no per-app damage to route around (`IndexWriter.set_aside`).
    set_aside: tuple[QuarantinedRow, ...] = ()

    def put(self, documents: Sequence[IndexDocument]) -> None:
        self.puts.extend(documents)

    def remove(self, message_ids: Sequence[MessageId]) -> None:
        self.removals.extend(message_ids)

    def clear(self, markers: Sequence[MessageMarker]) -> None:
        self.markers.extend(markers)

    def quarantine(self, rows: Sequence[QuarantinedRow]) -> None:
        self.quarantined.extend(rows)

    def apply(self, connection: psycopg.Connection[Any], index: PostgresIndexStore) -> None:
        """Writes first, the claim last, so a marker row is locked (and a host write to
        its message waits) only for the moment before the commit. If some marker
        cannot be claimed, the writes are rolled back to a savepoint and redone for
        the claimed markers only."""
        connection.execute(f"SELECT pg_advisory_xact_lock({lock_key_sql(LOCK_BATCH)})")
        try:
            with connection.transaction():  # a savepoint
                self._write(connection, index, stale=set())
                stale = self._claim(connection)
                if stale:
                    raise _Stale(stale)
        except _Stale as found:
            # Only the markers claimed the first time: one skipped then (its host
            # transaction since rolled back) must stay dirty, as its document is not
            # written now; one lost meanwhile is written and stays dirty, harmless.
            self._claim(connection, excluding=found.ids)
            self._write(connection, index, stale=found.ids)
            self.stale = found.ids

    def _claim(
        self, connection: psycopg.Connection[Any], excluding: set[MessageId] | None = None
    ) -> set[MessageId]:
        """Delete the markers whose seq is still the one read; the ids not claimed. A
        marker a host transaction holds (it is writing that message now) is skipped,
        not waited for: waiting, this transaction held the markers it had deleted
        already, and the host's writes to those messages queued behind it for the lock
        timeout, each of them. A skipped marker stays dirty."""
        markers = [m for m in self.markers if not excluding or m.id not in excluding]
        if not markers:
            return set()
        claimed = {
            MessageId(row[0])
            for row in connection.execute(
                f"DELETE FROM {DIRTY_MESSAGES} AS d USING ("
                f"SELECT k.message_id FROM {DIRTY_MESSAGES} AS k "
                "JOIN unnest(%s::bigint[], %s::bigint[]) AS u(id, seq) "
                "ON k.message_id = u.id AND k.seq = u.seq "
                "ORDER BY k.message_id FOR UPDATE OF k SKIP LOCKED"
                ") AS c WHERE d.message_id = c.message_id RETURNING d.message_id",
                ([m.id for m in markers], [m.seq for m in markers]),
            )
        }
        return {m.id for m in markers} - claimed

    def _write(
        self, connection: psycopg.Connection[Any], index: PostgresIndexStore, stale: set[MessageId]
    ) -> None:
        # A row the batch read before the host deleted or moved it is not put back (and
        # does not displace the document its message has).
        puts = index.still_sourced(connection, [d for d in self.puts if d.message_id not in stale])
        removals = [i for i in self.removals if i not in stale]
        index.remove(connection, removals + [d.message_id for d in puts])
        index.put(connection, puts, removed=True)
        index.set_aside(connection, [r for r in self.quarantined if r.message_id not in stale])


class _Stale(Exception):
    def __init__(self, ids: set[MessageId]) -> None:
        super().__init__(f"{len(ids)} markers were applied or marked again elsewhere")
        self.ids = ids


@attrs.define
class PostgresIndexUnitOfWork:
    database: PostgresDatabase
    index: PostgresIndexStore

    @contextmanager
    def transaction(
        self,
        *,
        time_limit_seconds: float | None = None,  # row locks: host writes do not wait
    ) -> Iterator[PostgresIndexWriter]:
        writer = PostgresIndexWriter()
        yield writer
        self.database.write(lambda connection: writer.apply(connection, self.index))
