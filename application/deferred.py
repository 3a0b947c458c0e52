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
    and each attrs class it does not import saves start-up time (issue 13).

    Services that share dependencies (the indexer and the facade's unit of work are one
    instance) share one `lock`, so two threads that first use them at the same time
    never build a dependency twice."""

    _build: Callable[[], T]
    _lock: threading.RLock = attrs.field(factory=threading.RLock, kw_only=True)
    _value: T | None = attrs.field(init=False, default=None)

    @property
    def built(self) -> bool:
        return self._value is not None

    def get(self) -> T:
        with self._lock:
            if self._value is None:
                self._value = self._build()
            return self._value
