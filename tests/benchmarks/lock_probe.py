"""What a host writer would have waited for: a separate process that tries to take the
database's write lock about every millisecond (`BEGIN IMMEDIATE` with no busy timeout,
then `ROLLBACK`: nothing is committed, so the indexer never sees a host write) and
records every span during which the lock stayed taken by someone else.

This measures the lock itself, which `WriteLockStats` cannot: SQLite runs the WAL's
automatic checkpoint inside the COMMIT statement after the write lock is released, so
the time a COMMIT takes overstates the time the lock was held.

    with LockProbe(path) as probe:
        ...  # the work to watch
    probe.result  # {"attempts", "busy_spans", "longest_busy_ms", "busy_spans_over_25_ms",
                  #  "_long_spans": [(start, seconds), ...] over 25 ms}
    culprits(spans, slow)  # which of our recorded transactions each long span met
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from types import TracebackType
from typing import Any

POLL_SECONDS = 0.001
WATCHED_SECONDS = 0.005
LONG_SECONDS = 0.025
LONG_KEPT = 200


def _probe(path: str, stop: Any, ready: Any, results: Connection) -> None:
    connection = sqlite3.connect(path, isolation_level=None, timeout=0)
    attempts = 0
    busy_since: float | None = None
    spans: list[float] = []
    long_spans: list[tuple[float, float, float]] = []
    # From the first to the last failed try of a span: the lock was found taken at both
    # ends. `spans` run to the first successful try, so they also hold any delay of
    # this process itself (on a loaded machine it may not run for a while): the truth
    # lies between the two.
    surely: list[float] = []
    busy_last = 0.0
    # Within a span, the widest pause between two tries: on a loaded machine this process
    # may not run for a while, and a release of the lock shorter than that pause goes
    # unseen (two transactions look like one). A span watched throughout had no pause
    # over WATCHED_SECONDS.
    widest = 0.0
    watched_long = 0
    last_try = time.perf_counter()
    while not stop.is_set():
        attempts += 1
        now = time.perf_counter()
        pause, last_try = now - last_try, now
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:  # locked: by the indexer (nothing else writes)
            if busy_since is None:
                busy_since, widest = now, 0.0
            else:
                widest = max(widest, pause)
            busy_last = now
        else:
            connection.execute("ROLLBACK")
            if busy_since is not None:
                widest = max(widest, pause)
                spans.append(time.perf_counter() - busy_since)
                surely.append(busy_last - busy_since)
                if spans[-1] > LONG_SECONDS:
                    watched_long += widest <= WATCHED_SECONDS
                    if len(long_spans) < LONG_KEPT:
                        long_spans.append((busy_since, spans[-1], widest))
                busy_since = None
        if attempts == 1:
            ready.set()  # after the first try: the work watched starts only now
        time.sleep(POLL_SECONDS)
    connection.close()
    results.send(
        {
            "attempts": attempts,
            "busy_spans": len(spans),
            "longest_busy_ms": round(max(spans, default=0.0) * 1000, 1),
            "busy_spans_over_25_ms": sum(span > LONG_SECONDS for span in spans),
            "longest_surely_busy_ms": round(max(surely, default=0.0) * 1000, 1),
            "surely_busy_over_25_ms": sum(span > LONG_SECONDS for span in surely),
            # spans over 25 ms with no pause between tries over WATCHED_SECONDS
            "watched_busy_over_25_ms": watched_long,
            # (perf_counter at the first failed try, seconds, widest pause between tries):
            # CLOCK_MONOTONIC, the
            # clock `WriteLockStats.slow` uses in the benchmark's process too.
            "_long_spans": long_spans,
        }
    )


class LockProbe:
    def __init__(self, path: Path) -> None:
        context = multiprocessing.get_context("spawn")
        self._stop = context.Event()
        self._ready = context.Event()
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_probe, args=(str(path), self._stop, self._ready, send), daemon=True
        )
        self.result: dict[str, Any] = {}

    def __enter__(self) -> LockProbe:
        self._process.start()
        # A spawned process takes a while to start: work done meanwhile goes unwatched.
        if not self._ready.wait(60):
            raise RuntimeError("the write-lock probe did not start")
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


def culprits(
    long_spans: list[tuple[float, float, float]],
    slow: list[tuple[float, float, float, str]],
    since: float | None = None,
    commits: Sequence[tuple[float, float, float, int, int]] = (),
) -> list[dict[str, Any]]:
    """For each long busy span the probe saw, the transactions `WriteLockStats.slow`
    recorded (acquired at, seconds, of them in COMMIT, function) that overlap it, and
    when it began (seconds after `since`; both clocks are CLOCK_MONOTONIC on Linux)."""
    found = []
    for start, seconds, widest in long_spans:
        usage = {entry[0]: entry[1:] for entry in commits}
        met = [
            {"function": function, "ms": round(held * 1000, 1), "commit_ms": round(c * 1000, 1)}
            | commit_usage(usage.get(began))
            for began, held, c, function in slow
            if began < start + seconds and began + held > start
        ]
        found.append(
            {
                "busy_ms": round(seconds * 1000, 1),
                "at_seconds": None if since is None else round(start - since, 1),
                "widest_pause_ms": round(widest * 1000, 1),
                "transactions": met,
            }
        )
    return found


def commit_usage(found: tuple[float, float, int, int] | None) -> dict[str, Any]:
    """A slow COMMIT's CPU and thread switches (`WriteLockStats.slow_commits`), if kept."""
    if found is None:
        return {}
    _, cpu, preempted, waited = found
    return {
        "commit_cpu_ms": round(cpu * 1000, 1),
        "commit_preempted": preempted,
        "commit_waited": waited,
    }
