"""Per-app progress of the indexer, so a search can wait a short, bounded time for a
batch in flight without writing anything itself (whether anything advances the index
is `application.health.IndexHealth`)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable

import attrs

from chat_recall.domain.model import AppId


@attrs.define
class IndexProgress:
    _condition: threading.Condition = attrs.field(factory=threading.Condition, init=False)
    _in_flight: Counter[AppId] = attrs.field(factory=Counter, init=False)

    def begin(self, apps: Iterable[AppId]) -> None:
        with self._condition:
            self._in_flight.update(set(apps))

    def end(self, apps: Iterable[AppId]) -> None:
        with self._condition:
            self._in_flight.subtract(set(apps))
            self._in_flight += Counter()  # drop zero counts
            self._condition.notify_all()

    def wait_for(self, app_id: AppId, timeout: float) -> bool:
        """Wait at most `timeout` seconds until no batch for `app_id` is in flight.
        Returns True when none is."""
        with self._condition:
            return self._condition.wait_for(lambda: self._in_flight[app_id] <= 0, timeout)
