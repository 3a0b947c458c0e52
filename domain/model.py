"""Values that cross the ports: chats, stored messages, index documents, candidates."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import NewType, TypeVar

import attrs

from chat_recall.domain.host_values import (
    HostValue,
    TimestampFormat,
    Unreadable,
    UnreadableReason,
    content_text,
    title_text,
    unix_seconds,
)
from chat_recall.domain.messages import MessageText, Role

# Distinct id types: passing a chat id where a message id is expected (or swapping
# positional ids) fails type checking. At run time they are plain ints.
AppId = NewType("AppId", int)
ChatId = NewType("ChatId", int)
MessageId = NewType("MessageId", int)

T = TypeVar("T")

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
    created_at: int | None  # Unix seconds; None when the stored time cannot be read
    title_problem: UnreadableReason | None = None  # then `title` is None

    @classmethod
    def from_host(
        cls,
        id: ChatId,
        app_id: AppId,
        title: HostValue,
        created_at: HostValue,
        timestamps: TimestampFormat,
    ) -> Chat:
        """A chat from its stored values, through the one conversion every adapter uses."""
        readable_title, title_problem = _read(title_text, title)
        seconds, _ = _read(lambda value: unix_seconds(value, timestamps), created_at)
        return cls(id, app_id, readable_title, seconds, title_problem)


@attrs.frozen
class StoredMessage:
    """A host message as the read side sees it (never its provider transcript).

    A stored value that cannot be read leaves a safe value (`content` empty,
    `created_at` None) and says why in `content_problem` / `time_problem`."""

    id: MessageId
    chat_id: ChatId
    role: Role
    content: str
    created_at: int | None
    is_compaction_summary: bool = False
    content_problem: UnreadableReason | None = None
    time_problem: UnreadableReason | None = None

    @classmethod
    def from_host(
        cls,
        id: MessageId,
        chat_id: ChatId,
        role: Role,
        content: HostValue,
        created_at: HostValue,
        is_compaction_summary: bool,
        timestamps: TimestampFormat,
    ) -> StoredMessage:
        """A message from its stored values, through the one conversion every adapter
        uses."""
        text, content_problem = _read(content_text, content)
        try:  # not through `_read`: a closure per message costs more than the time itself
            seconds, time_problem = unix_seconds(created_at, timestamps), None
        except Unreadable as unreadable:
            seconds, time_problem = None, unreadable.reason
        return cls(
            id,
            chat_id,
            role,
            text or "",
            seconds,
            is_compaction_summary,
            content_problem,
            time_problem,
        )

    @property
    def text(self) -> MessageText:
        return MessageText(self.role, self.content, self.is_compaction_summary)


def _read(
    convert: Callable[[HostValue], T], value: HostValue
) -> tuple[T | None, UnreadableReason | None]:
    try:
        return convert(value), None
    except Unreadable as unreadable:
        return None, unreadable.reason


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
    title_problem: UnreadableReason | None = None

    @property
    def problem(self) -> UnreadableReason | None:
        """The first reason this row cannot be indexed (content, time, title), if any."""
        message = self.message
        return message.content_problem or message.time_problem or self.title_problem


@attrs.frozen
class MessageMarker:
    """A pending change of a message. `seq` changes with every new mark of the same id,
    so a marker is cleared only if nothing marked it again since it was read."""

    id: MessageId
    seq: int


@attrs.frozen
class ChatMarker:
    """A pending change of a chat (title, app): all its messages are re-indexed."""

    id: ChatId
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
    documents go, rows set aside as unreadable, and the markers to clear."""

    upserts: tuple[IndexDocument, ...] = ()
    deletes: tuple[MessageId, ...] = ()
    cleared: tuple[MessageMarker, ...] = ()
    quarantined: tuple[QuarantinedRow, ...] = ()
    redactions: int = 0  # credentials redacted in the upserts (a count for telemetry)

    def without(
        self, stale: AbstractSet[MessageId], set_aside: Sequence[QuarantinedRow] = ()
    ) -> IndexBatch:
        """The batch as it was applied when the markers of `stale` were found changed
        or gone (the unit of work wrote nothing for them), and the documents of
        `set_aside` were quarantined instead of written: what an honest count counts."""
        if not stale and not set_aside:
            return self
        instead = {row.message_id for row in set_aside}
        return IndexBatch(
            upserts=tuple(
                d for d in self.upserts if d.message_id not in stale and d.message_id not in instead
            ),
            deletes=tuple(i for i in self.deletes if i not in stale),
            cleared=tuple(m for m in self.cleared if m.id not in stale),
            quarantined=tuple(r for r in self.quarantined if r.message_id not in stale)
            + tuple(set_aside),
            redactions=self.redactions,
        )


@attrs.frozen
class QuarantinedRow:
    """A host message that cannot be indexed, set aside so every other row is: its id,
    where it lives, and why (content-free). It is tried again when the host changes
    it, after a projection or mapping change, or on request (`requeue_quarantined`)."""

    message_id: MessageId
    app_id: AppId | None
    chat_id: ChatId | None
    reason: UnreadableReason


@attrs.frozen
class Quarantine:
    """The quarantined rows of the index: how many, and the first of them by id."""

    total: int
    rows: tuple[QuarantinedRow, ...] = ()


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
    """Pending work: dirty messages, dirty chats, deleted documents not yet purged.
    `unpublished`: of `messages`, those already indexed whose engine has yet to publish
    them (tantivy's staged documents): pending for search, but no indexer need take
    them again, so they are not messages still to index."""

    messages: int
    chats: int
    purges: int
    unpublished: int = 0

    @property
    def to_index(self) -> int:
        """Messages an indexer has yet to take."""
        return self.messages - self.unpublished

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
    """What one bounded maintenance step did: deleted documents reclaimed, whether more
    housekeeping remains, and how long its last write transaction kept the storage's
    writers out (`held_seconds`; 0 where it took none): the indexer leaves a gap after
    a long one, as after a batch."""

    reclaimed: int = 0
    more: bool = False
    held_seconds: float = 0.0


@attrs.frozen
class Finding:
    """One check of the derived index against what this release expects: `check` names
    it (`schema_version`, `triggers`, `registry`, `integrity`, ...), `problem` says what
    is wrong (None: it holds), `fix` how it is fixed (`repair`: `chat-recall index` or
    `repair` restore it; `rebuild`: drop and rebuild the derived index; `upgrade`: a
    newer chat-recall; `install`: chat-recall is not installed)."""

    check: str
    subject: str
    problem: str | None = None
    fix: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None
