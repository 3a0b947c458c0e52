"""`InMemoryIndexUnitOfWork`: an indexer batch applied all at once under the database
lock, or not at all (writes are collected and applied when the block ends)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import attrs

from chat_recall.adapters.memory.database import InMemoryDatabase
from chat_recall.adapters.memory.index_store import InMemoryIndexStore
from chat_recall.domain.model import IndexDocument, MessageId, MessageMarker, QuarantinedRow


@attrs.define
class InMemoryIndexWriter:
    """As `SqliteIndexWriter`: a document or quarantine entry of a marker this unit of
    work found stale is left out."""

    index: InMemoryIndexStore
    steps: list[Callable[[], None]] = attrs.field(factory=list)
    stale: set[MessageId] = attrs.field(factory=set)
    # This index has no per-app damage to route around (`IndexWriter.set_aside`).
    set_aside: tuple[QuarantinedRow, ...] = ()

    def put(self, documents: Sequence[IndexDocument]) -> None:
        chosen = tuple(documents)
        self.steps.append(
            lambda: self.index.put([d for d in chosen if d.message_id not in self.stale])
        )

    def remove(self, message_ids: Sequence[MessageId]) -> None:
        chosen = tuple(message_ids)
        self.steps.append(lambda: self.index.remove(chosen))

    def clear(self, markers: Sequence[MessageMarker]) -> None:
        chosen = tuple(markers)

        def clear() -> None:
            cleared = self.index.database.clear_message_markers(chosen)
            self.stale.update(marker.id for marker in chosen if marker.id not in cleared)

        self.steps.append(clear)

    def quarantine(self, rows: Sequence[QuarantinedRow]) -> None:
        chosen = tuple(rows)
        self.steps.append(
            lambda: self.index.set_aside([r for r in chosen if r.message_id not in self.stale])
        )


@attrs.define
class InMemoryIndexUnitOfWork:
    database: InMemoryDatabase
    index: InMemoryIndexStore

    @contextmanager
    def transaction(
        self,
        *,
        time_limit_seconds: float | None = None,  # nobody waits for this lock long
    ) -> Iterator[InMemoryIndexWriter]:
        writer = InMemoryIndexWriter(self.index)
        yield writer
        with self.database.lock:
            for step in writer.steps:
                step()
