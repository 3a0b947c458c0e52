"""Pure indexing policy: what document a source row becomes (or why it is set aside),
and the stamp that says under which projection and host mapping the documents were
built."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from chat_recall.domain.host_values import READER_VERSION, Unreadable, UnreadableReason
from chat_recall.domain.model import (
    IndexBatch,
    IndexDocument,
    MessageId,
    MessageMarker,
    QuarantinedRow,
    SourceRow,
)
from chat_recall.domain.projection import PROJECTION_VERSION, MarkupPolicy, project_for_search
from chat_recall.domain.text import index_text


def projection_stamp(policy: MarkupPolicy) -> str:
    """Changes whenever projection output may change: the version or the policy table."""
    return f"{PROJECTION_VERSION}:{policy.fingerprint()}"


def index_stamp(policy: MarkupPolicy, source_fingerprint: str) -> str:
    """Changes whenever a document may change: the projection (see `projection_stamp`),
    how host values are read (`READER_VERSION`), or the adapter's host mapping
    (`MessageRepo.source_fingerprint`). A change re-indexes every message, quarantined
    ones included."""
    return f"{projection_stamp(policy)}|r{READER_VERSION}:{source_fingerprint}"


def build_document(row: SourceRow, policy: MarkupPolicy) -> IndexDocument | None:
    """The document for a source row, or None when its projection is empty (empty
    projections are not indexed). Raises `Unreadable` for a row whose stored values
    cannot be read (`SourceRow.problem`)."""
    message = row.message
    if row.problem is not None:
        raise Unreadable(row.problem)
    assert message.created_at is not None  # no time_problem
    projection = project_for_search(message.text, policy)
    if projection.is_empty:
        return None
    return IndexDocument(
        message_id=message.id,
        chat_id=message.chat_id,
        app_id=row.app_id,
        role=message.role,
        created_at=message.created_at,
        is_compaction_summary=message.is_compaction_summary,
        projection_truncated=projection.truncated,
        title=index_text(row.title or ""),
        body=index_text(projection.text),
    )


def plan_batch(
    markers: Sequence[MessageMarker], rows: Mapping[MessageId, SourceRow], policy: MarkupPolicy
) -> IndexBatch:
    """What one indexer batch writes: a document for every marked message whose source
    row projects to something, a removal for the rest (gone, or nothing searchable),
    a quarantine entry for a row that cannot be read or projected (one odd row never
    fails the batch), and every marker read cleared."""
    upserts: list[IndexDocument] = []
    deletes: list[MessageId] = []
    quarantined: list[QuarantinedRow] = []
    for marker in markers:
        row = rows.get(marker.id)
        try:
            document = None if row is None else build_document(row, policy)
        except Unreadable as unreadable:
            assert row is not None
            quarantined.append(set_aside(row, unreadable.reason))
            continue
        except Exception:  # a projection bug: this row waits, the others are indexed
            assert row is not None
            quarantined.append(set_aside(row, UnreadableReason.PROJECTION_FAILED))
            continue
        if document is None:
            deletes.append(marker.id)
        else:
            upserts.append(document)
    return IndexBatch(tuple(upserts), tuple(deletes), tuple(markers), tuple(quarantined))


def set_aside(row: SourceRow, reason: UnreadableReason) -> QuarantinedRow:
    return QuarantinedRow(row.message.id, row.app_id, row.message.chat_id, reason)


@attrs.frozen
class BatchSizing:
    """How many dirty messages one batch takes, adapted so that each batch stays within
    a time budget: a batch over budget halves the size, a full batch under half the
    budget doubles it, within [minimum, maximum]."""

    budget_seconds: float = 0.025
    initial: int = 64
    minimum: int = 1
    maximum: int = 256  # measured: larger batches overshoot 25 ms on FTS5 merges

    def next_size(self, size: int, duration_seconds: float, *, full: bool) -> int:
        if duration_seconds > self.budget_seconds:
            return max(self.minimum, size // 2)
        if full and duration_seconds < self.budget_seconds / 2:
            return min(self.maximum, size * 2)
        return size
