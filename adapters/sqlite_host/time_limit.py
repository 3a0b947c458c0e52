"""A time limit on a write transaction: one still open at its limit is abandoned.

SQLite has one writer at a time, so while one of our transactions is open a host write
waits. Transactions are sized to finish well within their budget (domain
`PacingRule`), but sizing is a forecast: now and then a batch of the usual size runs two
or three times longer. A limit makes the bound hold by construction instead: a watchdog
thread calls `sqlite3_interrupt` on the connection once the limit has passed, the
statement running then fails, the transaction rolls back, and the caller learns it
(`TransactionOverTime`) and does less at a time.

`sqlite3_interrupt` only stops a statement that is running: one issued between two
statements is forgotten when the next one starts. So the watchdog interrupts again every
`REPEAT_SECONDS` until the transaction ends, and the transaction checks at its end
whether its limit passed (then it rolls back instead of committing). A COMMIT is never
interrupted: the limit is disarmed before it, so a transaction is either abandoned
whole or committed whole.

An interrupt stays in effect while any statement of the connection is active, and a
cursor left half read keeps its statement active: one that outlived an abandoned
transaction (held by a caller, or by the traceback of the error that ended it until the
collector runs) would fail the ROLLBACK itself, and the transaction would keep the write
lock. So a writer connection (`WriterConnection`) knows its cursors, and the abandoned
transaction closes them before it rolls back.

Each `SqliteDatabase` owns its watchdog: the thread starts with the first limited
transaction and ends when the database closes (nothing of it outlives the facade).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import weakref
from typing import Any

import attrs

# After the first interrupt, another one this often until the transaction ends (one that
# arrives between two statements is lost).
REPEAT_SECONDS = 0.001


class WriterConnection(sqlite3.Connection):
    """A connection that knows its open cursors, so that a transaction it abandons can
    end every statement still active (see the module notes)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cursors: weakref.WeakSet[sqlite3.Cursor] = weakref.WeakSet()

    def cursor(self, factory: Any = sqlite3.Cursor) -> Any:
        cursor = super().cursor(factory)
        self._cursors.add(cursor)
        return cursor

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        cursor: sqlite3.Cursor = self.cursor().execute(sql, parameters)
        return cursor

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        cursor: sqlite3.Cursor = self.cursor().executemany(sql, parameters)
        return cursor

    def close_cursors(self) -> None:
        """End every statement a cursor of this connection still has active."""
        for cursor in list(self._cursors):
            cursor.close()
        self._cursors.clear()


@attrs.define(eq=False)
class Limit:
    """One armed transaction: its connection and the monotonic time of its limit."""

    connection: sqlite3.Connection
    due: float
    passed: bool = False  # the watchdog found it still open at `due`


@attrs.define
class TransactionWatchdog:
    """Interrupts connections whose transactions outlive their limits. One daemon thread
    serves every armed transaction of its database; it sleeps while none is armed, ends
    at `close()`, and is started afresh in a forked child (which inherits no threads)."""

    _condition: threading.Condition = attrs.field(init=False, factory=threading.Condition)
    _armed: set[Limit] = attrs.field(init=False, factory=set)
    _thread: threading.Thread | None = attrs.field(init=False, default=None)
    _closing: bool = attrs.field(init=False, default=False)
    _pid: int = attrs.field(init=False, factory=os.getpid)

    def arm(self, connection: sqlite3.Connection, seconds: float) -> Limit:
        if self._pid != os.getpid():  # a forked child: the parent's thread and lock are not ours
            self._condition, self._armed, self._thread = threading.Condition(), set(), None
            self._pid = os.getpid()
        limit = Limit(connection, time.monotonic() + seconds)
        with self._condition:
            self._closing = False
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

    def close(self) -> None:
        """End the thread (after the transactions armed now are disarmed)."""
        with self._condition:
            self._closing = True
            self._condition.notify()
            thread, self._thread = self._thread, None
        if thread is not None and self._pid == os.getpid():
            thread.join()

    def _watch(self) -> None:
        with self._condition:
            while not (self._closing and not self._armed):
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
