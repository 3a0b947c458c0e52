"""Connections to the host's SQLite database: one writer per thread for the indexer and
host-side maintenance, read-only connections for searches and reads.

Search connections are opened read-only (`mode=ro` URI) with `PRAGMA query_only`, a
busy timeout, and WAL mode on the database, so a search never writes and never fails
because the indexer holds the write lock.

A database this process cannot write (a read-only file, directory or file system) is
still read: `writable()` tells the bootstrap, which then installs nothing and runs no
indexer. A WAL database needs its `-shm` file even to be read; when it does not exist
and cannot be created here, and no `-wal` file holds changes, the reader opens the file
`immutable` (everything is in the main file then); it switches back to a normal
read-only connection as soon as a `-wal` appears (a writer elsewhere started). With
changes in a `-wal` that this process cannot open, reading is refused with the fix:
a torn view is never read.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TypeVar

import attrs

from chat_recall.adapters.pacing import LockPacer
from chat_recall.adapters.sqlite_host.commit_usage import CommitTimer
from chat_recall.adapters.sqlite_host.host_values import CODECS
from chat_recall.adapters.sqlite_host.schema import HostSchema
from chat_recall.adapters.sqlite_host.time_limit import Limit, TransactionWatchdog, WriterConnection
from chat_recall.application.write_lock import WriteLockStats
from chat_recall.domain.errors import (
    ChatRecallError,
    IndexUnavailable,
    InvalidArguments,
    StorageBusy,
    StorageDamaged,
    StorageError,
    StorageReadOnly,
    StorageUnavailable,
    TransactionOverTime,
)

BUSY_TIMEOUT_MS = 5_000
R = TypeVar("R")
T = TypeVar("T")
# Our commits checkpoint the WAL once it holds this many frames (SQLite's default: 1,000).
WAL_CHECKPOINT_FRAMES = 250


def _over_time(seconds: float | None) -> TransactionOverTime:
    return TransactionOverTime(
        f"a write transaction was still open after its limit of {(seconds or 0) * 1000:.0f} ms "
        "and was rolled back"
    )


def require_existing(path: Path) -> Path:
    """The path of an existing database file, or InvalidArguments naming the fix."""
    if not path.is_file():
        raise InvalidArguments(
            f"no database at {path} (check the path, or create one with: chat-recall init)"
        )
    return path


def check_fts5(connection: sqlite3.Connection) -> None:
    """Raise IndexUnavailable when this SQLite build has no FTS5. There is no fallback."""
    try:
        connection.execute("CREATE VIRTUAL TABLE temp.chat_recall_fts5_probe USING fts5(x)")
        connection.execute("DROP TABLE temp.chat_recall_fts5_probe")
    except sqlite3.OperationalError as error:
        raise IndexUnavailable(
            f"this SQLite build ({sqlite3.sqlite_version}) has no FTS5; chat-recall needs it"
        ) from error


def _configure(connection: sqlite3.Connection, *, read_only: bool) -> sqlite3.Connection:
    connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    connection.execute("PRAGMA foreign_keys = ON")
    if read_only:
        connection.execute("PRAGMA query_only = ON")
    else:
        _commit_without_sync_in_wal(connection)
    return connection


def _commit_without_sync_in_wal(connection: sqlite3.Connection) -> None:
    """In WAL mode our commits need not wait for the disk while holding the write lock
    (`synchronous = NORMAL`: the WAL is synced at checkpoints and by the host's own
    FULL commits, which sync every frame written before them). A crash or power loss
    can only lose the last such transactions whole, never corrupt the file: a lost
    index batch leaves its markers dirty, so it is simply done again. This connection
    only; the host's connections keep their own setting.

    And our commits run the WAL's automatic checkpoint at a quarter of SQLite's default
    size: otherwise the WAL grows with our writes and the host's own commits pay for
    the checkpoints (SQLite runs one in whichever commit finds 1,000 frames or more,
    and with readers about the WAL is rarely restarted, so then in every host commit).
    That checkpoint runs inside our COMMIT statement but after the write lock is
    released, so `lock_stats` overstates the lock by it (the COMMIT share of long
    transactions is recorded). Checkpointing on a timer instead (PASSIVE every 0.25 s,
    outside the transaction) was tried: the host's statement p99 in the soak got worse
    (docs/results.md; probably the WAL passing 1,000 frames between our checkpoints, so
    host commits checkpointed; not verified)."""
    if connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
        connection.execute("PRAGMA synchronous = NORMAL")
        connection.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_FRAMES}")


@attrs.define
class SqliteDatabase:
    """Where the host's database is and how to connect to it.

    `path` is a file path, or None for a database that lives only in `shared` (an
    in-memory database a host passed in): then every role uses that one connection,
    serialised by a lock, and reads are not separated from writes. That connection is
    switched to autocommit (`isolation_level = None`) so chat-recall controls its own
    transactions. For a file database a host's connection only tells where the file is.
    """

    path: Path | None
    schema: HostSchema = attrs.field(factory=HostSchema.reference)
    shared: sqlite3.Connection | None = None
    # Called with every SQL statement any chat-recall connection runs (tests, audits).
    trace: Callable[[str], None] | None = None
    lock_stats: WriteLockStats = attrs.field(factory=WriteLockStats, init=False)
    # Paces every write transaction of ours around the host's (domain `PacingRule`).
    pacer: LockPacer = attrs.field(factory=LockPacer, init=False)
    _local: threading.local = attrs.field(factory=threading.local, init=False)
    _lock: threading.RLock = attrs.field(factory=threading.RLock, init=False)
    _opened: list[sqlite3.Connection] = attrs.field(factory=list, init=False)
    _codec: str | None = attrs.field(default=None, init=False)
    _immutable: set[int] = attrs.field(factory=set, init=False)  # ids of immutable readers
    _watchdog: TransactionWatchdog = attrs.field(factory=TransactionWatchdog, init=False)
    _versions: dict[int, int] = attrs.field(factory=dict, init=False)  # data_version seen
    _writers: set[int] = attrs.field(factory=set, init=False)  # ids of writer connections

    @classmethod
    def open(cls, target: str | Path | sqlite3.Connection, schema: HostSchema) -> SqliteDatabase:
        if isinstance(target, sqlite3.Connection):
            file = target.execute("PRAGMA database_list").fetchone()[2]
            if file:
                return cls(Path(file), schema)
            target.isolation_level = None
            return cls(None, schema, shared=target)
        return cls(Path(target), schema)

    def _connect(self, *, read_only: bool) -> sqlite3.Connection:
        assert self.path is not None
        try:
            if read_only:
                connection = self._open_reader(self.path)
            else:
                connection = sqlite3.connect(
                    self.path,
                    isolation_level=None,
                    check_same_thread=False,
                    factory=WriterConnection,
                )
        except sqlite3.Error as error:
            raise _cannot_open(self.path, error) from error
        if self.trace is not None:
            connection.set_trace_callback(self.trace)
        try:
            configured = _configure(connection, read_only=read_only)
        except sqlite3.Error as error:  # the file's first read: not a database, locked...
            connection.close()
            if _code(error) == SQLITE_NOTADB:
                raise _cannot_open(self.path, error) from error
            raise translate(error) from error
        with self._lock:
            self._opened.append(configured)
            if not read_only:
                self._writers.add(id(configured))
        return configured

    def _open_reader(self, path: Path) -> sqlite3.Connection:
        """`mode=ro`; for a WAL database whose `-shm` cannot be created here and whose
        `-wal` holds nothing, `immutable` (see the module's notes)."""
        uri = f"{path.resolve().as_uri()}?mode=ro"
        connection = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        try:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return connection
        except sqlite3.OperationalError as error:
            connection.close()
            # The -shm cannot be created: CANTOPEN where the file system is read-only,
            # READONLY (SQLITE_READONLY_DIRECTORY) where permissions deny it.
            if _code(error) not in (SQLITE_CANTOPEN, SQLITE_READONLY) or not path.is_file():
                raise
            if _wal_holds_changes(path):
                raise StorageReadOnly(
                    f"{path} is in WAL mode with changes in {path.name}-wal that this process "
                    f"cannot read without creating {path.name}-shm (the directory is not "
                    "writable here): make the directory writable for this user, or have the "
                    "host checkpoint the database (PRAGMA wal_checkpoint(TRUNCATE))"
                ) from error
        connection = sqlite3.connect(
            f"{uri}&immutable=1", uri=True, isolation_level=None, check_same_thread=False
        )
        self._immutable.add(id(connection))
        return connection

    def writable(self) -> bool:
        """Whether this process can write the database file and create the files SQLite
        keeps beside it (permissions, read-only file systems; root included)."""
        if self.path is None:
            return True
        return os.access(self.path, os.W_OK) and os.access(self.path.resolve().parent, os.W_OK)

    def _thread_connection(self, role: str) -> sqlite3.Connection:
        if self.shared is not None:
            return self.shared
        connection: sqlite3.Connection | None = getattr(self._local, role, None)
        if connection is None:
            connection = self._connect(read_only=role == "reader")
            setattr(self._local, role, connection)
        return connection

    @contextlib.contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """A read-only connection of this thread; driver errors become port errors."""
        if self.shared is not None:
            with self._lock, translate_errors():
                yield self.shared
            return
        with translate_errors():
            yield self._fresh_reader()

    def _fresh_reader(self) -> sqlite3.Connection:
        """This thread's reader; an `immutable` one is replaced once a `-wal` with
        changes appears (a writer elsewhere: the main file may change under it)."""
        connection = self._thread_connection("reader")
        path = self.path
        if id(connection) in self._immutable and path is not None and _wal_holds_changes(path):
            self._immutable.discard(id(connection))
            with self._lock:
                if connection in self._opened:
                    self._opened.remove(connection)
            connection.close()
            self._local.reader = None
            connection = self._thread_connection("reader")
        return connection

    @contextlib.contextmanager
    def writing(
        self, *, time_limit_seconds: float | None = None, paced: bool = True
    ) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT, rolled back on error).
        Paced (`pacer`): it begins only after the rest the last one earned, and whether
        the host committed since is noted; `paced=False` for writes that are the host's
        own (`SqliteHostWriter`). With a time limit, a transaction still open at it is
        interrupted and rolled back, and `TransactionOverTime` raised (`time_limit.py`);
        the COMMIT itself is never interrupted."""
        with self._transaction("BEGIN IMMEDIATE", time_limit_seconds, paced) as (connection, _):
            yield connection

    def read_then_write(
        self,
        reads: Callable[[sqlite3.Connection], R],
        writes: Callable[[sqlite3.Connection, R], T],
        *,
        time_limit_seconds: float | None = None,
    ) -> T:
        """One paced write transaction as `writing`, whose `reads` come before its
        `writes` and hold no lock: it begins as a read (BEGIN DEFERRED), and its first
        write takes the write lock. SQLite grants it only if nobody committed since the
        reads' snapshot, so the writes act on what is there, as under BEGIN IMMEDIATE;
        the lock is held (and timed, for the pacer, and limited) from the first write.
        If it is not granted (the host committed meanwhile, or holds the lock), the
        transaction is rolled back and done again under BEGIN IMMEDIATE, reads and all:
        so the reads are timed too, and the pacer sizes batches by the longer of the
        two (a batch of long reads and short writes, as a rebuild's unchanged documents
        make, would otherwise grow until its redo held the lock to the time limit).

        While the host is quiet, the rest the last transaction earned is waited out
        after the reads, just before the first write: the lock stays free as long, and
        the reads no longer add to it. While the host writes it is waited out before
        them: a host commit in the rest would refuse the lock to writes that read
        before it, and the batch would be done again holding the lock."""
        try:
            with self._transaction("BEGIN", time_limit_seconds, True) as (connection, lock):
                found = reads(connection)
                lock.taken()
                return writes(connection, found)
        except _NotGranted:
            pass
        with self.writing(time_limit_seconds=time_limit_seconds) as connection:
            return writes(connection, reads(connection))

    @contextlib.contextmanager
    def _transaction(
        self, begin: str, time_limit_seconds: float | None, paced: bool
    ) -> Iterator[tuple[sqlite3.Connection, _LockTaken]]:
        reads_first = begin == "BEGIN"
        with self._lock if self.shared is not None else contextlib.nullcontext():
            connection = self._thread_connection("writer")
            with translate_errors():
                rest_before_writes = False
                if paced:
                    self._notice_host(connection)
                    rest_before_writes = reads_first and not self.pacer.writing()
                    if not rest_before_writes:
                        self.pacer.begin()
                connection.execute(begin)
                lock = _LockTaken(time.perf_counter())
                try:
                    with self._limited(connection, time_limit_seconds) as arm:
                        lock.before = partial(
                            _before_writes, self.pacer if rest_before_writes else None, arm
                        )
                        if not reads_first:
                            arm()
                        yield connection, lock
                except BaseException as error:
                    if isinstance(connection, WriterConnection):  # no statement stays
                        connection.close_cursors()  # interrupted (`time_limit.py`)
                    if connection.in_transaction:  # SQLite may have rolled it back itself
                        self._roll_back(connection)
                    self._held(lock.at, paced)
                    if begin == "BEGIN" and _busy(error):
                        raise _NotGranted from error
                    raise
                timer = CommitTimer.started()
                connection.execute("COMMIT")
                commit = timer.stop()
                self.lock_stats.record_commit(lock.at, commit)
                self._held(lock.at, paced, commit.seconds, lock.read)

    def _roll_back(self, connection: sqlite3.Connection) -> None:
        """End an abandoned transaction. A statement still active that no cursor of ours
        holds (one SQLite or a module runs for us) keeps an interrupt in effect and fails
        the ROLLBACK too; closing the connection then ends the transaction and releases
        the write lock all the same, and this thread opens a fresh writer next time."""
        try:
            connection.execute("ROLLBACK")
        except sqlite3.OperationalError:
            if self.shared is not None:  # the host's own connection: never ours to close
                raise
            with self._lock:
                if connection in self._opened:
                    self._opened.remove(connection)
                self._writers.discard(id(connection))
            self._local.writer = None
            connection.close()

    @contextlib.contextmanager
    def _limited(
        self, connection: sqlite3.Connection, seconds: float | None
    ) -> Iterator[Callable[[], None]]:
        """A block whose time limit starts when the callable it yields is called (at
        once, or at the first write of a transaction that reads first):
        `TransactionOverTime` when it passed, by the watchdog or by the clock (the
        caller then rolls back)."""
        armed: list[Limit] = []

        def arm() -> None:
            if seconds is not None and not armed:
                armed.append(self._watchdog.arm(connection, seconds))

        def fired() -> bool:
            return bool(armed) and self._watchdog.disarm(armed[0])

        try:
            yield arm
        except BaseException as error:
            if fired() and not isinstance(error, TransactionOverTime):
                raise _over_time(seconds or 0.0) from error
            raise
        if fired():
            raise _over_time(seconds or 0.0)

    def _held(
        self, acquired: float, paced: bool, committing: float = 0.0, read: float = 0.0
    ) -> None:
        held = time.perf_counter() - acquired
        self.lock_stats.record(held, began=acquired, committing=committing)
        if paced:
            self.pacer.end(held, read)

    def _notice_host(self, connection: sqlite3.Connection) -> None:
        """`PRAGMA data_version` moves when another connection commits: the host wrote."""
        version = int(connection.execute("PRAGMA data_version").fetchone()[0])
        seen = self._versions.get(id(connection))
        self._versions[id(connection)] = version
        if seen is not None and seen != version:
            self.pacer.host_wrote()

    @contextlib.contextmanager
    def inspecting(self) -> Iterator[sqlite3.Connection]:
        """A fresh read-only connection for checks, closed afterwards: `mode=ro` (it can
        never write the database, never takes the write lock) but without
        `query_only`, so a check may create temporary tables (fts5vocab views). Driver
        errors are not translated: a check turns them into findings."""
        if self.shared is not None:
            with self._lock:
                yield self.shared
            return
        connection = self._connect(read_only=True)
        connection.execute("PRAGMA query_only = OFF")
        try:
            yield connection
        finally:
            with self._lock:
                if connection in self._opened:
                    self._opened.remove(connection)
            connection.close()

    def codec(self, connection: sqlite3.Connection) -> str:
        """The Python codec of the database's text encoding (read once)."""
        if self._codec is None:
            name = connection.execute("PRAGMA encoding").fetchone()[0]
            self._codec = CODECS.get(name, "utf-8")
        return self._codec

    def data_version(self) -> int:
        """`PRAGMA data_version` of this thread's writer connection: it changes when
        another connection commits to the database (not when this one does)."""
        lock = self._lock if self.shared is not None else contextlib.nullcontext()
        with lock, translate_errors():
            row = self._thread_connection("writer").execute("PRAGMA data_version").fetchone()
        return int(row[0])

    def enable_wal(self) -> None:
        """Switch the database file to WAL so readers never wait for the indexer."""
        if self.shared is not None:
            return
        with translate_errors():
            writer = self._thread_connection("writer")
            writer.execute("PRAGMA journal_mode = WAL")
            _commit_without_sync_in_wal(writer)
            self._versions.pop(id(writer), None)  # the switch moves `data_version` too

    def close(self) -> None:
        """Close every connection, the read-only ones first, and end the time limit's
        thread. In WAL mode the last connection to close removes the `-wal` and `-shm`
        files SQLite keeps beside the database, but only one that can write: so a writer
        closes last, and a process that only read (a search, a read, a status) opens one
        at the end just to close it (`_close_the_log`). Otherwise every read left two
        files behind."""
        self._watchdog.close()
        self._versions.clear()
        with self._lock:
            opened = sorted(self._opened, key=lambda c: id(c) in self._writers)
            for connection in opened:
                connection.close()
            self._opened.clear()
            wrote = bool(self._writers)
            self._writers.clear()
        self._local = threading.local()
        if not wrote:
            self._close_the_log()

    def _close_the_log(self) -> None:
        """Let SQLite remove the WAL files when no other connection has the database
        open: a connection that may write reads the schema and closes; SQLite then
        checkpoints the log (empty, after reads) and removes both files. With another
        connection open (the host's, another process's) it leaves them, as it must.
        Nothing is done where this process cannot write, or where there is no log."""
        path = self.path
        if path is None or self.shared is not None or not Path(f"{path}-wal").exists():
            return
        if not self.writable():
            return
        with contextlib.suppress(sqlite3.Error):
            connection = sqlite3.connect(path, isolation_level=None, timeout=0)
            try:
                connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
            finally:
                connection.close()


