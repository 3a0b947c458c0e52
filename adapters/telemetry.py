"""Telemetry adapters: drop events, keep them in memory, or log them."""

from __future__ import annotations

import logging
import threading

import attrs

from chat_recall.domain.telemetry import TelemetryEvent

log = logging.getLogger("chat_recall.telemetry")


@attrs.define
class NullTelemetry:
    def emit(self, event: TelemetryEvent) -> None:
        return None


@attrs.define
class RecordingTelemetry:
    """Keeps every event, for a host's tests and dashboards."""

    events: list[TelemetryEvent] = attrs.field(factory=list)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)

    def emit(self, event: TelemetryEvent) -> None:
        with self._lock:
            self.events.append(event)


@attrs.define
class LoggingTelemetry:
    level: int = logging.DEBUG

    def emit(self, event: TelemetryEvent) -> None:
        log.log(self.level, "%r", event)
