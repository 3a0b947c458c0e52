"""Content-free telemetry events: numbers, states and flags, never queries, titles,
message text or excerpts."""

from __future__ import annotations

import attrs


@attrs.frozen
class ToolCallEvent:
    tool: str
    mode: str
    outcome: str  # "ok" or an error kind
    duration_ms: float
    result_count: int
    index_status: str | None
    truncated: bool
    output_bytes: int
    # Placeholders in the output the model received: credentials redacted from it.
    redactions: int = 0


@attrs.frozen
class IndexBatchEvent:
    duration_ms: float
    batch_size: int
    indexed: int
    deleted: int
    purged: int
    backlog_messages: int
    quarantined: int = 0
    # Credentials replaced by placeholders in this batch's documents (bodies and titles).
    redactions: int = 0


@attrs.frozen
class RowsQuarantinedEvent:
    """Rows one batch set aside as unreadable, per reason (`UnreadableReason` value)."""

    reason: str
    count: int


@attrs.frozen
class IndexFailureEvent:
    """An indexer batch failed: the error kind, and the pause before it is retried."""

    error_kind: str
    retry_in_seconds: float


TelemetryEvent = ToolCallEvent | IndexBatchEvent | RowsQuarantinedEvent | IndexFailureEvent
