"""Timing a COMMIT: wall and thread CPU time, and how often the thread was descheduled
or waited meanwhile (what tells a COMMIT that worked from one that waited for the
machine; `WriteLockStats.slow_commits`)."""

from __future__ import annotations

import time

import attrs

from chat_recall.application.write_lock import CommitUsage

try:
    import resource

    _RUSAGE_THREAD: int | None = getattr(resource, "RUSAGE_THREAD", None)
except ImportError:  # Windows
    _RUSAGE_THREAD = None


@attrs.frozen
class CommitTimer:
    """Measures a COMMIT: `started()` before it, `stop()` after (a few microseconds:
    clock reads and one `getrusage` each; thread switches only where the platform
    counts them per thread)."""

    wall: float
    cpu: float
    switches: tuple[int, int]

    @classmethod
    def started(cls) -> CommitTimer:
        switches = _thread_switches()
        return cls(wall=time.perf_counter(), cpu=time.thread_time(), switches=switches)

    def stop(self) -> CommitUsage:
        wall = time.perf_counter() - self.wall
        cpu = time.thread_time() - self.cpu
        preempted, waited = _thread_switches()
        return CommitUsage(wall, cpu, preempted - self.switches[0], waited - self.switches[1])


def _thread_switches() -> tuple[int, int]:
    """(involuntary, voluntary) context switches of this thread; zeros where the
    platform has no per-thread usage."""
    if _RUSAGE_THREAD is None:
        return 0, 0
    usage = resource.getrusage(_RUSAGE_THREAD)
    return usage.ru_nivcsw, usage.ru_nvcsw
