"""Backfill batches planned in planning processes, pipelined with the indexer's writes.

Planning a batch (loading its rows, projecting and redacting them: domain `plan_batch`)
is pure Python and about half of a heavy backfill; writing it is the other half. Threads
cannot overlap them (both hold the GIL), so while the backlog is large
`ProcessPlanning` hands the next batches to planning processes: while the indexer
writes batch N, a process loads and plans batch N+1 through its own read-only
connection (`MessageRepoOpener`). What crosses the pipes is cheap: the markers (id, seq)
in, the documents out as plain tuples, in length-prefixed pickled frames.

Correctness is the indexer's as before: the unit of work clears each marker only at the
seq that was read and skips documents whose message is gone or whose marker changed, so
a batch planned ahead of time never writes a stale or deleted row. Batches are handed
out in id order: while some are in flight, the next is read past the last one handed
out (`DirtyQueue.pending_messages(after=...)`); a marker set again behind that point is
read when the pipeline has drained, by the indexer's own planning (`InProcessPlanning`),
which is also what plans a small backlog and what takes over at the first failure.

The processes are started with `subprocess` (fork + exec of the same interpreter), not
`multiprocessing`: an embedding host's `__main__` is never re-imported, the host's own
multiprocessing settings do not matter, nothing is registered with `atexit`, and a
process whose parent dies (even by SIGKILL) sees its stdin end and exits. They are
started when a large backlog begins and stopped when it is drained, when the indexer
stops, or at the first failure (logged, counted in `failures`); no marker is ever lost,
since nothing is cleared before its batch is written. Each has a thread here that reads
its replies (so whether one is ready can be told without waiting); it ends with it.
"""

from __future__ import annotations

import collections
import contextlib
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

import attrs

from chat_recall.application.planning import InProcessPlanning, PlanningSettings
from chat_recall.domain.errors import SYSTEMIC_ERRORS
from chat_recall.domain.host_values import UnreadableReason
from chat_recall.domain.indexing import PlannedBatch
from chat_recall.domain.messages import ROLE_OF_VALUE
from chat_recall.domain.model import (
    AppId,
    ChatId,
    IndexBatch,
    IndexDocument,
    MessageId,
    MessageMarker,
    QuarantinedRow,
)

if TYPE_CHECKING:
    import logging

    from chat_recall.domain.ports import Clock, DirtyQueue, MessageRepo, MessageRepoOpener
    from chat_recall.domain.projection import MarkupPolicy


def _log() -> logging.Logger:
    import logging

    return logging.getLogger("chat_recall.indexer")


# -- what crosses the pipes --------------------------------------------------------------

# Ids cross as the ints they are (pickle keeps them), typed as the ids they were made from.
WireDocument = tuple[MessageId, ChatId, AppId, str, int, bool, bool, str, str]
WireQuarantined = tuple[int, "int | None", "int | None", str]
WireBatch = tuple[list[WireDocument], list[MessageId], list[WireQuarantined], int]
_LENGTH = struct.Struct("<Q")


def batch_to_wire(batch: IndexBatch) -> WireBatch:
    """A planned batch as plain tuples (pickled far faster than attrs instances); its
    markers are not sent back: the indexer has them."""
    return (
        [
            (
                d.message_id,
                d.chat_id,
                d.app_id,
                d.role.value,
                d.created_at,
                d.is_compaction_summary,
                d.projection_truncated,
                d.title,
                d.body,
            )
            for d in batch.upserts
        ],
        list(batch.deletes),
        [(r.message_id, r.app_id, r.chat_id, r.reason.value) for r in batch.quarantined],
        batch.redactions,
    )


