"""Telemetry adapters: drop events, keep them in memory, or log them."""

from __future__ import annotations

import threading

import attrs

from chat_recall.domain.telemetry import TelemetryEvent


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
    level: int = 10  # logging.DEBUG

    def emit(self, event: TelemetryEvent) -> None:
        import logging  # here: a command that logs nothing does not load logging

        logging.getLogger("chat_recall.telemetry").log(self.level, "%r", event)
