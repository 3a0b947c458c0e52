"""Planning a batch in the indexer's own process: read the next pending markers, load
their rows, project and redact them (domain `plan_batch`).

Planning is pure Python, and in a host's process it would hold the interpreter for as
long as a batch takes: so it runs in slices, letting the host's threads have the
interpreter between them (`Turns`, domain `PacingRule.cpu_slice_seconds`). The next
batch's markers and rows are read while no lock is held (`ahead`, after a batch's
write), and it is projected in turn.

Planning in other processes (`PlanningSettings.processes`) is an optional component of
the adapters (`adapters/planning`), behind the same port (`BatchPlanner`); it falls
back to this one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs

from chat_recall.domain.errors import SYSTEMIC_ERRORS
from chat_recall.domain.indexing import PlannedBatch, join_batches, plan_batch
from chat_recall.domain.model import IndexBatch, MessageId, MessageMarker, SourceRow
from chat_recall.domain.pacing import PacingRule

if TYPE_CHECKING:
    import logging

    from chat_recall.domain.ports import Clock, DirtyQueue, MessageRepo
    from chat_recall.domain.projection import MarkupPolicy


def _log() -> logging.Logger:
    import logging

    return logging.getLogger("chat_recall.indexer")


@attrs.frozen
class PlanningSettings:
    """`processes`: how many planning processes a backfill uses (0: always plan in the
    indexer's own process). Off by default, which is what an embedding host gets:
    starting processes from inside a host's process is the host's decision to make.
    chat-recall's own processes (the CLI's `index`, `rebuild` and `import`, the MCP
    server) use `for_own_process()`. `min_backlog`: they are started only while at least
    this many messages await indexing (a process costs a fraction of a second of CPU to
    start); `recheck_batches`: how often, in batches, the backlog is counted again."""

    processes: int = 0
    min_backlog: int = 5_000
    recheck_batches: int = 64

    @classmethod
    def for_own_process(cls) -> PlanningSettings:
        """For a process that is chat-recall's own, not a host's: one planning process
        where this process may run on two or more CPUs, none on one (a planning process
        would only take turns with the indexer there)."""
        return cls(processes=1 if usable_cpus() >= 2 else 0)


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the platform tells it)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return len(affinity(0))
    return os.cpu_count() or 1


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


@attrs.define
class Turns:
    """Gives the process's other threads the interpreter between slices of Python work:
    after `slice_seconds` of it, a pause of `pause_seconds` (a sleep, which lets a waiting
    thread take the GIL; the interpreter's switch interval is left as the host set it)."""

    slice_seconds: float
    pause_seconds: float
    clock: Callable[[], float] = time.perf_counter
    sleep: Callable[[float], None] = time.sleep
    _since: float = attrs.field(init=False, default=0.0)

    @classmethod
    def of(cls, rule: PacingRule) -> Turns:
        return cls(rule.cpu_slice_seconds, rule.cpu_pause_seconds)

    def take(self) -> None:
        """Between two slices of work: pause if this slice has run its time."""
        now = self.clock()
        if now - self._since >= self.slice_seconds:
            self.sleep(self.pause_seconds)
            self._since = self.clock()


# Messages planned between two looks at the clock (`Turns`): a fraction of a slice.
PLANNED_PER_LOOK = 4


def plan_in_turns(
    markers: Sequence[MessageMarker],
    rows: dict[MessageId, SourceRow],
    policy: MarkupPolicy,
    unreadable: set[MessageId],
    turns: Turns,
) -> IndexBatch:
    """`plan_batch`, a few messages at a time, taking turns in between."""
    parts = []
    for start in range(0, len(markers), PLANNED_PER_LOOK):
        turns.take()
        parts.append(
            plan_batch(markers[start : start + PLANNED_PER_LOOK], rows, policy, unreadable)
        )
    if not parts:
        return IndexBatch()
    joined = join_batches(parts)
    return attrs.evolve(joined, cleared=tuple(markers))


@attrs.frozen
class _Read:
    """Markers and their rows, read before their turn (`InProcessPlanning.ahead`)."""

    size: int
    markers: tuple[MessageMarker, ...]
    rows: dict[MessageId, SourceRow]
    unreadable: set[MessageId]
    at: float


@attrs.define
class InProcessPlanning:
    """The `BatchPlanner` of the indexer's own process."""

    dirty: DirtyQueue
    clock: Clock
    turns: Turns
    _read: _Read | None = attrs.field(init=False, default=None)

    @property
    def planned_apart(self) -> int:
        return 0

    @property
    def failures(self) -> int:
        return 0

    def next(self, size: int, repo: MessageRepo, policy: MarkupPolicy) -> PlannedBatch:
        read, self._read = self._read, None
        if read is None or not read.markers:  # nothing was pending then: look again
            read = self._read_markers(size, repo)
        started = self.clock.monotonic()
        batch = plan_in_turns(read.markers, read.rows, policy, read.unreadable, self.turns)
        seconds = self.clock.monotonic() - started
        drained = len(read.markers) < read.size
        return PlannedBatch(read.size, read.markers, batch, seconds, 0.0, drained, read.at)

    def ahead(self, size: int, repo: MessageRepo, policy: MarkupPolicy) -> None:
        """Read the next batch's markers and rows now. Rows read ahead are as safe as
        rows read in turn: the unit of work writes none whose marker changed since."""
        try:
            self._read = self._read_markers(size, repo)
        except Exception:
            self._read = None

    def plan(
        self, markers: Sequence[MessageMarker], repo: MessageRepo, policy: MarkupPolicy
    ) -> IndexBatch:
        """The batch of these markers (for a planner that hands others out)."""
        rows, unreadable = load_rows(repo, markers)
        return plan_in_turns(markers, rows, policy, unreadable, self.turns)

    def close(self) -> None:
        self._read = None

    def _read_markers(self, size: int, repo: MessageRepo) -> _Read:
        at = self.clock.monotonic()
        markers = tuple(self.dirty.pending_messages(size))
        self.turns.take()
        rows, unreadable = load_rows(repo, markers) if markers else ({}, set())
        return _Read(size, markers, rows, unreadable, at)
