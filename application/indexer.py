"""The indexer: drains dirty markers into the derived index in small, timed batches.

Each batch re-reads its source rows joined to their chats, plans the batch (domain:
projection, documents, removals), and writes the documents and clears the markers it
read in one `IndexUnitOfWork` transaction. A marker set again while a batch ran keeps
its newer seq and stays dirty. Batch sizes adapt (domain `BatchSizing`) to stay under a
time budget, so the host process is never starved; a bounded `IndexStore.maintain()`
step follows each batch.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from functools import partial

import attrs

from chat_recall.application.progress import IndexerState, IndexProgress
from chat_recall.domain.errors import ChatRecallError
from chat_recall.domain.indexing import BatchSizing, index_stamp, plan_batch
from chat_recall.domain.ports import (
    Clock,
    DirtyQueue,
    IndexStore,
    IndexUnitOfWork,
    MessageRepo,
    Telemetry,
)
from chat_recall.domain.projection import MarkupPolicy
from chat_recall.domain.telemetry import IndexBatchEvent, RowsQuarantinedEvent

log = logging.getLogger("chat_recall.indexer")

BACKLOG_RECOUNT = 100


@attrs.frozen
class IndexerSettings:
    sizing: BatchSizing = BatchSizing()
    chats_per_batch: int = 8
    pause_between_batches_seconds: float = 0.001
    poll_interval_seconds: float = 30.0


@attrs.frozen
class BatchReport:
    indexed: int = 0
    deleted: int = 0
    purged: int = 0
    chats_expanded: int = 0
    duration_seconds: float = 0.0
    batch_size: int = 0
    projection_seconds: float = 0.0  # of duration_seconds: building documents (domain)
    maintenance_seconds: float = 0.0  # the maintenance step after the batch, timed apart
    quarantined: int = 0  # rows set aside as unreadable (see `Quarantine`)

    @property
    def did_work(self) -> bool:
        return bool(
            self.indexed or self.deleted or self.purged or self.chats_expanded or self.quarantined
        )


@attrs.frozen
class IndexReport:
    batches: int
    indexed: int
    deleted: int
    purged: int
    longest_batch_seconds: float


@attrs.define
class Indexer:
    repo: MessageRepo
    index: IndexStore
    unit_of_work: IndexUnitOfWork
    dirty: DirtyQueue
    clock: Clock
    policy: MarkupPolicy
    settings: IndexerSettings
    progress: IndexProgress
    telemetry: Telemetry
    _batch_size: int = attrs.field(init=False, default=0)
    # Telemetry's backlog figure: counted exactly at start and every BACKLOG_RECOUNT
    # batches, estimated in between (an exact count scans the marker table).
    _backlog_estimate: int = attrs.field(init=False, default=0)
    _batches_since_count: int = attrs.field(init=False, default=0)
    _prepared: bool = attrs.field(init=False, default=False)
    _thread: threading.Thread | None = attrs.field(init=False, default=None)
    # notify() counts host writes; the worker sleeps on the condition until the count
    # moves (or the poll interval passes), so a write during a batch is never missed.
    _signal: threading.Condition = attrs.field(init=False, factory=threading.Condition)
    _notified: int = attrs.field(init=False, default=0)
    _stopping: threading.Event = attrs.field(init=False, factory=threading.Event)
    _idle: threading.Event = attrs.field(init=False, factory=threading.Event)
    _lock: threading.Lock = attrs.field(init=False, factory=threading.Lock)
    last_error: ChatRecallError | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        self._batch_size = self.settings.sizing.initial

    # -- one step at a time --------------------------------------------------------------

    def prepare(self) -> None:
        """At start: remove orphans, and rebuild in the background if the projection or
        the host mapping changed (old documents keep answering until replaced; rows in
        quarantine are tried again with the others)."""
        self.index.remove_orphans()
        stamp = index_stamp(self.policy, self.repo.source_fingerprint())
        stored = self.index.projection_stamp()
        if stored != stamp:
            if stored is not None:  # a fresh install has marked everything already
                self.dirty.mark_all_messages()
            self.index.set_projection_stamp(stamp)
        self._prepared = True

    def run_batch(self) -> BatchReport:
        """One bounded batch: expand a few dirty chats, index up to the current batch
        size of dirty messages in one unit of work, then one maintenance step."""
        with self._lock:
            if not self._prepared:
                self.prepare()
            started = self.clock.monotonic()
            expanded = 0
            for marker in self.dirty.pending_chats(self.settings.chats_per_batch):
                self.dirty.expand_chat(marker)
                expanded += 1
            size = self._batch_size
            markers = self.dirty.pending_messages(size)
            rows = {row.message.id: row for row in self.repo.source_rows([m.id for m in markers])}
            projecting = self.clock.monotonic()
            batch = plan_batch(markers, rows, self.policy)
            projection = self.clock.monotonic() - projecting
            apps = {document.app_id for document in batch.upserts}
            if markers:
                self.progress.begin(apps)
                try:
                    with self.unit_of_work.transaction() as writer:
                        writer.remove(batch.deletes)
                        writer.put(batch.upserts)
                        writer.quarantine(batch.quarantined)
                        writer.clear(batch.cleared)
                finally:
                    self.progress.end(apps)
            duration = self.clock.monotonic() - started
            self._batch_size = self.settings.sizing.next_size(
                size, duration, full=len(markers) == size
            )
            maintaining = self.clock.monotonic()
            maintenance = self.index.maintain()
            maintenance_seconds = self.clock.monotonic() - maintaining
            report = BatchReport(
                indexed=len(batch.upserts),
                deleted=len(batch.deletes),
                purged=maintenance.reclaimed,
                chats_expanded=expanded,
                duration_seconds=duration,
                batch_size=size,
                projection_seconds=projection,
                maintenance_seconds=maintenance_seconds,
                quarantined=len(batch.quarantined),
            )
            if report.did_work:
                self.telemetry.emit(
                    IndexBatchEvent(
                        duration_ms=duration * 1000,
                        batch_size=size,
                        indexed=report.indexed,
                        deleted=report.deleted,
                        purged=report.purged,
                        backlog_messages=self._backlog_after(len(markers)),
                        quarantined=report.quarantined,
                    )
                )
            for reason, count in sorted(
                Counter(row.reason.value for row in batch.quarantined).items()
            ):
                log.warning("indexer: %d row(s) quarantined: %s", count, reason)
                self.telemetry.emit(RowsQuarantinedEvent(reason=reason, count=count))
            return report

    def _backlog_after(self, processed: int) -> int:
        self._batches_since_count += 1
        if self._batches_since_count >= BACKLOG_RECOUNT or self._backlog_estimate < processed:
            self._backlog_estimate = self.dirty.backlog().messages
            self._batches_since_count = 0
        else:
            self._backlog_estimate -= processed
        return self._backlog_estimate

    def run_until_idle(self, *, max_batches: int | None = None) -> IndexReport:
        """Run batches until nothing is pending (for CLIs and tests)."""
        batches = indexed = deleted = purged = 0
        longest = 0.0
        while max_batches is None or batches < max_batches:
            report = self.run_batch()
            batches += 1
            indexed += report.indexed
            deleted += report.deleted
            purged += report.purged
            longest = max(longest, report.duration_seconds)
            if not report.did_work and self.dirty.backlog().is_empty:
                break
        return IndexReport(batches, indexed, deleted, purged, longest)

    @property
    def batch_size(self) -> int:
        return self._batch_size

    # -- the background worker ------------------------------------------------------------

    def start(self) -> None:
        """Run a background worker thread (its adapters use their own connection)."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stopping.clear()
        self._idle.clear()
        self.progress.indexer = IndexerState.RUNNING
        self._thread = threading.Thread(target=self._work, name="chat-recall-indexer", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """Tell the worker that the host wrote something."""
        with self._signal:
            self._notified += 1
            self._idle.clear()
            self._signal.notify_all()

    def wait_until_idle(self, timeout: float) -> bool:
        """Wait at most `timeout` seconds for the worker to find nothing left to do."""
        return self._idle.wait(timeout)

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop after the batch in flight (markers of unprocessed work stay). Returns
        True when the worker has ended."""
        self._stopping.set()
        with self._signal:
            self._signal.notify_all()
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        if self.progress.indexer is not IndexerState.ELSEWHERE:
            self.progress.indexer = IndexerState.STOPPED
        return not thread.is_alive()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _work(self) -> None:
        while not self._stopping.is_set():
            with self._signal:
                seen = self._notified
            try:
                report = self.run_batch()
                self.last_error = None
                self.progress.indexer = IndexerState.RUNNING
            except ChatRecallError as error:
                log.warning("indexer batch failed: %s", error)
                self.last_error = error
                self.progress.indexer = IndexerState.FAILING
                report = BatchReport()
            if report.did_work:
                self._stopping.wait(self.settings.pause_between_batches_seconds)
                continue
            with self._signal:
                if self._notified != seen:
                    continue  # a write arrived while the batch ran
                self._idle.set()
                self._signal.wait_for(
                    partial(self._woken, seen), self.settings.poll_interval_seconds
                )

    def _woken(self, seen: int) -> bool:
        return self._notified != seen or self._stopping.is_set()
