"""Backfill batches planned in planning processes, pipelined with the indexer's writes.

Planning a batch (loading its rows, projecting and redacting them: domain `plan_batch`)
is pure Python and takes about half of a heavy backfill; writing it is the other half.
Threads cannot overlap them (both hold the GIL; tried, no gain), so while the backlog is
large and the host is quiet, `BatchPlanning` hands the next batches to planning
processes: while the indexer writes batch N, a process loads and plans batch N+1 through
its own read-only connection (`MessageRepoOpener`). What crosses the pipes is cheap: the
markers (id, seq) in, the documents out as plain tuples.

Correctness is the indexer's as before: the unit of work clears each marker only at the
seq that was read and skips documents whose message is gone or whose marker changed, so
a batch planned ahead of time never writes a stale or deleted row. Batches are handed
out in id order: while some are in flight, the next is read past the last one handed
out (`DirtyQueue.pending_messages(after=...)`); a marker set again behind that point is
read when the pipeline has drained.

The processes are started with `subprocess` (fork + exec of the same interpreter), not
`multiprocessing`: an embedding host's `__main__` is never re-imported, the host's own
multiprocessing settings do not matter, and a process whose parent dies (even by
SIGKILL) sees its stdin end and exits. They are started when a large backlog begins and
stopped when it is drained, when the indexer stops, or at the first failure: then
planning falls back to the indexer's own process (logged, counted in `failures`); no
marker is ever lost, since nothing is cleared before its batch is written.
"""

from __future__ import annotations

import collections
import contextlib
import os
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from chat_recall.domain.errors import SYSTEMIC_ERRORS
from chat_recall.domain.host_values import UnreadableReason
from chat_recall.domain.indexing import plan_batch
from chat_recall.domain.messages import ROLE_OF_VALUE
from chat_recall.domain.model import (
    AppId,
    ChatId,
    IndexBatch,
    IndexDocument,
    MessageId,
    MessageMarker,
    QuarantinedRow,
    SourceRow,
)

if TYPE_CHECKING:
    import logging

    from chat_recall.domain.ports import DirtyQueue, MessageRepo, MessageRepoOpener
    from chat_recall.domain.projection import MarkupPolicy


def _log() -> logging.Logger:
    import logging

    return logging.getLogger("chat_recall.indexer")


@attrs.frozen
class PlanningSettings:
    """`processes`: how many planning processes a backfill uses (0: always plan in the
    indexer's own process). Off by default, which is what an embedding host gets:
    starting processes from inside a host's process is the host's decision to make.
    chat-recall's own processes (the CLI's `index` and `rebuild`, the MCP server) use
    `for_own_process()`. A planning process speeds a heavy backfill up 1.4-1.9x on two
    CPUs; the transactions it feeds are the same bounded batches (ARCHITECTURE.md,
    "What scale took"). `min_backlog`: they are
    started only while at least this many messages await indexing (a process costs
    ~0.2 s of CPU to start);
    `recheck_batches`: how often, in batches, an indexer planning in its own process
    counts the backlog again."""

    processes: int = 0
    min_backlog: int = 5_000
    recheck_batches: int = 64

    @classmethod
    def for_own_process(cls) -> PlanningSettings:
        """For a process that is chat-recall's own (`chat-recall index`, `rebuild`, the
        MCP server), not a host's: one planning process where this process may run on
        two or more CPUs, none on one (a planning process would only take turns with
        the indexer there)."""
        return cls(processes=1 if usable_cpus() >= 2 else 0)


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the platform tells it)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return len(affinity(0))
    return os.cpu_count() or 1


# -- what crosses the pipes --------------------------------------------------------------

# Ids cross as the ints they are (pickle keeps them), typed as the ids they were made from.
WireDocument = tuple[MessageId, ChatId, AppId, str, int, bool, bool, str, str]
WireQuarantined = tuple[int, "int | None", "int | None", str]
WireBatch = tuple[list[WireDocument], list[MessageId], list[WireQuarantined], int]


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


