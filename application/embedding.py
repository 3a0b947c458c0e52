"""`Embedding`: one job, done in steps: embed up to a batch of indexed documents that
lack a vector of the current model, and write those vectors in one short unit of
work. The indexer calls `step()` as one step of its flow, after its own batch.

What is embedded is the index's own document (title and body): the redacted
projection the tools show, never a host row, so a secret that the projection replaced
by a placeholder is never embedded nor sent anywhere. The model runs outside any
transaction; only the write of its vectors takes one, and it writes only vectors whose
document was not put again meanwhile (`VectorStore.write_vectors`).

A model change is a change of `embedder.model.identity`: `prepare()` records it, every
document is queued again (in bounded steps), vectors of the old model are never
returned and are removed in bounded steps once the new ones are made.
"""

from __future__ import annotations

import attrs

from chat_recall.domain.errors import EmbeddingFailed
from chat_recall.domain.model import AppId, DocumentText, MessageId
from chat_recall.domain.ports import Embedder, IndexStore, VectorStore
from chat_recall.domain.semantic import EmbedTask, Purpose
from chat_recall.domain.text import reading_text


@attrs.frozen
class EmbeddingSettings:
    # Documents embedded per step: the model's time per step is the batch's (no lock
    # is held meanwhile); the write is one short transaction of this many rows.
    batch: int = 128
    # Documents queued per step after a model change, and old vectors removed per step:
    # each one short transaction.
    queue_chunk: int = 2_000
    drop_chunk: int = 2_000


@attrs.frozen
class EmbeddingReport:
    queued: int = 0
    embedded: int = 0
    skipped: int = 0  # queued documents that are gone (or were put again meanwhile)
    dropped: int = 0
    failed: str | None = None  # the error kind when the model could not run

    @property
    def did_work(self) -> bool:
        return bool(self.queued or self.embedded or self.skipped or self.dropped)


def embedding_text(document: DocumentText) -> str:
    """The text of a document as the model reads it: its chat's title, then the body."""
    title = reading_text(document.title).strip()
    body = reading_text(document.body).strip()
    return f"{title}\n{body}" if title else body


@attrs.define
class Embedding:
    embedder: Embedder
    vectors: VectorStore
    index: IndexStore
    settings: EmbeddingSettings = EmbeddingSettings()
    _prepared: bool = attrs.field(init=False, default=False)
    # Where the next step reads the queue from: a document that cannot be read now
    # (not yet published by its engine) stays queued, and the steps go past it.
    _after: MessageId | None = attrs.field(init=False, default=None)

    @property
    def identity(self) -> str:
        return self.embedder.model.identity

    def prepare(self) -> None:
        """Record the model (a change starts the vectors over)."""
        if self.vectors.vector_model() != self.identity:
            self.vectors.use_vector_model(self.identity)
        self._prepared = True

    def step(self) -> EmbeddingReport:
        """Queue, embed and write one batch; when nothing waits, remove one chunk of
        vectors of no use. A model that cannot run leaves the queue as it is and says
        so (`failed`): the indexer tries again later."""
        if not self._prepared:
            self.prepare()
        queued = self.vectors.queue_step(self.settings.queue_chunk)
        tasks = self.vectors.pending_vectors(self.settings.batch, after=self._after)
        if not tasks and self._after is not None:
            self._after = None  # the end of the queue: from its start again
            tasks = self.vectors.pending_vectors(self.settings.batch)
        if not tasks:
            dropped = self.vectors.drop_step(self.settings.drop_chunk)
            return EmbeddingReport(queued=queued, dropped=dropped)
        documents = self._documents(tasks)
        present = [task for task in tasks if task.message_id in documents]
        try:
            made = self.embedder.embed(
                [embedding_text(documents[task.message_id]) for task in present],
                Purpose.DOCUMENT,
            )
        except EmbeddingFailed as error:
            return EmbeddingReport(queued=queued, failed=error.kind)
        by_id = {task.message_id: vector for task, vector in zip(present, made, strict=True)}
        written = self.vectors.write_vectors(
            self.identity, tasks, [by_id.get(task.message_id) for task in tasks]
        )
        self._after = tasks[-1].message_id if len(tasks) == self.settings.batch else None
        return EmbeddingReport(queued=queued, embedded=written, skipped=len(present) - written)

    def run_until_done(self, *, max_steps: int | None = None) -> EmbeddingReport:
        """Steps until nothing is left to do (for the CLI and tests); the sums."""
        total = EmbeddingReport()
        steps = 0
        while max_steps is None or steps < max_steps:
            report = self.step()
            steps += 1
            total = EmbeddingReport(
                total.queued + report.queued,
                total.embedded + report.embedded,
                total.skipped + report.skipped,
                total.dropped + report.dropped,
                report.failed,
            )
            if report.failed or not report.did_work:
                break
        return total

    def _documents(self, tasks: list[EmbedTask]) -> dict[MessageId, DocumentText]:
        by_app: dict[AppId, list[MessageId]] = {}
        for task in tasks:
            by_app.setdefault(task.app_id, []).append(task.message_id)
        return {
            document.message_id: document
            for app_id, ids in sorted(by_app.items())
            for document in self.index.documents(app_id, ids)
        }
