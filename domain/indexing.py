"""Pure indexing policy: what document a source row becomes, and the stamp that says
under which projection the documents were built."""

from __future__ import annotations

from chat_recall.domain.model import IndexDocument, SourceRow
from chat_recall.domain.projection import PROJECTION_VERSION, MarkupPolicy, project_for_search
from chat_recall.domain.text import index_text


def projection_stamp(policy: MarkupPolicy) -> str:
    """Changes whenever projection output may change: the version or the policy table."""
    return f"{PROJECTION_VERSION}:{policy.fingerprint()}"


def build_document(row: SourceRow, policy: MarkupPolicy) -> IndexDocument | None:
    """The document for a source row, or None when its projection is empty (empty
    projections are not indexed)."""
    message = row.message
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
