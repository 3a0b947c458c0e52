"""The pacers: how a storage applies the pacing rule (domain `PacingRule`) to chat-recall's
write transactions.

`LockPacer` is SQLite's (both engines: the tantivy engine's transactions are SQLite
transactions too): `SqliteDatabase.writing` asks it before each of our transactions
(`begin`: it notes whether the host committed since, and waits out the rest the last
transaction earned) and tells it after (`end`: how long the lock was held). Every
transaction of ours goes through it, a batch's as much as a maintenance step, a chat
expanded or an install's walk, so the rest between any two of them holds.

`UnpacedWrites` is PostgreSQL's and the in-memory twin's: nobody waits for our writes
there (row locks; a lock held only to apply a batch), so nothing rests, batches size
themselves to a fixed budget, and the limit they are given is ignored by the storage.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import attrs

from chat_recall.domain.pacing import PacingRule


@attrs.define(slots=False)  # tests observe its steps
class LockPacer:
    """One database's pacer; thread-safe (every thread's writer connection shares it)."""

    rule: PacingRule = attrs.field(factory=PacingRule)
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    _lock: threading.Lock = attrs.field(init=False, factory=threading.Lock)
    _started: float | None = attrs.field(init=False, default=None)
    _host_wrote: float | None = attrs.field(init=False, default=None)
    _free_at: float = attrs.field(init=False, default=0.0)
    _rest: float = attrs.field(init=False, default=0.0)  # the last rest earned
    _held: threading.local = attrs.field(init=False, factory=threading.local)

    def writing(self) -> bool:
        """Whether the host counts as writing now."""
        now = self.clock()
        with self._lock:
            if self._started is None:
                self._started = now
            since = None if self._host_wrote is None else now - self._host_wrote
            return self.rule.writing(since, now - self._started)

    def budget(self) -> float:
        return self.rule.budget(writing=self.writing())

    def limit(self) -> float | None:
        return self.rule.limit_seconds

    def last_seconds(self) -> float | None:
        """The longer of the lock held and the lock-free reads before it, for this
        thread's last transaction."""
        seconds: float | None = getattr(self._held, "seconds", None)
        return seconds

    def host_wrote(self) -> None:
        """Someone else committed (the host, as a rule) since we last looked."""
        now = self.clock()
        with self._lock:
            self._host_wrote = now

    def begin(self) -> None:
        """Before one of our transactions: wait out the rest the last one earned."""
        now = self.clock()
        with self._lock:
            if self._started is None:
                self._started = now
            wait = min(self._free_at - now, self._rest)
        if wait > 0:
            self.sleep(wait)

    def end(self, held: float, read: float = 0.0) -> None:
        """After one of our transactions held the lock `held` seconds, having read
        `read` seconds without it first. The rest follows the lock alone."""
        self._held.seconds = max(held, read)
        rest = self.rule.rest(held, writing=self.writing())
        with self._lock:
            self._free_at, self._rest = self.clock() + rest, rest


@attrs.define
class UnpacedWrites:
    """For storages whose writes nobody waits for: a fixed budget, no rests."""

    budget_seconds: float = PacingRule().quiet_budget_seconds
    limit_seconds: float = PacingRule().limit_seconds

    def budget(self) -> float:
        return self.budget_seconds

    def limit(self) -> float | None:
        return self.limit_seconds

    def last_seconds(self) -> float | None:
        return None
