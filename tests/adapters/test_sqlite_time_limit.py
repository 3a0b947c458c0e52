"""A write transaction with a time limit is abandoned, whole, when still open at it:
the watchdog interrupts the statement running then (or the transaction finds at its
end that the limit passed), the transaction rolls back, `TransactionOverTime` is
raised, and the connection works normally afterwards."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from chat_recall.adapters.sqlite_host import time_limit
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.schema import HostSchema
from chat_recall.application import write_lock
from chat_recall.domain.errors import TransactionOverTime

# Counts to a billion: about a minute, unless it is interrupted.
ENDLESS = (
    "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000000000) "
    "SELECT count(*) FROM n"
)


@pytest.fixture
def database(tmp_path: Path) -> Iterator[SqliteDatabase]:
    path = tmp_path / "host.db"
    setup = sqlite3.connect(path)
    setup.execute("PRAGMA journal_mode = WAL")
    setup.execute("CREATE TABLE t(x INTEGER)")
    setup.close()
    database = SqliteDatabase(path, HostSchema())
    yield database
    database.close()


def limited(database: SqliteDatabase, *statements: str) -> None:
    """Run the statements in one transaction limited to 10 ms."""
    with database.writing(time_limit_seconds=0.01) as connection:
        for statement in statements:
            connection.execute(statement).fetchall()


def rows(database: SqliteDatabase) -> list[int]:
    with database.reading() as connection:
        return [row[0] for row in connection.execute("SELECT x FROM t ORDER BY x")]


def test_a_statement_running_at_the_limit_is_interrupted_and_nothing_is_written(
    database: SqliteDatabase,
) -> None:
    with pytest.raises(TransactionOverTime):
        limited(database, "INSERT INTO t VALUES (1)", ENDLESS)
    assert rows(database) == []


def test_a_write_interrupted_at_the_limit_rolls_back_whole(database: SqliteDatabase) -> None:
    endless_insert = f"INSERT INTO t SELECT x FROM ({ENDLESS.replace('count(*)', 'x')})"
    with pytest.raises(TransactionOverTime):
        limited(database, "INSERT INTO t VALUES (1)", endless_insert)
    assert rows(database) == []


def test_a_transaction_that_ends_after_its_limit_is_rolled_back_not_committed(
    database: SqliteDatabase,
) -> None:
    def swallow_the_interrupt() -> None:
        with database.writing(time_limit_seconds=0.01) as connection:
            connection.execute("INSERT INTO t VALUES (1)")
            with pytest.raises(sqlite3.OperationalError, match="interrupted"):
                connection.execute(ENDLESS).fetchone()  # the limit has passed by now

    with pytest.raises(TransactionOverTime):
        swallow_the_interrupt()
    assert rows(database) == []


def test_a_transaction_past_its_limit_is_rolled_back_even_before_the_watchdog_ran(
    database: SqliteDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its statements may not let the watchdog thread run before it ends (a fast
    tantivy batch did not): the end checks the clock itself."""
    monkeypatch.setattr(database, "_watchdog", time_limit.TransactionWatchdog())
    monkeypatch.setattr(threading.Thread, "start", lambda self: None)  # never runs
    over = pytest.raises(TransactionOverTime)
    with over, database.writing(time_limit_seconds=1e-9) as connection:
        connection.execute("INSERT INTO t VALUES (1)")
    assert rows(database) == []


def test_after_one_over_its_limit_the_next_transactions_commit(database: SqliteDatabase) -> None:
    with pytest.raises(TransactionOverTime):
        limited(database, ENDLESS)
    with database.writing(time_limit_seconds=60) as connection:
        connection.execute("INSERT INTO t VALUES (3)")
        connection.execute("SELECT count(*) FROM t").fetchone()
    with database.writing() as connection:
        connection.execute("INSERT INTO t VALUES (4)")
    assert rows(database) == [3, 4]


def test_a_transaction_within_its_limit_commits(database: SqliteDatabase) -> None:
    for value in range(20):
        with database.writing(time_limit_seconds=60) as connection:
            connection.execute("INSERT INTO t VALUES (?)", (value,))
    assert rows(database) == list(range(20))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX only")
