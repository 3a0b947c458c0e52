"""The indexer: drains dirty markers into the derived index in small, timed batches.

Each batch re-reads its source rows joined to their chats, plans the batch (domain:
projection, documents, removals), and writes the documents and clears the markers it
read in one `IndexUnitOfWork` transaction. A marker set again while a batch ran keeps
its newer seq and stays dirty. Batch sizes adapt (domain `BatchSizing`) to stay under a
time budget, so the host process is never starved; a bounded `IndexStore.maintain()`
step follows each batch (while the host writes, at most once per
`HostYield.maintain_every_seconds`).
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import weakref
from collections import Counter
from functools import partial
from typing import TYPE_CHECKING

import attrs

from chat_recall.application.embedding import Embedding, EmbeddingReport
from chat_recall.application.health import IndexHealth, error_kind
from chat_recall.application.planning import (
    BatchPlanning,
    PlannedBatch,
    PlanningSettings,
    load_rows,
)
from chat_recall.application.progress import IndexProgress
from chat_recall.domain.errors import (
    SYSTEMIC_ERRORS,
    ChatRecallError,
    StorageDamaged,
    TransactionOverTime,
)
from chat_recall.domain.indexing import (
    BatchSizing,
    HostYield,
    IndexerLease,
    RetryBackoff,
    index_stamp,
    plan_batch,
    refuse,
    split_batch,
)
from chat_recall.domain.model import (
    IndexBatch,
    Maintenance,
    MessageId,
    MessageMarker,
    SourceRow,
)
from chat_recall.domain.ports import (
    Clock,
    DirtyQueue,
    IndexStore,
    IndexUnitOfWork,
    MessageRepo,
    MessageRepoOpener,
    Telemetry,
)
from chat_recall.domain.projection import MarkupPolicy
from chat_recall.domain.telemetry import IndexBatchEvent, IndexFailureEvent, RowsQuarantinedEvent

if TYPE_CHECKING:
    import logging


def _log() -> logging.Logger:
    """The indexer's logger. logging is imported at the first warning: a command that
    never indexes (a search, a read) does not load it."""
    import logging

    return logging.getLogger("chat_recall.indexer")


BACKLOG_RECOUNT = 100
# A bisection that finds this many rows failing alone before any part of the batch was
# written gives up: the failure is not about one row (and costs a few dozen short
# transactions per retry at most, instead of one per row).
ISOLATION_GIVE_UP = 4


@attrs.frozen
class IndexerSettings:
    sizing: BatchSizing = BatchSizing()
    backoff: RetryBackoff = RetryBackoff()
    chats_per_batch: int = 8
    pause_between_batches_seconds: float = 0.001
    poll_interval_seconds: float = 30.0
    host_yield: HostYield = HostYield()
    # Backfill batches planned in planning processes (`application/planning.py`).
    planning: PlanningSettings = PlanningSettings()
    lease: IndexerLease = IndexerLease()


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
    # How long to rest before the next batch, to make way for a writing host (`HostYield`):
    # the background worker and `chat-recall index` honour it; `run_until_idle` does not.
    rest_seconds: float = 0.0
    quarantined: int = 0  # rows set aside as unreadable (see `Quarantine`)
    # Planning the batch ahead of its write, while the previous one was written (in a
    # planning process, or here while they were busy: `application/planning.py`); not
    # part of duration_seconds. 0 when it was planned in turn (`projection_seconds`).
    planned_ahead_seconds: float = 0.0
    # The host writes and the maintenance step was left for later (`HostYield.maintains`).
    maintenance_deferred: bool = False
    # A transaction of this batch outlived its time limit, was rolled back, and the
    # batch was written in smaller parts (`HostYield.limit_seconds`).
    over_time_limit: bool = False
    # Another indexer holds the claim to this queue (`IndexerLease`): who, as
    # `describe_holder` says it; this batch did nothing and `rest_seconds` is the recheck.
    waiting_for: str | None = None
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


@attrs.frozen
class _ReadAhead:
    """A batch's markers and source rows, read before its turn (`Indexer._read_next`)."""

    size: int  # the batch size they were read for
    markers: list[MessageMarker]
    rows: dict[MessageId, SourceRow]
    unreadable: set[MessageId]


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
    # Where planning processes open their own reader; None: plan in this process only.
    opener: MessageRepoOpener | None = None
    # The semantic layer's vectors, made once the text index is caught up (None: off).
    embedding: Embedding | None = None
    _planning: BatchPlanning = attrs.field(init=False)
    _batch_size: int = attrs.field(init=False, default=0)
    _writing_size: int = attrs.field(init=False, default=0)  # while the host writes
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
    _retry_in: float = attrs.field(init=False, default=0.0)
    # The storage's `host_writes()` value last seen, and when it last moved.
    _host_writes: int | None = attrs.field(init=False, default=None)
    _host_wrote_at: float | None = attrs.field(init=False, default=None)
    _host_since: float = attrs.field(init=False, default=0.0)
    # When the last maintenance step ended (`HostYield.maintains`).
    _maintained_at: float | None = attrs.field(init=False, default=None)
    # The next batch's markers and rows, read in the gap before a maintenance step; or,
    # with planning processes, the next planned batch, taken in that gap.
    _read_ahead: _ReadAhead | None = attrs.field(init=False, default=None)
    _planned_next: PlannedBatch | None = attrs.field(init=False, default=None)
    # This indexer's name in the queue's claim (`IndexerLease`), and when it last took it.
    _holder: str = attrs.field(init=False, factory=lambda: new_holder())
    _claimed_at: float | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        self._batch_size = self.settings.sizing.initial
        self._writing_size = self.settings.host_yield.first_size
        self._planning = BatchPlanning(
            self.dirty, self.repo, self.policy, self.settings.planning, self.opener
        )
        _LIVE[self._holder] = self

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
        size of dirty messages in one unit of work, then one maintenance step.

        A failure is recorded in `health` and raised. A row that fails the batch on
        its own (a poison row) is isolated and quarantined, and the rest is written:
        see `load_rows` and `_write`."""
        try:
            with self._lock:
                report = self._run_batch()
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

    def _run_batch(self) -> BatchReport:
        started = self.clock.monotonic()
        waiting_for = self._claim(started)
        if waiting_for is not None:
            return BatchReport(
                rest_seconds=self.settings.lease.recheck_seconds, waiting_for=waiting_for
            )
        if not self._prepared:
            # Under the claim: an indexer waiting for another one (`chat-recall index`
            # while the app's indexer works) neither scans for orphans nor removes them.
            self.prepare()
            started = self.clock.monotonic()
        active, writing = self._host_activity(started)
        polite = self.settings.host_yield
        expanded = 0
        chats = 1 if active else self.settings.chats_per_batch
        for marker in self.dirty.pending_chats(chats):
            self.dirty.expand_chat(marker)
            expanded += 1
        # While the host writes (or may: an indexer's first half second), the size adapts
        # to the transaction's length alone (`HostYield.sizing`).
        size = self._writing_size if active else self._batch_size
        waiting = self.clock.monotonic()
        planned, self._planned_next = self._planned_next, None
        if planned is None or active:  # one taken while the host was quiet is dropped
            planned = self._planning.next(size, careful=active)
        planned_ahead = 0.0
        ahead, self._read_ahead = self._read_ahead, None
        if planned is None:
            if ahead is not None and ahead.size == size and not active:
                markers, rows, unreadable = ahead.markers, ahead.rows, ahead.unreadable
            else:
                markers = self.dirty.pending_messages(size)
                rows, unreadable = load_rows(self.repo, markers)
            projecting = self.clock.monotonic()
            batch = plan_batch(markers, rows, self.policy, unreadable)
            projection = self.clock.monotonic() - projecting
        else:
            # Planned while the previous batch was written (by a planning process, or
            # here while they were all busy): the host is quiet, so the batch's size
            # adapts to its write alone, as every batch's does (`BatchSizing`).
            size, markers, batch = planned.size, list(planned.markers), planned.batch
            projection, planned_ahead = 0.0, planned.seconds
            started += self.clock.monotonic() - waiting
        apps = {document.app_id for document in batch.upserts}
        writing_started = self.clock.monotonic()
        over_time = False
        if markers:
            self.progress.begin(apps)
            try:
                batch, over_time = self._write(batch)
            finally:
                self.progress.end(apps)
        ended = self.clock.monotonic()
        duration = ended - started
        full = len(markers) == size
        # The size adapts to the write transaction's length, not the whole batch's: only
        # the transaction holds the lock (planning the batch does not). One that ran over
        # its limit counts as at least that long, however soon it was stopped.
        transaction = ended - writing_started
        if over_time:
            transaction = max(transaction, polite.limit_seconds)
        if active:
            self._writing_size = polite.sizing().next_size(size, transaction, full=full)
        else:
            self._batch_size = self.settings.sizing.next_size(size, transaction, full=full)
        last = self._maintained_at
        deferred = not polite.maintains(None if last is None else started - last, writing=writing)
        if not deferred:
            if markers and active:
                # While the host writes, each of our transactions is followed by its rest,
                # this one too: a host write that waited for the batch gets the lock before
                # the maintenance step takes it again (back to back, its busy handler's
                # next try would find the lock taken a second time).
                self._stopping.wait(polite.rest(duration, active=True, writing=writing))
            elif markers:
                # A quiet host: a gap between the batch and its maintenance step lets a
                # writer that arrived meanwhile in (back to back, at 1M heavy messages the
                # two held the lock 25-35 ms, 8 of the 10 spans over 25 ms a probe saw).
                # The gap reads the next batch's rows (no lock needed) rather than idle,
                # or takes the next planned batch (receiving, unpickling and building
                # its documents: 5-9 us a message of the indexer's thread otherwise).
                gap_began = self.clock.monotonic()
                if planned is None:
                    self._read_ahead = self._read_next(self._batch_size)
                else:
                    self._planned_next = self._take_planned(self._batch_size)
                spent = self.clock.monotonic() - gap_began
                if spent < polite.gap_seconds:
                    self._stopping.wait(polite.gap_seconds - spent)
            maintaining = self.clock.monotonic()
            maintenance = self.index.maintain()
            self._maintained_at = self.clock.monotonic()
            maintenance_seconds = self._maintained_at - maintaining
            busy = maintenance_seconds
            if not active and maintenance.held_seconds > polite.gap_seconds:
                # A quiet host: a step whose last transaction held the lock (a merge
                # with work to do) is followed by a gap, as the batch is. Back to back
                # with the next batch, a host write that arrived during the step would
                # meet both: at 1M heavy messages a merge step then a batch held the
                # lock 26.4-28.3 ms, the probe's only spans over 25 ms in three runs.
                self._stopping.wait(polite.gap_seconds)
        else:  # the host writes and the last step was recent: the batch's rest only
            maintenance, maintenance_seconds, busy = Maintenance(), 0.0, duration
        rest = 0.0  # nothing written: nothing to make way for
        if markers or maintenance.reclaimed:
            since_burst = self.clock.monotonic() - started
            rest = polite.rest(busy, active=active, writing=writing, since_burst=since_burst)
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
            planned_ahead_seconds=planned_ahead,
            rest_seconds=rest,
            maintenance_deferred=deferred,
            over_time_limit=over_time,
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
                    redactions=batch.redactions,
                )
            )
        for reason, count in sorted(Counter(row.reason.value for row in batch.quarantined).items()):
            _log().warning("indexer: %d row(s) quarantined: %s", count, reason)
            self.telemetry.emit(RowsQuarantinedEvent(reason=reason, count=count))
        return report

    def _take_planned(self, size: int) -> PlannedBatch | None:
        """The next planned batch, taken ahead while the host is quiet. None when there
        is none, or taking it failed: the batch then asks itself (and meets the failure
        there, where it is handled). A planned batch is as safe later as now: the unit
        of work writes none whose marker changed since."""
        try:
            return self._planning.next(size, careful=False)
        except Exception:
            return None

    def _read_next(self, size: int) -> _ReadAhead | None:
        """The next batch's markers and rows, read ahead while the host is quiet. None
        when there are none, or reading failed: the batch then reads them itself (and
        meets the failure there, where it is handled). Rows read ahead are as safe as
        rows read in turn: the unit of work writes none whose marker changed since."""
        try:
            markers = self.dirty.pending_messages(size)
            if not markers:
                return None
            rows, unreadable = load_rows(self.repo, markers)
        except Exception:
            return None
        return _ReadAhead(size, markers, rows, unreadable)

    def _embed(self, embedding: Embedding) -> EmbeddingReport:
        """One embedding step. A model that cannot load or run never stops the text
        index: the step reports it (`failed`) and is tried again at the next batch."""
        try:
            return embedding.step()
        except ChatRecallError as error:
            if not isinstance(error, SYSTEMIC_ERRORS):
                _log().warning("indexer: the embedding step failed (%s)", error.kind)
                return EmbeddingReport(failed=error.kind)
            raise

    def _claim(self, now: float) -> str | None:
        """Take or renew this indexer's claim to the queue when due; None when it has
        it, else who holds it (`describe_holder`). A claim left by a process of this
        machine that is gone, or by an indexer of this process that no longer exists,
        is overruled."""
        lease = self.settings.lease
        if not lease.due(self._claimed_at, now):
            return None
        other = self.dirty.claim(self._holder, lease.seconds)
        if other is not None and holder_gone(other):
            other = self.dirty.claim(self._holder, lease.seconds, overrule=other)
        if other is not None:
            self._claimed_at = None
            return describe_holder(other)
        self._claimed_at = now
        return None

    def release_claim(self) -> None:
        """End this indexer's claim to the queue, so another indexer need not wait for it
        to run out. Never raises (a read-only or lost storage lets it run out)."""
        if self._claimed_at is None:
            return
        self._claimed_at = None
        try:
            self.dirty.release(self._holder)
        except Exception:
            _log().warning("indexer: could not end its claim (it runs out)", exc_info=True)

    def _host_activity(self, now: float) -> tuple[bool, bool]:
        """(active, writing): writing when the host wrote within
        `HostYield.quiet_seconds`; active also in this indexer's first `quiet_seconds`
        (there is nothing to compare yet). While active the indexer works in bursts
        with rests; while writing, maintenance waits for its interval (`HostYield`)."""
        seen = self.dirty.host_writes()
        if seen is None:
            return False, False  # the host never waits for this storage's indexer
        quiet = self.settings.host_yield.quiet_seconds
        if self._host_writes is None:
            self._host_since = now
        elif seen != self._host_writes:
            self._host_wrote_at = now
        self._host_writes = seen
        writing = self._host_wrote_at is not None and now - self._host_wrote_at < quiet
        return writing or now - self._host_since < quiet, writing

    def _commit(self, batch: IndexBatch) -> IndexBatch:
        """Write the batch in one unit of work; returns what was applied (rows whose
        markers were found stale were not: their newer markers, or another indexer,
        bring them), so the counts reported are what this indexer did. A batch of more
        than one marker runs under the transaction time limit (`HostYield`)."""
        limit = self.settings.host_yield.limit_seconds if len(batch.cleared) > 1 else None
        with self.unit_of_work.transaction(time_limit_seconds=limit) as writer:
            writer.clear(batch.cleared)  # first: a stale marker's row is not written
            writer.remove(batch.deletes)
            writer.put(batch.upserts)
            writer.quarantine(batch.quarantined)
        return batch.without(writer.stale, writer.set_aside)

    def _write(self, batch: IndexBatch) -> tuple[IndexBatch, bool]:
        """Write the batch, in parts when it must be. A part whose transaction outlived
        its time limit was rolled back: it is written in halves (`HostYield`). A part
        that fails for a reason that is not systemic is bisected: halves are written
        separately, and a single marker whose write still fails is quarantined
        (`indexing_failed`), provided some other part was written (otherwise the
        failure is not about one row, and it is raised; so is the failure of a batch
        of one). Returns what was written, and whether a part ran over its limit."""
        pending = [batch]
        written: list[IndexBatch] = []
        refused: list[IndexBatch] = []
        first_failure: Exception | None = None
        over_time = False
        damaged: set[int] = set()
        polite = self.settings.host_yield
        rest = polite.gap_seconds
        while pending:
            part = pending.pop()
            if not part.cleared:
                continue
            if part is not batch:
                # A rest after the transaction before: back to back, a host write that
                # waited for it would meet this one too.
                self._stopping.wait(rest)
            rest = polite.gap_seconds
            try:
                written.append(self._commit(part))
            except TransactionOverTime:
                over_time = True
                pending.extend(split_batch(part))  # more than one marker: it had a limit
                # It held the lock for its whole limit and wrote nothing: a host write
                # that waited meanwhile sleeps in its busy handler between tries (1, 2,
                # 5, 10 ms...), and a 2 ms gap let few in (at 1M heavy messages a probe
                # found the lock taken 30.4 ms across such a pair, 15.4 + 12.5 ms). As
                # long a rest as the limit lets such a write in.
                rest = max(rest, polite.limit_seconds)
            except StorageDamaged as error:
                # One app's index is damaged and now set aside by the storage: the same
                # part again, its documents of that app quarantined (`index_damaged`).
                if error.app_id is None or error.app_id in damaged:
                    raise
                damaged.add(error.app_id)
                pending.append(part)
                self._stopping.wait(self.settings.host_yield.gap_seconds)  # as between parts
            except SYSTEMIC_ERRORS:
                raise
            except Exception as error:
                if first_failure is None:
                    if part is batch and len(part.cleared) <= 1:
                        raise
                    _log().warning(
                        "indexer: a batch of %d failed (%s); isolating the row that fails it",
                        len(part.cleared),
                        error_kind(error),
                    )
                    first_failure = error
                if len(part.cleared) == 1:
                    refused.append(part)
                else:
                    pending.extend(split_batch(part))
            if first_failure is not None and not written and len(refused) >= ISOLATION_GIVE_UP:
                raise first_failure  # row after row fails alone: not a poison row
        if first_failure is not None and not written:
            raise first_failure
        for part in refused:
            self._stopping.wait(self.settings.host_yield.gap_seconds)
            written.append(self._commit(refuse(part)))
        if len(written) == 1:
            return written[0], over_time
        joined = IndexBatch(
            upserts=tuple(d for part in written for d in part.upserts),
            deletes=tuple(m for part in written for m in part.deletes),
            cleared=tuple(m for part in written for m in part.cleared),
            quarantined=tuple(r for part in written for r in part.quarantined),
            redactions=batch.redactions,
        )
        return joined, over_time

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
            if report.waiting_for is not None:  # another indexer has the queue
                self._stopping.wait(report.rest_seconds)
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
        """Run a background worker thread (its adapters use their own connection).
        Nothing runs when the storage is read-only here (`health` says so)."""
        if self._thread is not None and self._thread.is_alive():
            return
        if not self.health.snapshot().can_advance:
            return
        self.health.started()
        self._stopping.clear()
        self._idle.clear()
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
        if thread is not None:
            thread.join(timeout)
        self._planning.close()
        if thread is not None and thread.is_alive():
            return False
        with self._lock:  # no batch in flight
            self.release_claim()
        return True

    @property
    def planning(self) -> BatchPlanning:
        return self._planning

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _work(self) -> None:
        """The worker never dies silently: any failure of a batch is recorded in
        `health` (stalled, with the error kind), logged, and retried after a backoff
        that grows with consecutive failures (host writes do not cut it short)."""
        self.health.started()
        try:
            self._loop()
        finally:
            self.health.stopped()

    def _loop(self) -> None:
        while not self._stopping.is_set():
            with self._signal:
                seen = self._notified
            try:
                report = self.run_batch()
            except Exception as error:
                delay = self._retry_in
                _log().warning(
                    "indexer: batch failed (%s: %s); retrying in %.1f s",
                    error_kind(error),
                    type(error).__name__,
                    delay,
                    exc_info=True,
                )
                self._stopping.wait(delay)
                continue
            if report.waiting_for is not None:  # another indexer has the queue: look again
                self._stopping.wait(report.rest_seconds)
                continue
            if report.did_work:
                pause = self.settings.pause_between_batches_seconds
                self._stopping.wait(max(pause, report.rest_seconds))
                continue
            with self._signal:
                if self._notified != seen:
                    continue  # a write arrived while the batch ran
                self._idle.set()
                timeout = self.settings.poll_interval_seconds
                if report.maintenance_deferred:  # come back for it once the host is quiet
                    # (the tantivy engine publishes in it: a lone edit waited 5 s for it)
                    timeout = min(timeout, self.settings.host_yield.quiet_seconds)
                self._signal.wait_for(partial(self._woken, seen), timeout)

    def _woken(self, seen: int) -> bool:
        return self._notified != seen or self._stopping.is_set()


# The indexers of this process, by holder: a claim whose holder names this process but
# no live indexer was left by one that was dropped without `stop()`.
_LIVE: weakref.WeakValueDictionary[str, Indexer] = weakref.WeakValueDictionary()


def new_holder() -> str:
    """`host:pid:nonce`: unique per indexer, and says which process holds a claim."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def _host_and_pid(holder: str) -> tuple[str, str]:
    """The machine and process a `new_holder` name says ("", holder for another form)."""
    host, _, pid = holder.rpartition(":")[0].rpartition(":")
    return (host, pid) if host else ("", holder)


def describe_holder(holder: str) -> str:
    host, pid = _host_and_pid(holder)
    return f"process {pid}" if host == socket.gethostname() else f"process {pid} on {host}"


def holder_gone(holder: str) -> bool:
    """Whether the indexer named by `holder` is known to be gone: its process, on this
    machine, has ended, or it was of this process and no longer exists."""
    host, pid_text = _host_and_pid(holder)
    if host != socket.gethostname() or not pid_text.isdigit():
        return False  # another machine's: its claim runs out
    pid = int(pid_text)
    if pid == os.getpid():
        return holder not in _LIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # e.g. another user's process: alive
        return False
    return False
