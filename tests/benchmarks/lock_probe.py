"""What a host writer would have waited for: a separate process that tries to take the
database's write lock about every millisecond (`BEGIN IMMEDIATE` with no busy timeout,
then `ROLLBACK`: nothing is committed, so the indexer never sees a host write) and
records every span during which the lock stayed taken by someone else.

This measures the lock itself, which `WriteLockStats` cannot: SQLite runs the WAL's
automatic checkpoint inside the COMMIT statement after the write lock is released, so
the time a COMMIT takes overstates the time the lock was held.

    with LockProbe(path) as probe:
        ...  # the work to watch
    probe.result  # {"attempts", "busy_spans", "longest_busy_ms", "busy_spans_over_25_ms"}
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from multiprocessing.connection import Connection
from pathlib import Path
from types import TracebackType
from typing import Any

POLL_SECONDS = 0.001


def _probe(path: str, stop: Any, results: Connection) -> None:
    connection = sqlite3.connect(path, isolation_level=None, timeout=0)
    attempts = 0
    busy_since: float | None = None
    spans: list[float] = []
    while not stop.is_set():
        attempts += 1
        now = time.perf_counter()
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:  # locked: by the indexer (nothing else writes)
            if busy_since is None:
                busy_since = now
        else:
            connection.execute("ROLLBACK")
            if busy_since is not None:
                spans.append(time.perf_counter() - busy_since)
                busy_since = None
        time.sleep(POLL_SECONDS)
    connection.close()
    results.send(
        {
            "attempts": attempts,
            "busy_spans": len(spans),
            "longest_busy_ms": round(max(spans, default=0.0) * 1000, 1),
            "busy_spans_over_25_ms": sum(span > 0.025 for span in spans),
        }
    )


class LockProbe:
    def __init__(self, path: Path) -> None:
        context = multiprocessing.get_context("spawn")
        self._stop = context.Event()
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_probe, args=(str(path), self._stop, send), daemon=True
        )
        self.result: dict[str, Any] = {}

    def __enter__(self) -> LockProbe:
        self._process.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._receive.poll(30):
            self.result = self._receive.recv()
        self._process.join(10)