def test_a_forked_child_limits_its_own_transactions(database: SqliteDatabase) -> None:
    """The watchdog's thread does not survive a fork; a child's limited transaction
    starts its own (and its lock is a fresh one)."""
    with pytest.raises(TransactionOverTime):
        limited(database, ENDLESS)  # the parent's watchdog thread runs
    path = database.path
    assert path is not None
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports by exit code
        code = 1
        try:
            own = SqliteDatabase(path, HostSchema())
            try:
                limited(own, ENDLESS)
            except TransactionOverTime:
                code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    assert os.WEXITSTATUS(status) == 0


def test_slow_commits_are_kept_with_what_they_spent(
    database: SqliteDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A COMMIT over SLOW_COMMIT_MS is kept with its CPU and thread switches (what tells a
    COMMIT that worked from one that waited for the machine); quicker ones are not."""
    monkeypatch.setattr(write_lock, "SLOW_COMMIT_MS", -1.0)  # every COMMIT is 'slow'
    with database.writing() as connection:
        connection.execute("INSERT INTO t VALUES (1)")
    ((_, seconds, cpu, preempted, waited),) = database.lock_stats.slow_commits
    assert 0 < seconds < 60
    assert cpu >= 0
    assert preempted >= 0
    assert waited >= 0
    monkeypatch.setattr(write_lock, "SLOW_COMMIT_MS", 60_000.0)
    with database.writing() as connection:
        connection.execute("INSERT INTO t VALUES (2)")
    assert len(database.lock_stats.slow_commits) == 1


def test_closing_the_database_ends_its_watchdog_thread(database: SqliteDatabase) -> None:
    """The watchdog belongs to its database: nothing of it outlives `close()`."""

    def watchdogs() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "chat-recall-time-limit"]

    before = watchdogs()
    with pytest.raises(TransactionOverTime):
        limited(database, ENDLESS)
    assert len(watchdogs()) == len(before) + 1
    database.close()
    assert watchdogs() == before


class Abandoned(Exception):
    """The error that ends a transaction in the tests below."""


def test_a_cursor_left_open_by_an_abandoned_transaction_interrupts_nothing_after(
    database: SqliteDatabase,
) -> None:
    """`sqlite3_interrupt` stays in effect while any statement of the connection is
    active: a cursor the abandoned transaction left half read (kept alive, say, by the
    traceback of the error that ended it, until the collector runs) would fail every
    later statement of that connection with `interrupted`."""
    with database.writing() as connection:
        connection.executemany("INSERT INTO t VALUES (?)", [(n,) for n in range(10)])
    left_open: list[sqlite3.Cursor] = []
    with pytest.raises(Abandoned), database.writing() as connection:  # noqa: PT012
        cursor = connection.execute("SELECT x FROM t")
        cursor.fetchone()  # one of ten rows: the statement stays active
        left_open.append(cursor)
        connection.interrupt()  # as the watchdog does at a transaction's limit
        raise Abandoned
    with database.writing(time_limit_seconds=1.0) as connection:
        connection.execute("INSERT INTO t VALUES (99)")
    assert 99 in rows(database)
    assert left_open  # still referenced: its statement was active all along


def test_a_statement_no_cursor_of_ours_holds_cannot_keep_the_write_lock(
    database: SqliteDatabase,
) -> None:
    """A statement left active outside the cursors the connection knows keeps an
    interrupt in effect and fails the ROLLBACK itself. The error raised is still the
    transaction's own, the connection is given up (closing it ends the transaction once
    the stray statement ends), and this thread's next transaction commits on a fresh
    one instead of failing for ever with `interrupted`."""
    with database.writing() as connection:
        connection.executemany("INSERT INTO t VALUES (?)", [(n,) for n in range(10)])
    with pytest.raises(Abandoned), database.writing() as connection:  # noqa: PT012
        connection.execute("INSERT INTO t VALUES (50)")
        stray = sqlite3.Cursor(connection)  # not through `connection.cursor()`
        stray.execute("SELECT x FROM t").fetchone()  # one of eleven rows: still active
        connection.interrupt()  # as the watchdog does at a transaction's limit
        raise Abandoned
    del stray  # the statement ends with its cursor (as when the collector runs)
    other = sqlite3.connect(database.path, timeout=0)  # type: ignore[arg-type]
    other.execute("BEGIN IMMEDIATE")  # 'database is locked' while the lock is held
    other.execute("ROLLBACK")
    other.close()
    with database.writing(time_limit_seconds=1.0) as connection:
        connection.execute("INSERT INTO t VALUES (99)")
    assert 50 not in rows(database)
    assert 99 in rows(database)
