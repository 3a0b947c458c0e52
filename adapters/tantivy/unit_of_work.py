"""`TantivyIndexUnitOfWork`: an indexer batch collected, then written by
`TantivyIndexStore.write`: tantivy changes staged in the writers, and one short SQLite
transaction with the metadata rows, the staged rows and the cleared markers (all or
nothing; see `index_store.py` for when the tantivy side becomes durable and visible)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import attrs

from chat_recall.adapters.tantivy.index_store import TantivyIndexStore
from chat_recall.domain.model import IndexDocument, MessageId, MessageMarker, QuarantinedRow


@attrs.define
class TantivyIndexWriter:
    removes: list[MessageId] = attrs.field(factory=list)
    puts: list[IndexDocument] = attrs.field(factory=list)
    quarantined: list[QuarantinedRow] = attrs.field(factory=list)
    cleared: list[MessageMarker] = attrs.field(factory=list)
    stale: set[MessageId] = attrs.field(factory=set)  # known when the write returns
    # Documents of apps whose index is set aside, quarantined instead (known then too).
    set_aside: list[QuarantinedRow] = attrs.field(factory=list)

    def put(self, documents: Sequence[IndexDocument]) -> None:
        self.puts.extend(documents)

    def remove(self, message_ids: Sequence[MessageId]) -> None:
        self.removes.extend(message_ids)

    def clear(self, markers: Sequence[MessageMarker]) -> None:
        self.cleared.extend(markers)

    def quarantine(self, rows: Sequence[QuarantinedRow]) -> None:
        self.quarantined.extend(rows)


@attrs.define
class TantivyIndexUnitOfWork:
    index: TantivyIndexStore

    @contextmanager
    def transaction(
        self,
        *,
        time_limit_seconds: float | None = None,
    ) -> Iterator[TantivyIndexWriter]:
        writer = TantivyIndexWriter()
        yield writer
        writer.stale, writer.set_aside = self.index.write(
            writer.removes,
            writer.puts,
            writer.quarantined,
            writer.cleared,
            time_limit_seconds=time_limit_seconds,
        )
