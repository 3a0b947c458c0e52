"""Connections to the host's PostgreSQL database: two psycopg pools, one for the
indexer's and host-side writes, one whose every transaction is READ ONLY for the tools.

Every call runs one transaction on a pooled connection. Driver errors become the
domain's errors (`translate_errors`); a read whose connection was lost (a server
restart, a dropped network) is tried again on a fresh connection with exponential
backoff, and only then reported as `IndexUnavailable`, never as a traceback. A write
is retried only when the failure came before any statement ran (no connection could
be had): a write that may have committed is never sent twice.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import attrs
import psycopg
import psycopg_pool
from psycopg import errors as pg_errors

from chat_recall.adapters.host_schema import HostSchema
from chat_recall.domain.errors import (
    ChatRecallError,
    IndexUnavailable,
    InvalidArguments,
    StorageError,
)

T = TypeVar("T")

POOL_SIZE = 4
CONNECT_TIMEOUT_SECONDS = 5
# Lost connections: tries and the first pause (doubled each time): ~0.1+0.2+0.4+0.8 s.
RETRIES = 4
FIRST_BACKOFF_SECONDS = 0.1
# Every statement chat-recall runs is bounded; a stuck one is cut off.
STATEMENT_TIMEOUT_MS = 30_000
# Waiting for a row another transaction holds (a host's marker row): never long.
LOCK_TIMEOUT_MS = 5_000


_URL_PASSWORD = re.compile(r"(postgres(?:ql)?://[^:/@\s\"']*:)[^@\s\"']*@")
_KEY_PASSWORD = re.compile(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)


def without_password(text: str) -> str:
    """`text` (a driver's message, which may repeat the connection string) with any
    password in a URL or a `password=` setting replaced by `***`."""
    return _KEY_PASSWORD.sub(r"\1***", _URL_PASSWORD.sub(r"\1***@", text))


def _is_connection_lost(error: BaseException) -> bool:
    if isinstance(error, psycopg_pool.PoolTimeout):
        return True
    if isinstance(
        error,
        pg_errors.AdminShutdown
        | pg_errors.CannotConnectNow
        | pg_errors.ConnectionException
        | pg_errors.CrashShutdown,
    ):
        return True
    return isinstance(error, psycopg.OperationalError) and not isinstance(
        error, pg_errors.QueryCanceled | pg_errors.LockNotAvailable
    )


@contextlib.contextmanager
def translate_errors() -> Iterator[None]:
    """Driver errors -> the domain's errors, with `raise ... from`."""
    try:
        yield
    except ChatRecallError:
        raise
    except pg_errors.UndefinedTable as error:
        raise IndexUnavailable(f"the derived index is not usable: {error}") from error
    except pg_errors.NumericValueOutOfRange as error:
        raise InvalidArguments("an id is outside the 64-bit integer range") from error
    except (psycopg_pool.PoolTimeout, psycopg.OperationalError) as error:
        if _is_connection_lost(error):
            raise IndexUnavailable(f"cannot reach the PostgreSQL server: {error}") from error
        raise StorageError(str(error)) from error
    except psycopg.Error as error:
        raise StorageError(str(error)) from error
    except OverflowError as error:  # a bound id beyond bigint
        raise InvalidArguments("an id is outside the 64-bit integer range") from error


def _configure(read_only: bool) -> Callable[[psycopg.Connection[Any]], None]:
    """Reading connections run in autocommit with every transaction READ ONLY: a
    one-statement read is its own read-only transaction (no BEGIN/COMMIT round trips);
    reads that need one snapshot open a transaction (`read(..., snapshot=True)`)."""

    def configure(connection: psycopg.Connection[Any]) -> None:
        connection.execute(
            f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}; "
            f"SET lock_timeout = {LOCK_TIMEOUT_MS}; "
            "SET idle_in_transaction_session_timeout = 60000"
            + ("; SET default_transaction_read_only = on" if read_only else "")
        )
        if not read_only:
            connection.commit()

    return configure