# SQLite primary result codes (the low byte of an extended code).
SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY = 5, 6, 8
SQLITE_CORRUPT, SQLITE_CANTOPEN, SQLITE_NOTADB = 11, 14, 26
# Damage FTS5 reports as a generic error: a constructor that cannot read its shadow
# tables, a config it cannot parse, and an fts5vocab view over an app's table that
# cannot construct it (the views are made only over tables the index knows exist).
DAMAGE_SIGNS = ("vtable constructor failed", "invalid fts5 file format", "no such fts5 table")


@contextlib.contextmanager
def translate_errors() -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as error:
        raise translate(error) from error
    except OverflowError as error:  # a bound id beyond SQLite's 64-bit INTEGER
        raise InvalidArguments("an id is outside the 64-bit integer range") from error
    except MemoryError as error:
        # Python raises MemoryError for SQLITE_NOMEM, which a damaged record reports when
        # it asks for a huge size (FTS5 structure records do): as damage, with its fix.
        raise StorageDamaged(
            "SQLite ran out of memory reading the database, as a damaged record makes it "
            "do; `chat-recall rebuild` drops and rebuilds chat-recall's own tables (the "
            "host's tables are never touched)"
        ) from error


def _cannot_open(path: Path, error: sqlite3.Error) -> StorageUnavailable:
    """The error for a database file SQLite cannot open, naming the path and the fix."""
    if _code(error) == SQLITE_NOTADB:
        return StorageUnavailable(
            str(path),
            f"cannot open the database: {path} is not an SQLite database ({error})",
            "check the path: it names another file",
        )
    directory = path.absolute().parent
    if not directory.is_dir():
        return StorageUnavailable(
            str(path),
            f"cannot open the database {path}: the directory {directory} does not exist",
            "check the path, or create the directory first",
        )
    return StorageUnavailable(
        str(path),
        f"cannot open the database {path}: {error}",
        "check that this user may read the file and its directory (and write them, to "
        "install or index)",
    )


