"""How the indexer of this process is doing, told honestly to `status`, the tools and
telemetry: running, failing (with the error kind and when it retries), indexing done
by another process, stopped, or unable to advance the index at all (a read-only
database).

One `IndexHealth` is shared by the indexer (which records), the search tool and the
facade (which read). Only error kinds and counts leave through the tools; the message
of the last error is for the operator (`status`, logs).
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

from chat_recall.domain.errors import ChatRecallError

if TYPE_CHECKING:  # a search reads the health, and never loads the indexing policies
    from chat_recall.domain.indexing import RetryBackoff


class IndexerState(enum.Enum):
    """Whether anything advances the index, as far as this process knows."""

    RUNNING = "running"  # this process's background indexer works through the backlog
    FAILING = "failing"  # it runs, but its last batches failed; it retries with backoff
    ELSEWHERE = "elsewhere"  # the deployment declared that another process indexes
    STOPPED = "stopped"  # nothing here advances it (start() it, or run chat-recall index)
    READ_ONLY = "read_only"  # this process cannot write the database: nothing here can


def error_kind(error: BaseException) -> str:
    """The content-free kind of a failure: a ChatRecallError's kind, else `internal`."""
    return error.kind if isinstance(error, ChatRecallError) else "internal"


@attrs.frozen
class IndexerHealth:
    """A snapshot. `failures` counts consecutive failed batches (0 after a success);
    `error_kind`/`error` describe the last failure while it is the latest outcome."""

    state: IndexerState
    failures: int = 0
    total_failures: int = 0
    error_kind: str | None = None
    error: str | None = None
    retry_in_seconds: float | None = None  # the pause chosen after the last failure

    @property
    def stalled(self) -> bool:
        return self.state is IndexerState.FAILING

    @property
    def can_advance(self) -> bool:
        return self.state is not IndexerState.READ_ONLY


def seen_from_here(health: IndexerHealth, claimant: Callable[[], str | None]) -> IndexerHealth:
    """The health as a reader reports it: when nothing in this process indexes but another
    indexer holds the claim to the queue (`chat-recall index`, the app's own indexer),
    the pending messages are being advanced `elsewhere`."""
    if health.state is IndexerState.STOPPED and claimant() is not None:
        return attrs.evolve(health, state=IndexerState.ELSEWHERE)
    return health


@attrs.define
class IndexHealth:
    read_only: bool = False
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)
    _state: IndexerState = attrs.field(default=IndexerState.STOPPED, init=False)
    _failures: int = attrs.field(default=0, init=False)
    _total_failures: int = attrs.field(default=0, init=False)
    _error_kind: str | None = attrs.field(default=None, init=False)
    _error: str | None = attrs.field(default=None, init=False)
    _retry_in: float | None = attrs.field(default=None, init=False)

    def started(self) -> None:
        with self._lock:
            if self._state is not IndexerState.FAILING:
                self._state = IndexerState.RUNNING

    def stopped(self) -> None:
        with self._lock:
            if self._state is not IndexerState.ELSEWHERE:
                self._state = IndexerState.STOPPED

    def elsewhere(self) -> None:
        """Another process runs the indexer for this database (a host's own worker)."""
        with self._lock:
            self._state = IndexerState.ELSEWHERE

    def succeeded(self) -> None:
        with self._lock:
            self._failures = 0
            self._error_kind = self._error = None
            self._retry_in = None
            if self._state is IndexerState.FAILING:
                self._state = IndexerState.RUNNING

    def failed(self, error: BaseException, backoff: RetryBackoff) -> float:
        """Record a failed batch (the worker, if running, is now stalled). Returns the
        pause before the next attempt."""
        with self._lock:
            self._failures += 1
            self._total_failures += 1
            self._error_kind = error_kind(error)
            self._error = f"{type(error).__name__}: {error}"
            if self._state in (IndexerState.RUNNING, IndexerState.FAILING):
                self._state = IndexerState.FAILING
            self._retry_in = backoff.delay(self._failures)
            return self._retry_in

    def snapshot(self) -> IndexerHealth:
        with self._lock:
            if self.read_only:
                return IndexerHealth(IndexerState.READ_ONLY)
            return IndexerHealth(
                self._state,
                self._failures,
                self._total_failures,
                self._error_kind,
                self._error,
                self._retry_in if self._state is IndexerState.FAILING else None,
            )
