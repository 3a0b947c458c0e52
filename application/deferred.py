"""`Deferred`: a service the facade builds on its first use, once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

import attrs

T = TypeVar("T")


@attrs.define
class Deferred(Generic[T]):
    """A service built the first time it is asked for, then kept. The facade holds
    the indexer, the unit of work, the audit and the host writer this way: a process
    that only searches (a CLI call, an MCP tool call) neither imports nor builds them,
    and each attrs class it does not import saves start-up time (issue 13)."""

    _build: Callable[[], T]
    _value: T | None = attrs.field(init=False, default=None)
    _lock: threading.Lock = attrs.field(init=False, factory=threading.Lock)

    @property
    def built(self) -> bool:
        return self._value is not None

    def get(self) -> T:
        with self._lock:
            if self._value is None:
                self._value = self._build()
            return self._value