def batch_from_wire(wire: WireBatch, markers: Sequence[MessageMarker]) -> IndexBatch:
    upserts, deletes, quarantined, redactions = wire
    roles = ROLE_OF_VALUE
    return IndexBatch(
        upserts=tuple(
            IndexDocument(m, c, a, roles[role], at, summary, cut, title, body)
            for m, c, a, role, at, summary, cut, title, body in upserts
        ),
        deletes=tuple(deletes),
        cleared=tuple(markers),
        quarantined=tuple(
            QuarantinedRow(
                MessageId(m),
                None if a is None else AppId(a),
                None if c is None else ChatId(c),
                UnreadableReason(reason),
            )
            for m, a, c, reason in quarantined
        ),
        redactions=redactions,
    )


def write_frame(stream: IO[bytes], message: object) -> None:
    write_bytes(stream, pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def write_bytes(stream: IO[bytes], data: bytes) -> None:
    """One frame: its length, then its bytes."""
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> bytes | None:
    """The next frame's bytes; None at the end of the stream."""
    header = stream.read(_LENGTH.size)
    if len(header) < _LENGTH.size:
        return None
    (length,) = _LENGTH.unpack(header)
    data = stream.read(length)
    return data if len(data) == length else None


# -- the planning processes ----------------------------------------------------------------


class PlanningFailed(Exception):
    """A planning process died, or its reply could not be read."""


# Batches handed to each planning process ahead of the one being written: enough to keep
# it busy over the indexer's maintenance steps (a merge, a tantivy publish).
IN_FLIGHT_PER_PROCESS = 4

# The package's parent folder, put first on the planning process's import path: it
# imports chat_recall from where this process did.
_IMPORT_ROOT = str(Path(__file__).parent.parent.parent.parent)  # chat_recall/adapters/planning/..
_BOOT = "from chat_recall.adapters.planning.worker import main; main()"


class PlanningWorker(Protocol):
    """One planning process as `ProcessPlanning` drives it: batches of markers in, their
    planned batches out, in order."""

    @property
    def waiting(self) -> int:
        """Batches sent whose replies are not read yet."""
        ...

    @property
    def pid(self) -> int: ...

    def send(self, markers: Sequence[MessageMarker]) -> None: ...

    def ready(self) -> bool:
        """Whether the oldest reply can be read without waiting."""
        ...

    def receive(self) -> tuple[tuple[str, Any], float]:
        """The oldest reply: (("ok", wire batch) or ("error", exception), seconds the
        planning took). Raises PlanningFailed when the process is gone."""
        ...

    def close(self) -> None: ...


StartWorker = Callable[["MessageRepoOpener", "MarkupPolicy"], PlanningWorker]


@attrs.define
class ProcessWorker:
    """A planning process (`adapters/planning/worker.py`) on its stdin and stdout."""

    process: subprocess.Popen[bytes]
    replies: queue.SimpleQueue[bytes | None]
    reader: threading.Thread
    waiting: int = 0  # requests sent whose replies are not read yet

    @classmethod
    def start(cls, opener: MessageRepoOpener, policy: MarkupPolicy) -> ProcessWorker:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([_IMPORT_ROOT, *filter(None, [env.get("PYTHONPATH")])])
        process = subprocess.Popen(
            [sys.executable, "-c", _BOOT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        replies: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        reader = threading.Thread(
            target=_read_replies,
            args=(process.stdout, replies),
            name="chat-recall-planning-replies",
            daemon=True,
        )
        reader.start()
        worker = cls(process, replies, reader)
        worker._write((opener, policy))
        return worker

    def _write(self, message: object) -> None:
        assert self.process.stdin is not None
        try:
            write_frame(self.process.stdin, message)
        except (OSError, ValueError) as error:
            raise PlanningFailed(f"cannot send to the planning process: {error}") from error

    def send(self, markers: Sequence[MessageMarker]) -> None:
        self._write([(marker.id, marker.seq) for marker in markers])
        self.waiting += 1

    @property
    def pid(self) -> int:
        return self.process.pid

    def ready(self) -> bool:
        return not self.replies.empty()

    def receive(self) -> tuple[tuple[str, Any], float]:
        data = self.replies.get()
        try:
            if data is None:
                raise EOFError
            reply: tuple[tuple[str, Any], float] = pickle.loads(data)
        except Exception as error:  # EOF: it died; anything else: a torn reply
            self.replies.put(None)  # and any later receive learns it too
            raise PlanningFailed(
                f"the planning process ended (exit code {self.process.poll()})"
            ) from error
        self.waiting -= 1
        return reply

    def close(self, timeout: float = 2.0) -> None:
        """Its stdin ends, so it exits after the batch in hand; killed if it does not."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.reader.join()
        if self.process.stdout is not None:
            self.process.stdout.close()


def _read_replies(stream: IO[bytes] | None, replies: queue.SimpleQueue[bytes | None]) -> None:
    """Until the process's stdout ends: its replies, whole, in order; then None."""
    try:
        while stream is not None and (data := read_frame(stream)) is not None:
            replies.put(data)
    except (OSError, ValueError):
        pass
    replies.put(None)


@attrs.frozen
class _InFlight:
    size: int
    markers: tuple[MessageMarker, ...]
    worker: PlanningWorker


@attrs.define
class ProcessPlanning:
    """The `BatchPlanner` that plans a large backlog's batches in planning processes
    (see the module notes); everything else is `here`'s."""

    here: InProcessPlanning
    dirty: DirtyQueue
    clock: Clock
    settings: PlanningSettings
    opener: MessageRepoOpener
    start_worker: StartWorker = ProcessWorker.start
    failures: int = attrs.field(init=False, default=0)
    # batches planned ahead: by planning processes, and here while they were busy
    planned_apart: int = attrs.field(init=False, default=0)
    planned_here: int = attrs.field(init=False, default=0)
    _workers: list[PlanningWorker] = attrs.field(init=False, factory=list)
    _in_flight: collections.deque[_InFlight] = attrs.field(init=False, factory=collections.deque)
    # The last marker id handed out: the next batch is read past it while batches are
    # in flight (None: nothing is, read from the first).
    _cursor: MessageId | None = attrs.field(init=False, default=None)
    _engaged: bool = attrs.field(init=False, default=False)
    _until_check: int = attrs.field(init=False, default=0)
    _disabled: bool = attrs.field(init=False, default=False)
    _taken: PlannedBatch | None = attrs.field(init=False, default=None)
    # The policy the running processes plan under (they are started with it).
    _policy: MarkupPolicy | None = attrs.field(init=False, default=None)
    _lock: threading.RLock = attrs.field(init=False, factory=threading.RLock)

    @property
    def available(self) -> bool:
        return self.settings.processes > 0 and not self._disabled

    @property
    def processes(self) -> int:
        """How many planning processes run now."""
        return len(self._workers)

    @property
    def process_ids(self) -> list[int]:
        return [worker.pid for worker in self._workers]

    def next(self, size: int, repo: MessageRepo, policy: MarkupPolicy) -> PlannedBatch:
        """The batch taken ahead, else the next one planned apart, else one planned here.
        A systemic error of a planning process is raised as planning here would raise it."""
        taken, self._taken = self._taken, None
        if taken is not None and policy is self._policy:
            return taken
        planned = self.apart(size, repo, policy)
        return planned if planned is not None else self.here.next(size, repo, policy)

    def ahead(self, size: int, repo: MessageRepo, policy: MarkupPolicy) -> None:
        """With the processes at work: take the next planned batch now (receiving it and
        building its documents costs the indexer's thread time, better spent where it
        holds no lock). Otherwise: read ahead here."""
        if not self._engaged:
            self.here.ahead(size, repo, policy)
            return
        try:
            self._taken = self.apart(size, repo, policy)
        except Exception:
            self._taken = None  # the batch asks itself, and meets the failure there

    def apart(self, size: int, repo: MessageRepo, policy: MarkupPolicy) -> PlannedBatch | None:
        """The next batch of up to `size` markers planned by a planning process (or
        here while they are all busy), the following ones handed out; None when the
        batch is to be planned here: the backlog is small or drained, or the processes
        failed."""
        with self._lock:
            if not self.available:
                return None
            if policy is not self._policy:  # planned under another one: start over
                self.close()
                self._policy = policy
            if not self._engaged and not self._backlog_is_large():
                return None
            try:
                planned = self._next(size, repo, policy)
            except SYSTEMIC_ERRORS:
                self._drop_in_flight()
                raise
            except Exception as error:
                self._fail(error)
                return None
            if planned is None:
                self.close()  # the backlog is drained
            return planned

    def close(self) -> None:
        """Stop the planning processes (in-flight batches are dropped: their markers
        stay dirty). The next large backlog starts them again."""
        with self._lock:
            workers, self._workers = self._workers, []
            self._in_flight.clear()
            self._cursor = None
            self._engaged = False
            self._taken = None
            for worker in workers:
                worker.close()
        self.here.close()

    def _backlog_is_large(self) -> bool:
        self._until_check -= 1
        if self._until_check > 0:
            return False
        self._until_check = self.settings.recheck_batches
        self._engaged = self.dirty.backlog().messages >= self.settings.min_backlog
        return self._engaged

    def _next(self, size: int, repo: MessageRepo, policy: MarkupPolicy) -> PlannedBatch | None:
        if not self._in_flight:  # (the batch handed out last time is written by now)
            self._cursor = None
            self._hand_out(size)
            if not self._in_flight:
                return None
        flight = self._in_flight[0]
        if not flight.worker.ready():
            # The planning processes are still at it: this process plans the next
            # batch meanwhile, rather than wait.
            markers = self._following(size)
            if markers:
                return self._plan_here(size, markers, repo, policy)
        self._in_flight.popleft()
        (kind, payload), seconds = flight.worker.receive()
        if kind != "ok":
            raise payload
        self.planned_apart += 1
        self._hand_out(size)  # planned while the caller writes this one
        batch = batch_from_wire(payload, flight.markers)
        return PlannedBatch(flight.size, flight.markers, batch, 0.0, ahead_seconds=seconds)

    def _plan_here(
        self,
        size: int,
        markers: tuple[MessageMarker, ...],
        repo: MessageRepo,
        policy: MarkupPolicy,
    ) -> PlannedBatch:
        started = time.perf_counter()
        self.planned_here += 1
        batch = self.here.plan(markers, repo, policy)
        return PlannedBatch(size, markers, batch, 0.0, ahead_seconds=time.perf_counter() - started)

    def _following(self, size: int) -> tuple[MessageMarker, ...]:
        """The first `size` markers past the ones handed out."""
        markers = tuple(self.dirty.pending_messages(size, after=self._cursor))
        if markers:
            self._cursor = markers[-1].id
        return markers

    def _hand_out(self, size: int) -> None:
        """Keep each planning process IN_FLIGHT_PER_PROCESS batches ahead."""
        policy = self._policy
        assert policy is not None
        if not self._workers:
            self._workers = [
                self.start_worker(self.opener, policy) for _ in range(self.settings.processes)
            ]
        while len(self._in_flight) < IN_FLIGHT_PER_PROCESS * len(self._workers):
            markers = self._following(size)
            if not markers:
                return
            worker = min(self._workers, key=lambda w: w.waiting)
            worker.send(markers)
            self._in_flight.append(_InFlight(size, markers, worker))
            if len(markers) < size:
                return  # the end of the backlog

    def _drop_in_flight(self) -> None:
        """Read and drop the replies of the batches in flight; their markers stay."""
        try:
            while self._in_flight:
                self._in_flight.popleft().worker.receive()
        except Exception as error:
            self._fail(error)
            return
        self._cursor = None

    def _fail(self, error: BaseException) -> None:
        self.failures += 1
        self._disabled = True
        _log().warning(
            "indexer: planning processes failed (%s: %s); planning in this process from now on",
            type(error).__name__,
            error,
        )
        self.close()
