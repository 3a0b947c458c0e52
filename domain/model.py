"""Values that cross the ports: chats, stored messages, index documents, candidates."""

from __future__ import annotations

import attrs

from chat_recall.domain.messages import MessageText, Role

AppId = int
ChatId = int
MessageId = int

# Ids are signed 64-bit integers in every engine chat-recall stores them in (SQLite
# INTEGER, PostgreSQL bigint): a value outside this range can name no row.
ID_MIN = -(2**63)
ID_MAX = 2**63 - 1


def is_storable_id(value: int) -> bool:
    """Whether `value` fits the 64-bit id range every storage engine shares."""
    return ID_MIN <= value <= ID_MAX


@attrs.frozen
class Chat:
    id: ChatId
    app_id: AppId
    title: str | None
    created_at: int  # Unix seconds


@attrs.frozen
class StoredMessage:
    """A host message as the read side sees it (never its provider transcript)."""

    id: MessageId
    chat_id: ChatId
    role: Role
    content: str
    created_at: int
    is_compaction_summary: bool = False

    @property
    def text(self) -> MessageText:
        return MessageText(self.role, self.content, self.is_compaction_summary)


@attrs.frozen
class MessageWindow:
    """A contiguous run of a chat's messages in (created_at, id) order, and whether the
    chat has more on either side (within the snapshot that was asked for)."""

    messages: tuple[StoredMessage, ...]
    has_more_before: bool
    has_more_after: bool


@attrs.frozen
class SourceRow:
    """A message joined to its chat: everything the indexer needs to build a document."""

    message: StoredMessage
    app_id: AppId
    title: str | None


@attrs.frozen
class DirtyMarker:
    """A pending change. `seq` grows with every new mark of the same id, so a marker is
    cleared only if nothing marked it again since it was read."""

    id: int
    seq: int


@attrs.frozen
class IndexDocument:
    """One message as the search index holds it. `title` and `body` are index text
    (see `domain.text.index_text`)."""

    message_id: MessageId
    chat_id: ChatId
    app_id: AppId
    role: Role
    created_at: int
    is_compaction_summary: bool
    projection_truncated: bool
    title: str
    body: str


@attrs.frozen
class IndexBatch:
    """What one indexer batch writes, atomically: documents to put, message ids whose
    documents go, and the markers to clear."""

    upserts: tuple[IndexDocument, ...] = ()
    deletes: tuple[MessageId, ...] = ()
    cleared: tuple[DirtyMarker, ...] = ()


@attrs.frozen
class Candidate:
    """One ranked match from the index. `score` is the engine's relevance of the match
    (bm25 for the shipped engines): higher is better, positive for every match."""

    message_id: MessageId
    chat_id: ChatId
    role: Role
    created_at: int
    is_compaction_summary: bool
    projection_truncated: bool
    score: float


@attrs.frozen
class DocumentText:
    """A visible document's indexed title and body (index text) and its metadata."""

    message_id: MessageId
    title: str
    body: str
    chat_id: ChatId
    role: Role
    created_at: int
    is_compaction_summary: bool
    projection_truncated: bool

    def as_candidate(self, score: float) -> Candidate:
        return Candidate(
            message_id=self.message_id,
            chat_id=self.chat_id,
            role=self.role,
            created_at=self.created_at,
            is_compaction_summary=self.is_compaction_summary,
            projection_truncated=self.projection_truncated,
            score=score,
        )


@attrs.frozen
class Backlog:
    """Pending work: dirty messages, dirty chats, deleted documents not yet purged."""

    messages: int
    chats: int
    purges: int

    @property
    def is_empty(self) -> bool:
        return not (self.messages or self.chats or self.purges)


@attrs.frozen
class IndexStats:
    """Visible documents of an app, and documents the host deleted that are already
    invisible but not yet reclaimed by maintenance (engines that reclaim later: they
    may still weigh in the engine's term statistics until then; 0 elsewhere)."""

    documents: int
    unreclaimed: int = 0


@attrs.frozen
class Maintenance:
    """What one bounded maintenance step did: deleted documents reclaimed, and whether
    more housekeeping remains."""

    reclaimed: int = 0
    more: bool = False
