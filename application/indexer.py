"""The indexer: drains dirty markers into the derived index, batch by batch.

A batch is its flow: take the claim to the queue (one indexer at a time), expand a few
dirty chats, take the next markers and plan them (`BatchPlanner`: rows loaded, projected,
redacted), write them in the unit of work (`BatchWriter`: in parts the pacer's budget
allows), get the next batch ready while no lock is held, run one maintenance step, and
note how fresh the index is. The rests between transactions are the storage's own
(`WritePacer`, domain `PacingRule`): the flow never sleeps to make way. A marker set again
while a batch ran keeps its newer seq and stays dirty. `BackgroundWorker`
(`application/worker.py`) runs batches in a thread of the host's process.
"""

from __future__ import annotations

import threading
from collections import Counter

import attrs

from chat_recall.application.batch_writer import BatchWriter, Written
from chat_recall.application.claim import IndexerClaim
from chat_recall.application.embedding import Embedding, EmbeddingReport
from chat_recall.application.health import IndexHealth, error_kind
from chat_recall.application.planning import PlanningSettings
from chat_recall.application.progress import IndexProgress
from chat_recall.application.worker import BackgroundWorker, indexer_log
from chat_recall.domain.errors import SYSTEMIC_ERRORS, ChatRecallError
from chat_recall.domain.indexing import (
    BatchSizing,
    IndexerLease,
    PlannedBatch,
    RetryBackoff,
    index_stamp,
)
from chat_recall.domain.model import IndexBatch
from chat_recall.domain.pacing import PacingRule
from chat_recall.domain.ports import (
    BatchPlanner,
    Claimants,
    Clock,
    DirtyQueue,
    IndexStore,
    IndexUnitOfWork,
    MessageRepo,
    Telemetry,
    WritePacer,
)
from chat_recall.domain.projection import MarkupPolicy
from chat_recall.domain.telemetry import IndexBatchEvent, IndexFailureEvent, RowsQuarantinedEvent

BACKLOG_RECOUNT = 100  # batches between exact counts of the backlog (telemetry's figure)
CAUGHT_UP_EVERY_SECONDS = 1.0  # how often the index's freshness is recorded, at most


@attrs.frozen
class IndexerSettings:
    sizing: BatchSizing = BatchSizing()
    backoff: RetryBackoff = RetryBackoff()
    chats_per_batch: int = 8
    # Idle, the worker looks for host writes nobody told it of this often (one cheap
    # read), and runs a batch anyway after `poll_interval_seconds`.
    watch_seconds: float = 1.0
    poll_interval_seconds: float = 30.0
    pacing: PacingRule = PacingRule()
    planning: PlanningSettings = PlanningSettings()  # planning processes (`adapters/planning`)
    lease: IndexerLease = IndexerLease()