@attrs.define
class PostgresDatabase:
    """Where the host's database is (a `postgresql://` URL or libpq key=value string)
    and its schema mapping. Pools are opened lazily, closed by `close()`."""

    dsn: str
    schema: HostSchema = attrs.field(factory=HostSchema.reference)
    pool_size: int = POOL_SIZE
    sleep: Callable[[float], None] = time.sleep
    _pools: dict[bool, psycopg_pool.ConnectionPool[Any]] = attrs.field(factory=dict, init=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)

    def probe(self) -> None:
        """One connection, made and closed at once, before any pool exists: a wrong
        password, a database that does not exist, a malformed URL or a server that
        cannot be reached is an IndexUnavailable at once, with libpq's own reason (a
        pool retried in the background for its whole timeout, several times over, with
        a warning each time and a reason that hid the real one)."""
        try:
            psycopg.connect(self.dsn, connect_timeout=CONNECT_TIMEOUT_SECONDS).close()
        except psycopg.Error as error:
            reason = without_password(str(error).strip().splitlines()[0] if str(error) else "")
            raise IndexUnavailable(f"cannot connect to PostgreSQL: {reason}") from None

    def _pool(self, read_only: bool) -> psycopg_pool.ConnectionPool[Any]:
        with self._lock:
            pool = self._pools.get(read_only)
            if pool is None:
                pool = psycopg_pool.ConnectionPool(
                    self.dsn,
                    min_size=0,
                    max_size=self.pool_size,
                    kwargs={"connect_timeout": CONNECT_TIMEOUT_SECONDS, "autocommit": read_only},
                    configure=_configure(read_only),
                    # A pooled connection the server dropped (a restart, an idle
                    # timeout, pg_terminate_backend) is replaced at checkout, before a
                    # statement is sent: a write never meets it mid-way (one round trip).
                    check=psycopg_pool.ConnectionPool.check_connection,
                    timeout=CONNECT_TIMEOUT_SECONDS,
                    name="chat-recall-" + ("read" if read_only else "write"),
                    open=True,
                )
                self._pools[read_only] = pool
            return pool

    @contextlib.contextmanager
    def _transaction(
        self, read_only: bool, *, snapshot: bool = True
    ) -> Iterator[psycopg.Connection[Any]]:
        with translate_errors(), self._pool(read_only).connection() as connection:
            if snapshot or not read_only:
                with connection.transaction():
                    yield connection
            else:
                yield connection

    @contextlib.contextmanager
    def reading(self) -> Iterator[psycopg.Connection[Any]]:
        """One READ ONLY transaction (no retry: see `read`)."""
        with self._transaction(read_only=True) as connection:
            yield connection

    @contextlib.contextmanager
    def writing(self) -> Iterator[psycopg.Connection[Any]]:
        """One write transaction, committed when the block ends, rolled back when it
        raises."""
        with self._transaction(read_only=False) as connection:
            yield connection

    def read(self, work: Callable[[psycopg.Connection[Any]], T], *, snapshot: bool = False) -> T:
        """`work` on a read-only connection, each statement its own READ ONLY
        transaction, or all in one with `snapshot`; tried again with backoff on a lost
        connection (a read can always be repeated)."""
        return self._retrying(
            lambda: self._once(work, read_only=True, snapshot=snapshot), always=True
        )

    def write(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """`work` in a write transaction; tried again only when no connection could
        be had (nothing was sent)."""
        return self._retrying(lambda: self._once(work, read_only=False), always=False)

    def _once(
        self,
        work: Callable[[psycopg.Connection[Any]], T],
        *,
        read_only: bool,
        snapshot: bool = True,
    ) -> T:
        with self._transaction(read_only, snapshot=snapshot) as connection:
            return work(connection)

    def _retrying(self, attempt: Callable[[], T], *, always: bool) -> T:
        pause = FIRST_BACKOFF_SECONDS
        for remaining in range(RETRIES, -1, -1):
            try:
                return attempt()
            except IndexUnavailable as error:
                cause = error.__cause__
                retryable = cause is not None and _is_connection_lost(cause)
                if not always:
                    retryable = retryable and isinstance(cause, psycopg_pool.PoolTimeout)
                if not retryable or remaining == 0:
                    raise
                for pool in list(self._pools.values()):
                    pool.check()  # drop the connections that died with the server
                self.sleep(pause)
                pause *= 2
        raise AssertionError("unreachable")

    def close(self) -> None:
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            pool.close()