# -- loading rows (the indexer's own process and planning processes alike) --------------


def load_rows(
    repo: MessageRepo, markers: Sequence[MessageMarker]
) -> tuple[dict[MessageId, SourceRow], set[MessageId]]:
    """The source rows of the markers. If loading them together fails for a reason
    that is not systemic, each is loaded alone: the ones that still fail are returned
    as unreadable (to be quarantined), unless every one fails (then the failure is not
    about a row, and it is raised)."""
    ids = [marker.id for marker in markers]
    try:
        return {row.message.id: row for row in repo.source_rows(ids)}, set()
    except SYSTEMIC_ERRORS:
        raise
    except Exception:
        if len(ids) <= 1:
            raise
        _log().warning("indexer: loading %d rows failed; loading them one by one", len(ids))
    rows: dict[MessageId, SourceRow] = {}
    unreadable: set[MessageId] = set()
    failure: Exception | None = None
    for message_id in ids:
        try:
            rows.update((row.message.id, row) for row in repo.source_rows([message_id]))
        except SYSTEMIC_ERRORS:
            raise
        except Exception as error:
            unreadable.add(message_id)
            failure = error
    if failure is not None and len(unreadable) == len(ids):
        raise failure
    return rows, unreadable


# -- the planning processes ----------------------------------------------------------------


class PlanningFailed(Exception):
    """A planning process died, or its reply could not be read."""


# Batches handed to each planning process ahead of the one being written. Two kept it
# busy while the indexer wrote batches, but not over a maintenance step (a merge, a
# tantivy publish: tens of ms, several batches' planning): it went idle, and the indexer
# then planned the next batches itself, on the core the other work needed. With four,
# 200k heavy messages backfilled 21,800 msg/s on tantivy (20,600 with two; 5 runs
# each) and 24,100 on FTS5 (21,900; 2 runs each), the batches planned in the indexer
# 75 -> 45 of 330. (Six and eight were no faster.)
IN_FLIGHT_PER_PROCESS = 4

# The package's parent folder, put first on the planning process's import path: it
# imports chat_recall from where this process did.
_IMPORT_ROOT = str(Path(__file__).parent.parent.parent)  # chat_recall/application/..
_BOOT = "from chat_recall.application.planning_worker import main; main()"


