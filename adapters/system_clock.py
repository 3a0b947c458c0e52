"""The system clock."""

from __future__ import annotations

import time

import attrs


@attrs.define
class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()
