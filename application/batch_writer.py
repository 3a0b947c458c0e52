"""Writing a planned batch: in parts the pacer's budget allows, each one unit of work.

A part's transaction clears its markers (first: a marker found stale keeps its row out),
removes, puts and quarantines, all or nothing. Three things split a part further:

- its transaction outlived the time limit and was rolled back (`TransactionOverTime`):
  it is written in halves, and the size shrinks;
- one app's index is damaged (`StorageDamaged` naming the app): the storage set that
  app aside, and the same part is written again, its documents of that app quarantined;
- it failed for a reason that is not systemic: it is bisected, and a single marker whose
  write still fails is quarantined (`indexing_failed`, domain `refuse`), provided some
  other part was written; otherwise the failure is not about one row and is raised (so
  is the failure of a batch of one).

The rests between the parts are the storage's (its pacer), not this writer's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from chat_recall.application.health import error_kind
from chat_recall.domain.errors import SYSTEMIC_ERRORS, StorageDamaged, TransactionOverTime
from chat_recall.domain.indexing import (
    BatchSizing,
    join_batches,
    refuse,
    split_at,
    split_batch,
)
from chat_recall.domain.model import IndexBatch

if TYPE_CHECKING:
    import logging

    from chat_recall.domain.ports import Clock, IndexUnitOfWork, WritePacer

# A bisection that finds this many rows failing alone before any part of the batch was
# written gives up: the failure is not about one row (and costs a few dozen short
# transactions per retry at most, instead of one per row).
ISOLATION_GIVE_UP = 4


def _log() -> logging.Logger:
    import logging

    return logging.getLogger("chat_recall.indexer")


@attrs.frozen
class Written:
    """What a batch's write applied (stale markers and set-aside documents left out),
    and whether a part of it ran over the time limit."""

    batch: IndexBatch
    over_time: bool = False


@attrs.define
class _Run:
    """One batch's write in progress."""

    batch: IndexBatch
    pending: list[IndexBatch]  # parts still to write, the next last
    written: list[IndexBatch] = attrs.field(factory=list)
    refused: list[IndexBatch] = attrs.field(factory=list)
    first_failure: Exception | None = None
    damaged: set[int] = attrs.field(factory=set)
    over_time: bool = False

    def push(self, parts: tuple[IndexBatch, ...]) -> None:
        self.pending.extend(reversed(parts))

    def set_aside(self, part: IndexBatch, error: StorageDamaged) -> None:
        """The storage set the damaged app aside: the same part again."""
        if error.app_id is None or error.app_id in self.damaged:
            raise error
        self.damaged.add(error.app_id)
        self.pending.append(part)

    def isolate(self, part: IndexBatch, error: Exception) -> None:
        """Bisect towards the row that fails the batch."""
        if self.first_failure is None:
            if len(self.batch.cleared) <= 1:
                raise error
            _log().warning(
                "indexer: a batch of %d failed (%s); isolating the row that fails it",
                len(self.batch.cleared),
                error_kind(error),
            )
            self.first_failure = error
        if len(part.cleared) == 1:
            self.refused.append(part)
        else:
            self.push(split_batch(part))
        if not self.written and len(self.refused) >= ISOLATION_GIVE_UP:
            raise self.first_failure  # row after row fails alone: not a poison row


@attrs.define
class BatchWriter:
    pacer: WritePacer
    clock: Clock
    sizing: BatchSizing = BatchSizing()
    # The part size for each budget the pacer gave (a writing host's, a quiet one's).
    _sizes: dict[float, int] = attrs.field(init=False, factory=dict)

    def size(self) -> int:
        """How many markers the next part takes, at the pacer's budget now."""
        budget = self.pacer.budget()
        return self._sizes.get(budget) or self.sizing.at(budget).initial

    def batch_size(self) -> int:
        """How many markers a batch takes: what one transaction takes at the largest
        budget (a quiet host's), written in parts of `size()` while a smaller one holds.
        Planning, reading and the maintenance step after the batch are per batch, not
        per part."""
        budget = self.sizing.budget_seconds
        return max(self._sizes.get(budget) or self.sizing.initial, self.size())

    def write(self, batch: IndexBatch, unit_of_work: IndexUnitOfWork) -> Written:
        """Write the batch through `unit_of_work`, in parts when it must be; returns what
        was applied."""
        run = _Run(batch, pending=[batch])
        while run.pending:
            part = run.pending.pop()
            size = self.size()  # the budget may change from part to part
            if len(part.cleared) > size:
                part, rest = split_at(part, size)
                run.pending.append(rest)
            if part.cleared:
                self._attempt(part, run, unit_of_work)
        if run.first_failure is not None and not run.written:
            raise run.first_failure
        for part in run.refused:
            run.written.append(self._commit(refuse(part), unit_of_work))
        return Written(join_batches(run.written, batch.redactions), run.over_time)

    def _attempt(self, part: IndexBatch, run: _Run, unit_of_work: IndexUnitOfWork) -> None:
        try:
            run.written.append(self._commit(part, unit_of_work))
        except TransactionOverTime:
            run.over_time = True
            self._shrink(len(part.cleared))
            run.push(split_batch(part))  # more than one marker: only those have a limit
        except StorageDamaged as error:
            run.set_aside(part, error)
        except SYSTEMIC_ERRORS:
            raise
        except Exception as error:
            run.isolate(part, error)

    def _commit(self, part: IndexBatch, unit_of_work: IndexUnitOfWork) -> IndexBatch:
        """One unit of work; a part of more than one marker runs under the time limit.
        Returns what was applied (markers found stale, or another indexer, bring the
        rows they left out), so the counts reported are what this indexer did."""
        budget, size = self.pacer.budget(), self.size()
        markers = len(part.cleared)
        limit = self.pacer.limit() if markers > 1 else None
        started = self.clock.monotonic()
        with unit_of_work.transaction(time_limit_seconds=limit) as writer:
            writer.clear(part.cleared)  # first: a stale marker's row is not written
            writer.remove(part.deletes)
            writer.put(part.upserts)
            writer.quarantine(part.quarantined)
        took = self.pacer.last_seconds()
        if took is None:
            took = self.clock.monotonic() - started
        sizing = self.sizing.at(budget)
        self._sizes[budget] = sizing.next_size(size, took, full=markers >= size)
        return part.without(writer.stale, writer.set_aside)

    def _shrink(self, markers: int) -> None:
        budget = self.pacer.budget()
        sizing = self.sizing.at(budget)
        self._sizes[budget] = max(sizing.minimum, min(self.size(), markers) // 2)