def missing_database(path: Path) -> StorageUnavailable:
    """No file at the path a host gave `chat_recall.sqlite`: an error naming it, never a
    new empty database (a mistyped path would otherwise look like an empty history)."""
    return StorageUnavailable(
        str(path),
        f"no database at {path.absolute()}",
        "chat_recall.sqlite opens the host's existing database file: check the path, or "
        "pass create_host_schema=True to create a new one with the reference tables",
    )


def _code(error: sqlite3.Error) -> int:
    return (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF


def _wal_holds_changes(path: Path) -> bool:
    try:
        return Path(f"{path}-wal").stat().st_size > 0
    except FileNotFoundError:
        return False


def translate(error: sqlite3.Error) -> ChatRecallError:
    """The port error for a driver error, by SQLite's result code."""
    message = str(error)
    code = _code(error)
    if code in (SQLITE_BUSY, SQLITE_LOCKED):
        return StorageBusy(message)
    if code in (SQLITE_CORRUPT, SQLITE_NOTADB) or any(sign in message for sign in DAMAGE_SIGNS):
        return StorageDamaged(
            f"{message}: the database reports damaged data; `chat-recall rebuild` drops "
            "and rebuilds chat-recall's own tables (the host's tables are never touched)"
        )
    if code == SQLITE_READONLY:
        return StorageReadOnly(f"the database is read-only here: {message}")
    if code == SQLITE_CANTOPEN:
        return IndexUnavailable(f"cannot open the database: {message}")
    if "no such table" in message or "no such module" in message:
        return IndexUnavailable(f"the derived index is not usable: {message}")
    return StorageError(message)


@attrs.define
class _LockTaken:
    """When a transaction took the write lock: at BEGIN IMMEDIATE, or at the first
    write of one that began with reads (`read_then_write`), after `before` (the rest
    still owed, and the time limit armed)."""

    at: float
    before: Callable[[], None] = lambda: None
    read: float = 0.0  # seconds of reads before the first write, without the lock

    def taken(self) -> None:
        self.read = time.perf_counter() - self.at
        self.before()
        self.at = time.perf_counter()


def _before_writes(pacer: LockPacer | None, arm: Callable[[], None]) -> None:
    """Before a transaction's first write: the rest still owed (when the pacer's rest
    was left for this moment), then its time limit starts."""
    if pacer is not None:
        pacer.begin()
    arm()


class _NotGranted(Exception):
    """A transaction that began with reads could not take the write lock."""


def _busy(error: BaseException) -> bool:
    """Whether the lock was refused (SQLITE_BUSY, with SQLITE_BUSY_SNAPSHOT: the
    snapshot read is not the newest)."""
    if isinstance(error, sqlite3.Error):
        return _code(error) == SQLITE_BUSY
    return isinstance(error, StorageBusy)