@attrs.frozen
class BatchReport:
    indexed: int = 0
    deleted: int = 0
    purged: int = 0
    quarantined: int = 0  # rows set aside as unreadable (see `Quarantine`)
    chats_expanded: int = 0
    expanded_messages: int = 0  # marked by the chats expanded
    batch_size: int = 0
    duration_seconds: float = 0.0
    projection_seconds: float = 0.0  # of duration_seconds: planning in this process
    planned_ahead_seconds: float = 0.0  # planned in a planning process, ahead of time
    maintenance_seconds: float = 0.0  # the maintenance step after the batch
    # A part of this batch outlived the time limit, was rolled back and written in halves.
    over_time_limit: bool = False
    # The batch took every marker pending when it read them: the index has caught up.
    drained: bool = False
    # Another indexer holds the claim to this queue: who; this batch did nothing, and
    # `rest_seconds` is when to look again.
    waiting_for: str | None = None
    rest_seconds: float = 0.0
    # The semantic layer's step, run when the text index had nothing to do (`Embedding`).
    embedding: EmbeddingReport | None = None

    @property
    def did_work(self) -> bool:
        return bool(
            self.indexed
            or self.deleted
            or self.purged
            or self.chats_expanded
            or self.quarantined
            or (self.embedding is not None and self.embedding.did_work)
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
    health: IndexHealth
    pacer: WritePacer
    claimants: Claimants
    planner: BatchPlanner
    # The semantic layer's vectors, made once the text index is caught up (None: off).
    embedding: Embedding | None = None
    _claim: IndexerClaim = attrs.field(init=False)
    _writer: BatchWriter = attrs.field(init=False)
    _prepared: bool = attrs.field(init=False, default=False)
    _backlog: int = attrs.field(init=False, default=0)  # telemetry's estimate
    _since_count: int = attrs.field(init=False, default=BACKLOG_RECOUNT)
    _noted_at: float | None = attrs.field(init=False, default=None)
    _retry_in: float = attrs.field(init=False, default=0.0)
    _lock: threading.Lock = attrs.field(init=False, factory=threading.Lock)
    _worker: BackgroundWorker = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._claim = IndexerClaim(self.dirty, self.claimants, self, self.settings.lease)
        self._writer = BatchWriter(self.pacer, self.clock, self.settings.sizing)
        self._worker = BackgroundWorker(self)

    # -- one batch -----------------------------------------------------------------------

    def prepare(self) -> None:
        """At start: remove orphans, and re-index in the background if the projection or
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
        """One batch. A failure is recorded in `health` and raised; a row that fails the
        batch on its own is quarantined and the rest written (`BatchWriter`)."""
        try:
            with self._lock:
                report = self._batch()
                if self.embedding is not None and not report.did_work and not report.waiting_for:
                    report = attrs.evolve(report, embedding=self._embed(self.embedding))
        except Exception as error:
            self._retry_in = self.health.failed(error, self.settings.backoff)
            self.telemetry.emit(
                IndexFailureEvent(error_kind=error_kind(error), retry_in_seconds=self._retry_in)
            )
            raise
        self.health.succeeded()
        return report

    def _batch(self) -> BatchReport:
        waiting_for = self._claim.take(self.clock.monotonic())
        if waiting_for is not None:
            recheck = self.settings.lease.recheck_seconds
            return BatchReport(waiting_for=waiting_for, rest_seconds=recheck)
        if not self._prepared:  # under the claim: a waiting indexer scans nothing
            self.prepare()
        started = self.clock.monotonic()
        expanded, marked, all_chats = self._expand_chats()
        planned = self.planner.next(self._writer.batch_size(), self.repo, self.policy)
        written = self._write(planned)
        self.planner.ahead(self._writer.batch_size(), self.repo, self.policy)
        maintaining = self.clock.monotonic()
        maintenance = self.index.maintain()
        ended = self.clock.monotonic()
        drained = planned.drained and all_chats
        if drained:
            self._note_caught_up(planned.read_at, ended)
        report = BatchReport(
            indexed=len(written.batch.upserts),
            deleted=len(written.batch.deletes),
            purged=maintenance.reclaimed,
            quarantined=len(written.batch.quarantined),
            chats_expanded=expanded,
            expanded_messages=marked,
            batch_size=planned.size,
            duration_seconds=ended - started,
            projection_seconds=planned.seconds,
            planned_ahead_seconds=planned.ahead_seconds,
            maintenance_seconds=ended - maintaining,
            over_time_limit=written.over_time,
            drained=drained,
        )
        self._tell(report, written.batch, len(planned.markers))
        return report

    def _expand_chats(self) -> tuple[int, int, bool]:
        """Mark the messages of a few dirty chats dirty (a renamed chat re-indexes): how
        many chats, how many messages, and whether these were all the dirty chats."""
        chats = self.dirty.pending_chats(self.settings.chats_per_batch)
        marked = sum(self.dirty.expand_chat(marker) for marker in chats)
        return len(chats), marked, len(chats) < self.settings.chats_per_batch

    def _write(self, planned: PlannedBatch) -> Written:
        if not planned.markers:
            return Written(IndexBatch())
        apps = {document.app_id for document in planned.batch.upserts}
        self.progress.begin(apps)
        try:
            return self._writer.write(planned.batch, self.unit_of_work)
        finally:
            self.progress.end(apps)

    def _note_caught_up(self, read_at: float, now: float) -> None:
        """Record, at most every CAUGHT_UP_EVERY_SECONDS, that the index holds every
        change marked before `read_at` (`DirtyQueue.note_caught_up`)."""
        if self._noted_at is not None and now - self._noted_at < CAUGHT_UP_EVERY_SECONDS:
            return
        self._noted_at = now
        self.dirty.note_caught_up(max(0.0, now - read_at))

    def _tell(self, report: BatchReport, batch: IndexBatch, taken: int) -> None:
        if report.did_work:
            self.telemetry.emit(
                IndexBatchEvent(
                    duration_ms=report.duration_seconds * 1000,
                    batch_size=report.batch_size,
                    indexed=report.indexed,
                    deleted=report.deleted,
                    purged=report.purged,
                    backlog_messages=self._backlog_after(taken),
                    quarantined=report.quarantined,
                    redactions=batch.redactions,
                )
            )
        for reason, count in sorted(Counter(row.reason.value for row in batch.quarantined).items()):
            indexer_log().warning("indexer: %d row(s) quarantined: %s", count, reason)
            self.telemetry.emit(RowsQuarantinedEvent(reason=reason, count=count))

    def _embed(self, embedding: Embedding) -> EmbeddingReport:
        """One embedding step. A model that cannot load or run never stops the text
        index: the step reports it (`failed`) and is tried again at the next batch."""
        try:
            return embedding.step()
        except ChatRecallError as error:
            if not isinstance(error, SYSTEMIC_ERRORS):
                indexer_log().warning("indexer: the embedding step failed (%s)", error.kind)
                return EmbeddingReport(failed=error.kind)
            raise

    def _backlog_after(self, processed: int) -> int:
        """Counted exactly every BACKLOG_RECOUNT batches (a count scans the markers),
        estimated in between."""
        self._since_count += 1
        if self._since_count >= BACKLOG_RECOUNT or self._backlog < processed:
            self._backlog, self._since_count = self.dirty.backlog().messages, 0
        else:
            self._backlog -= processed
        return self._backlog

    def run_until_idle(self, *, max_batches: int | None = None) -> IndexReport:
        """Run batches until nothing is pending (for tests and scripts)."""
        batches = indexed = deleted = purged = 0
        longest = 0.0
        while max_batches is None or batches < max_batches:
            report = self.run_batch()
            if report.waiting_for is not None:  # another indexer has the queue
                self._worker.pause(report.rest_seconds)
            batches += 1
            indexed += report.indexed
            deleted += report.deleted
            purged += report.purged
            longest = max(longest, report.duration_seconds)
            if not report.did_work and self.dirty.backlog().is_empty:
                break
        return IndexReport(batches, indexed, deleted, purged, longest)

    def release_claim(self) -> None:
        with self._lock:  # no batch in flight
            self._claim.release()

    @property
    def retry_in(self) -> float:
        """How long to wait before the next batch after the last one failed."""
        return self._retry_in

    @property
    def batch_size(self) -> int:
        """How many markers the next transaction takes (it follows the pacer's budget)."""
        return self._writer.size()

    # -- the background worker (`application/worker.py`) -----------------------------------

    def start(self) -> None:
        """Run batches in a background thread (`BackgroundWorker.start`)."""
        self._worker.start()

    def notify(self) -> None:
        """Tell the background worker that the host wrote something."""
        self._worker.notify()

    def wait_until_idle(self, timeout: float) -> bool:
        """Wait at most `timeout` seconds for the worker to find nothing left to do."""
        return self._worker.wait_until_idle(timeout)

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop the worker after the batch in flight; True when it has ended."""
        return self._worker.stop(timeout)

    @property
    def running(self) -> bool:
        return self._worker.running
