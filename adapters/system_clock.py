"""Clocks: the system's, and a manual one for deterministic tests and hosts' tests."""

from __future__ import annotations

import time

import attrs


@attrs.define
class SystemClock:
    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()


@attrs.define
class ManualClock:
    """Time moves only when told to."""

    current: float = 1_700_000_000.0
    ticks: float = 0.0

    def now(self) -> float:
        return self.current

    def monotonic(self) -> float:
        return self.ticks

    def advance(self, seconds: float) -> None:
        self.current += seconds
        self.ticks += seconds
