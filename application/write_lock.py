"""How long this process's chat-recall transactions held the storage's write lock: what
host writers may have waited for. SQLite records every write transaction; engines
without a database-wide write lock (PostgreSQL) report only what their admin commands
measured, or nothing."""

from __future__ import annotations

import sys
import threading
from types import FrameType

import attrs

from chat_recall.domain.wording import counted

# Transactions longer than these are counted (the shortest: past any batch's time limit,
# `domain.pacing.PacingRule.limit_seconds`).
LONG_MS = (25, 50, 100)
# Transactions longer than this are kept with their time (the first SLOW_KEPT of them).
KEPT_OVER_MS = 5
SLOW_KEPT = 20_000
# COMMITs longer than this are kept with what they spent (`WriteLockStats.slow_commits`).
SLOW_COMMIT_MS = 10


@attrs.define
class WriteLockStats:
    """How long this process's chat-recall transactions held the database's write lock
    (from BEGIN IMMEDIATE acquired to COMMIT or ROLLBACK done)."""

    transactions: int = 0
    total_seconds: float = 0.0
    longest_seconds: float = 0.0
    longest_in: str = ""  # the chat-recall functions that held it longest
    # How many transactions held the lock longer than each of LONG_MS.
    over: tuple[int, ...] = (0,) * len(LONG_MS)
    # The ones over KEPT_OVER_MS: (perf_counter when acquired, seconds, of them in COMMIT,
    # the function), the first SLOW_KEPT of them (benchmarks line them up with host stalls).
    slow: list[tuple[float, float, float, str]] = attrs.field(factory=list, repr=False)
    # COMMITs longer than SLOW_COMMIT_MS (the first SLOW_KEPT): (perf_counter when the
    # transaction acquired the lock, COMMIT seconds, of them on this thread's CPU, times
    # the thread was descheduled, times it waited (I/O)). A COMMIT writes the pages its
    # transaction changed; one that takes long on little CPU waited for the machine.
    slow_commits: list[tuple[float, float, float, int, int]] = attrs.field(factory=list, repr=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, repr=False)

    def record(self, seconds: float, *, began: float = 0.0, committing: float = 0.0) -> None:
        with self._lock:
            self.transactions += 1
            self.total_seconds += seconds
            if seconds * 1000 > KEPT_OVER_MS:
                self.over = tuple(
                    n + (seconds * 1000 > ms) for n, ms in zip(self.over, LONG_MS, strict=True)
                )
                if len(self.slow) < SLOW_KEPT:
                    self.slow.append((began, seconds, committing, _caller()))
            if seconds > self.longest_seconds:
                self.longest_seconds = seconds
                self.longest_in = _caller()

    def record_commit(self, began: float, usage: CommitUsage) -> None:
        if usage.seconds * 1000 > SLOW_COMMIT_MS:
            with self._lock:
                if len(self.slow_commits) < SLOW_KEPT:
                    self.slow_commits.append(
                        (began, usage.seconds, usage.cpu_seconds, usage.preempted, usage.waited)
                    )

    @classmethod
    def combined(cls, *parts: WriteLockStats) -> WriteLockStats:
        longest = max(parts, key=lambda part: part.longest_seconds, default=cls())
        return cls(
            sum(part.transactions for part in parts),
            sum(part.total_seconds for part in parts),
            longest.longest_seconds,
            longest.longest_in,
            tuple(sum(counts) for counts in zip(*(part.over for part in parts), strict=True))
            or cls().over,
        )

    def summary(self) -> str:
        where = f" ({self.longest_in})" if self.longest_in else ""
        over = ", ".join(
            f"{count} over {ms} ms" for count, ms in zip(self.over, LONG_MS, strict=True)
        )
        return (
            f"held {self.total_seconds * 1000:.1f} ms in "
            f"{counted(self.transactions, 'transaction')}, "
            f"longest {self.longest_seconds * 1000:.1f} ms{where}; {over}"
        )


@attrs.frozen
class CommitUsage:
    """What one COMMIT took: wall and thread CPU seconds, and how often the thread was
    descheduled (involuntary context switches) or waited (voluntary: I/O, locks)."""

    seconds: float
    cpu_seconds: float
    preempted: int
    waited: int


def _caller() -> str:
    """The innermost chat-recall function outside the database plumbing that opened
    the write. Walks the frames without reading source lines (`traceback` reads them
    for every frame, a visible share of a backfill's time, docs/results.md, as every
    indexer batch holds the lock longer than KEPT_OVER_MS)."""
    # Generic openers: the function that called them says what the write was for.
    skipped = {"__enter__", "__exit__", "transaction", "write", "_writing_around_damage"}
    plumbing = ("database.py", "write_lock.py")
    try:  # past this function, `record` and the function that called it
        frame: FrameType | None = sys._getframe(3)
    except ValueError:  # a shallower stack: nothing of ours called
        return ""
    while frame is not None:
        filename, name = frame.f_code.co_filename, frame.f_code.co_name
        mine = "chat_recall" in filename and not filename.endswith(plumbing)
        if mine and name not in skipped:
            return name
        frame = frame.f_back
    return ""
