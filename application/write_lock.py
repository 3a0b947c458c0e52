"""How long this process's chat-recall transactions held the storage's write lock: what
host writers may have waited for. SQLite records every write transaction; engines
without a database-wide write lock (PostgreSQL) report only what their admin commands
measured, or nothing."""

from __future__ import annotations

import threading

import attrs


@attrs.define
class WriteLockStats:
    """How long this process's chat-recall transactions held the database's write lock
    (from BEGIN IMMEDIATE acquired to COMMIT or ROLLBACK done)."""

    transactions: int = 0
    total_seconds: float = 0.0
    longest_seconds: float = 0.0
    longest_in: str = ""  # the chat-recall functions that held it longest
    _lock: threading.Lock = attrs.field(factory=threading.Lock, repr=False)

    def record(self, seconds: float) -> None:
        with self._lock:
            self.transactions += 1
            self.total_seconds += seconds
            if seconds > self.longest_seconds:
                self.longest_seconds = seconds
                self.longest_in = _caller()

    @classmethod
    def combined(cls, *parts: WriteLockStats) -> WriteLockStats:
        longest = max(parts, key=lambda part: part.longest_seconds, default=cls())
        return cls(
            sum(part.transactions for part in parts),
            sum(part.total_seconds for part in parts),
            longest.longest_seconds,
            longest.longest_in,
        )

    def summary(self) -> str:
        where = f" ({self.longest_in})" if self.longest_in else ""
        return (
            f"held {self.total_seconds * 1000:.1f} ms in {self.transactions} transactions, "
            f"longest {self.longest_seconds * 1000:.1f} ms{where}"
        )


def _caller() -> str:
    """The innermost chat-recall function outside the database plumbing that opened
    the write."""
    skipped = {"__enter__", "__exit__", "transaction", "write"}
    plumbing = ("database.py", "write_lock.py")
    import traceback  # here: a command that never writes (a search) does not load it

    for frame in reversed(traceback.extract_stack()[:-3]):
        mine = "chat_recall" in frame.filename and not frame.filename.endswith(plumbing)
        if mine and frame.name not in skipped:
            return frame.name
    return ""
