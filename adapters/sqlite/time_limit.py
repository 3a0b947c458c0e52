"""A time limit on a write transaction: one still open at its limit is abandoned.

SQLite has one writer at a time, so while an indexer transaction is open a host write
waits. Batches are sized to finish well within their budget (domain `BatchSizing`), but
sizing is a forecast: now and then a batch of the usual size ran two or three times
longer (at 1M payload-heavy messages, 1 of ~4,300 batches held the lock 27 ms where its
siblings took 8-12). A limit makes the bound hold by construction instead: a watchdog
thread calls `sqlite3_interrupt` on the connection once the limit has passed, the
statement running then fails, the transaction rolls back, and the caller learns it
(`TransactionOverTime`) and does less at a time.

`sqlite3_interrupt` only stops a statement that is running: one issued between two
statements is forgotten when the next one starts. So the watchdog interrupts again every
`REPEAT_SECONDS` until the transaction ends, and the transaction checks at its end
whether its limit passed (then it rolls back instead of committing). A COMMIT is never
interrupted: the limit is disarmed before it, so a transaction is either abandoned
whole or committed whole.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time

import attrs

# After the first interrupt, another one this often until the transaction ends (one that
# arrives between two statements is lost).
REPEAT_SECONDS = 0.001


@attrs.define(eq=False)
class Limit:
    """One armed transaction: its connection and the monotonic time of its limit."""

    connection: sqlite3.Connection
    due: float
    passed: bool = False  # the watchdog found it still open at `due`


@attrs.define
class TransactionWatchdog:
    """Interrupts connections whose transactions outlive their limits. One daemon
    thread serves every armed transaction of the process; it sleeps while none is
    armed, and is started again after a fork (a child inherits no threads)."""

    _condition: threading.Condition = attrs.field(init=False, factory=threading.Condition)
    _armed: set[Limit] = attrs.field(init=False, factory=set)
    _thread: threading.Thread | None = attrs.field(init=False, default=None)

    def forget(self) -> None:
        """In a forked child: the parent's thread is not there, and its lock may have
        been held at the fork. Start afresh (the child's transactions are its own)."""
        self._condition = threading.Condition()
        self._armed = set()
        self._thread = None

    def arm(self, connection: sqlite3.Connection, seconds: float) -> Limit:
        limit = Limit(connection, time.monotonic() + seconds)
        with self._condition:
            self._armed.add(limit)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._watch, name="chat-recall-time-limit", daemon=True
                )
                self._thread.start()
            self._condition.notify()
        return limit

    def disarm(self, limit: Limit) -> bool:
        """Stop watching; after this returns, the connection is not interrupted for
        `limit` any more. Returns whether the limit had passed: by the clock, whether
        or not the watchdog has run since (a transaction whose statements hardly let go
        of the GIL can end before the watchdog thread is scheduled)."""
        with self._condition:
            self._armed.discard(limit)
        return limit.passed or time.monotonic() >= limit.due

    def _watch(self) -> None:
        with self._condition:
            while True:
                if not self._armed:
                    self._condition.wait()
                    continue
                now = time.monotonic()
                first = min(limit.due for limit in self._armed)
                if first > now:
                    self._condition.wait(first - now)
                    continue
                for limit in self._armed:
                    if limit.due <= now:
                        limit.passed = True
                        limit.connection.interrupt()
                self._condition.wait(REPEAT_SECONDS)


WATCHDOG = TransactionWatchdog()
os.register_at_fork(after_in_child=WATCHDOG.forget)