class PlanningWorker(Protocol):
    """One planning process as `BatchPlanning` drives it: batches of markers in, their
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
    """A planning process (`application/planning_worker.py`) on its stdin and stdout,
    with framed pickled messages (`multiprocessing.connection.Connection`, which can
    also tell whether a reply is ready without blocking)."""

    process: subprocess.Popen[bytes]
    requests: Connection
    replies: Connection
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
        assert process.stdin is not None
        assert process.stdout is not None
        requests = Connection(os.dup(process.stdin.fileno()), readable=False)
        replies = Connection(os.dup(process.stdout.fileno()), writable=False)
        process.stdin.close()
        process.stdout.close()
        worker = cls(process, requests, replies)
        worker._write((opener, policy))
        return worker

    def _write(self, message: object) -> None:
        try:
            self.requests.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
        except (OSError, ValueError) as error:
            raise PlanningFailed(f"cannot send to the planning process: {error}") from error

    def send(self, markers: Sequence[MessageMarker]) -> None:
        self._write([(marker.id, marker.seq) for marker in markers])
        self.waiting += 1

    @property
    def pid(self) -> int:
        return self.process.pid

    def ready(self) -> bool:
        try:
            return self.replies.poll(0)
        except (OSError, ValueError):
            return True  # receive() says what went wrong

    def receive(self) -> tuple[tuple[str, Any], float]:
        try:
            reply: tuple[tuple[str, Any], float] = pickle.loads(self.replies.recv_bytes())
        except Exception as error:  # EOF: it died; anything else: a torn reply
            raise PlanningFailed(
                f"the planning process ended (exit code {self.process.poll()})"
            ) from error
        self.waiting -= 1
        return reply

    def close(self, timeout: float = 2.0) -> None:
        """Its stdin ends, so it exits after the batch in hand; killed if it does not."""
        for pipe in (self.requests, self.replies):
            with contextlib.suppress(OSError):
                pipe.close()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@attrs.frozen
class PlannedBatch:
    size: int  # the batch size it was handed out with (`markers` may be fewer)
    markers: tuple[MessageMarker, ...]
    batch: IndexBatch
    seconds: float  # how long planning it took
    here: bool  # planned in this process (while the planning processes were busy)


@attrs.frozen
class _InFlight:
    size: int
    markers: tuple[MessageMarker, ...]
    worker: PlanningWorker


@attrs.define
class BatchPlanning:
    """Which batches are planned in planning processes (see the module notes): the
    indexer asks `next(size)` before each batch; None means plan it in-process."""

    dirty: DirtyQueue
    repo: MessageRepo
    policy: MarkupPolicy
    settings: PlanningSettings
    opener: MessageRepoOpener | None
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
    _lock: threading.RLock = attrs.field(init=False, factory=threading.RLock)

    @property
    def available(self) -> bool:
        return self.opener is not None and self.settings.processes > 0 and not self._disabled

    @property
    def processes(self) -> int:
        """How many planning processes run now."""
        return len(self._workers)

    @property
    def process_ids(self) -> list[int]:
        return [worker.pid for worker in self._workers]

    def next(self, size: int, *, careful: bool) -> PlannedBatch | None:
        """The next batch of up to `size` markers, planned by a planning process, with
        the following ones already handed out; None when this batch is to be planned
        in the indexer's own process: the host is writing (`careful`: batches are
        small then, and in flight ones are dropped, their markers stay), the backlog
        is small, or the processes failed. A systemic error of a planning process is
        raised as the in-process planning would raise it."""
        with self._lock:
            if not self.available:
                return None
            if careful:
                self._drop_in_flight()
                return None
            if not self._engaged and not self._backlog_is_large():
                return None
            try:
                planned = self._next(size)
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
            for worker in workers:
                worker.close()

    def _backlog_is_large(self) -> bool:
        self._until_check -= 1
        if self._until_check > 0:
            return False
        self._until_check = self.settings.recheck_batches
        self._engaged = self.dirty.backlog().messages >= self.settings.min_backlog
        return self._engaged

    def _next(self, size: int) -> PlannedBatch | None:
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
                return self._plan_here(size, markers)
        self._in_flight.popleft()
        (kind, payload), seconds = flight.worker.receive()
        if kind != "ok":
            raise payload
        self.planned_apart += 1
        self._hand_out(size)  # planned while the caller writes this one
        batch = batch_from_wire(payload, flight.markers)
        return PlannedBatch(flight.size, flight.markers, batch, seconds, here=False)

    def _plan_here(self, size: int, markers: tuple[MessageMarker, ...]) -> PlannedBatch:
        started = time.perf_counter()
        self.planned_here += 1
        rows, unreadable = load_rows(self.repo, markers)
        batch = plan_batch(markers, rows, self.policy, unreadable)
        return PlannedBatch(size, markers, batch, time.perf_counter() - started, here=True)

    def _following(self, size: int) -> tuple[MessageMarker, ...]:
        """The first `size` markers past the ones handed out."""
        markers = tuple(self.dirty.pending_messages(size, after=self._cursor))
        if markers:
            self._cursor = markers[-1].id
        return markers

    def _hand_out(self, size: int) -> None:
        """Keep each planning process IN_FLIGHT_PER_PROCESS batches ahead: the first
        `size` markers past the ones handed out, then the next."""
        opener = self.opener
        assert opener is not None
        if not self._workers:
            self._workers = [
                self.start_worker(opener, self.policy) for _ in range(self.settings.processes)
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
