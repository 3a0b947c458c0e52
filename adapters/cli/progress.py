"""Progress of long commands (index, rebuild, import) on standard error.

On a terminal: a `rich` progress bar (count, rate, and a remaining-time estimate from
the rate over the last 30 seconds, so the slow first batches do not dominate it).
Otherwise (a log, a pipe, CI): one plain line every `LINE_INTERVAL_SECONDS`, with no
carriage returns. `--quiet`: nothing. rich is imported only when a bar is drawn, so the
other commands never pay for it.
"""

from __future__ import annotations

import collections
import sys
import time
from collections.abc import Callable
from typing import Any, Protocol, TextIO

LINE_INTERVAL_SECONDS = 10.0
RATE_WINDOW_SECONDS = 30.0
MIN_ESTIMATE_SECONDS = 2.0  # no remaining-time estimate from less than this much history


class Reporter(Protocol):
    def update(self, completed: int, total: int | None, detail: str) -> None:
        """`completed` of `total` units (None: unknown), and what they mean to a person."""

    def close(self) -> None: ...


def reporter(label: str, *, quiet: bool, stream: TextIO | None = None) -> Reporter:
    stream = sys.stderr if stream is None else stream
    if quiet:
        return Silent()
    if stream.isatty():
        return Bar(label, stream)
    return Lines(label, stream)


class Silent:
    def update(self, completed: int, total: int | None, detail: str) -> None:
        pass

    def close(self) -> None:
        pass


class Rate:
    """Units per second over a sliding window of samples."""

    def __init__(self, window: float = RATE_WINDOW_SECONDS) -> None:
        self.window = window
        self.samples: collections.deque[tuple[float, int]] = collections.deque()

    def add(self, now: float, completed: int) -> None:
        self.samples.append((now, completed))
        while len(self.samples) > 2 and now - self.samples[1][0] >= self.window:
            self.samples.popleft()

    def per_second(self) -> float | None:
        if len(self.samples) < 2:
            return None
        (start, first), (end, last) = self.samples[0], self.samples[-1]
        if end - start < MIN_ESTIMATE_SECONDS:
            return None
        return (last - first) / (end - start)


def remaining_seconds(rate: float | None, completed: int, total: int | None) -> float | None:
    if rate is None or rate <= 0 or total is None:
        return None
    return max(total - completed, 0) / rate


def duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class Lines:
    """A plain line at most every `interval` seconds, and a last one at the end."""

    def __init__(
        self,
        label: str,
        stream: TextIO,
        *,
        interval: float = LINE_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label, self.stream, self.interval, self.clock = label, stream, interval, clock
        self.rate = Rate()
        self.started = clock()
        self.last_line = self.started
        self.pending: tuple[int, int | None, str] | None = None

    def update(self, completed: int, total: int | None, detail: str) -> None:
        now = self.clock()
        self.rate.add(now, completed)
        self.pending = (completed, total, detail)
        if now - self.last_line >= self.interval:
            self._line(now)

    def _line(self, now: float) -> None:
        if self.pending is None:
            return
        completed, total, detail = self.pending
        parts = [f"{self.label}: {detail}"]
        if total:
            parts.append(f"{min(completed / total, 1.0):.0%}")
        left = remaining_seconds(self.rate.per_second(), completed, total)
        if left is not None:
            parts.append(f"about {duration(left)} left")
        parts.append(f"{duration(now - self.started)} so far")
        print(", ".join(parts), file=self.stream, flush=True)
        self.last_line = now
        self.pending = None

    def close(self) -> None:
        # The final figures are the command's own summary; a line only if one was due.
        if self.last_line != self.started:
            self._line(self.clock())


class Bar:
    """A rich progress bar on the terminal (removed when done; the summary follows)."""

    def __init__(self, label: str, stream: TextIO) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[detail]}"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=Console(file=stream),
            transient=True,
            speed_estimate_period=RATE_WINDOW_SECONDS,
        )
        self.progress.start()
        self.task: Any = self.progress.add_task(label, total=None, detail="")

    def update(self, completed: int, total: int | None, detail: str) -> None:
        self.progress.update(self.task, completed=completed, total=total, detail=detail)

    def close(self) -> None:
        self.progress.stop()
