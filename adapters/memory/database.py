"""`InMemoryDatabase`: the state an in-memory deployment shares, like one SQLite file.

It holds the host's chats and messages, the dirty markers, the visible documents and
the per-app inverted indexes. `InMemoryHostStore` writes host rows and applies exactly
what the SQLite triggers do, so hosts can run their own test suites on it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

import attrs

from chat_recall.adapters.memory.fts import FtsTable
from chat_recall.domain.errors import InvalidArguments
from chat_recall.domain.host_values import HostValue, InvalidText, TimestampFormat
from chat_recall.domain.messages import Role
from chat_recall.domain.model import (
    AppId,
    ChatId,
    DocumentText,
    MessageId,
    MessageMarker,
    QuarantinedRow,
)


@attrs.define
class ChatRow:
    """A host chat as stored: `title` and `created_at` hold whatever the host wrote."""

    id: ChatId
    app_id: AppId
    title: HostValue
    created_at: HostValue


@attrs.define
class MessageRow:
    """A host message as stored: `content` and `created_at` hold whatever the host
    wrote (tests put odd values here, as a host could in a SQLite column)."""

    id: MessageId
    chat_id: ChatId
    role: str
    content: HostValue
    created_at: HostValue
    is_compaction_summary: bool = False
    ai_messages_json: str | None = None

    def order_key(self) -> tuple[int, object, MessageId]:
        """(created_at, id) ordered as SQLite orders stored values: NULL, then numbers,
        then text, then blobs."""
        return (*stored_order(self.created_at), self.id)


def stored_order(value: HostValue) -> tuple[int, object]:
    if value is None:
        return (0, 0)
    if isinstance(value, int | float):
        return (1, value)
    if isinstance(value, str):
        return (2, value.encode("utf-8", "surrogatepass"))
    if isinstance(value, InvalidText):
        return (2, b"")
    return (3, value)


@attrs.frozen
class DocMeta:
    app_id: AppId
    chat_id: ChatId
    role: Role
    created_at: int
    is_compaction_summary: bool
    projection_truncated: bool

    def document(self, message_id: MessageId, title: str, body: str) -> DocumentText:
        return DocumentText(
            message_id=message_id,
            title=title,
            body=body,
            chat_id=self.chat_id,
            role=self.role,
            created_at=self.created_at,
            is_compaction_summary=self.is_compaction_summary,
            projection_truncated=self.projection_truncated,
        )


@attrs.define
class DirtyEntry:
    seq: int
    app_id: AppId | None
    chat_id: ChatId | None
    adopt: bool = False  # chats: a new chat's marker (see `InMemoryDirtyQueue.expand_chat`)


@attrs.frozen
class VectorRow:
    app_id: AppId
    model_key: int
    vector: bytes


@attrs.define
class InMemoryDatabase:
    lock: threading.RLock = attrs.field(factory=threading.RLock)
    chats: dict[ChatId, ChatRow] = attrs.field(factory=dict)
    messages: dict[MessageId, MessageRow] = attrs.field(factory=dict)
    dirty_messages: dict[MessageId, DirtyEntry] = attrs.field(factory=dict)
    dirty_chats: dict[ChatId, DirtyEntry] = attrs.field(factory=dict)
    docs: dict[MessageId, DocMeta] = attrs.field(factory=dict)
    # What the host deleted: hidden from every read at once, reclaimed by maintenance
    # (the app, where known, of a record that has no document).
    deleted_messages: dict[MessageId, AppId | None] = attrs.field(factory=dict)
    deleted_chats: set[ChatId] = attrs.field(factory=set)
    fts: dict[AppId, FtsTable] = attrs.field(factory=dict)
    meta: dict[str, str] = attrs.field(factory=dict)
    claim: tuple[str, float] | None = None  # the indexer's (`DirtyQueue.claim`)
    quarantine: dict[MessageId, QuarantinedRow] = attrs.field(factory=dict)
    # The semantic layer (`InMemoryVectorStore`): the vectors by message, the documents
    # waiting for one (app, seq), and the model recorded (None: off) and its key.
    vectors: dict[MessageId, VectorRow] = attrs.field(factory=dict)
    vector_queue: dict[MessageId, tuple[AppId, int]] = attrs.field(factory=dict)
    vector_model: str | None = None
    vector_model_key: int = 0
    vector_queue_after: MessageId | None = None  # queueing after a model change
    # What imports wrote (`InMemoryImportTarget`): (kind, format, source id) -> (host id,
    # fingerprint), as the SQL engines' links table holds it.
    import_links: dict[tuple[str, str, str], tuple[int, str | None]] = attrs.field(factory=dict)
    # How the stored created_at values are read (as `HostSchema.timestamps` for SQLite).
    timestamps: TimestampFormat = TimestampFormat.AUTO
    _seq: int = 0
    _last_chat_id: int = 0
    _last_message_id: int = 0

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def next_chat_id(self) -> ChatId:
        self._last_chat_id += 1
        return ChatId(self._last_chat_id)

    def next_message_id(self) -> MessageId:
        self._last_message_id += 1
        return MessageId(self._last_message_id)

    def saw_ids(self, chat_id: ChatId | None = None, message_id: MessageId | None = None) -> None:
        if chat_id is not None:
            self._last_chat_id = max(self._last_chat_id, chat_id)
        if message_id is not None:
            self._last_message_id = max(self._last_message_id, message_id)

    # -- what the SQLite triggers do ---------------------------------------------------

    def mark_message(self, message: MessageRow) -> None:
        chat = self.chats.get(message.chat_id)
        self.dirty_messages.pop(message.id, None)
        self.dirty_messages[message.id] = DirtyEntry(
            self.next_seq(), chat.app_id if chat else None, message.chat_id
        )

    def mark_chat(self, chat: ChatRow, *, adopt: bool = False) -> None:
        self.dirty_chats.pop(chat.id, None)
        self.dirty_chats[chat.id] = DirtyEntry(self.next_seq(), chat.app_id, None, adopt)

    def clear_message_markers(self, markers: Iterable[MessageMarker]) -> set[MessageId]:
        """Clear message markers whose seq is unchanged since they were read; returns
        the ids cleared."""
        cleared: set[MessageId] = set()
        for marker in markers:
            entry = self.dirty_messages.get(marker.id)
            if entry is not None and entry.seq == marker.seq:
                del self.dirty_messages[marker.id]
                cleared.add(marker.id)
        return cleared

    def queue_vectors(self, documents: Iterable[tuple[MessageId, AppId]]) -> None:
        """What the SQLite adapter's put does: each document waits for its vector,
        with a new seq (nothing while the semantic layer is off)."""
        if self.vector_model is None:
            return
        for message_id, app_id in documents:
            self.vector_queue[message_id] = (app_id, self.next_seq())

    def forget_vectors(self, message_id: MessageId) -> None:
        self.vectors.pop(message_id, None)
        self.vector_queue.pop(message_id, None)

    def hidden(self, message_id: MessageId, meta: DocMeta) -> bool:
        """A document the host deleted (its message or its chat)."""
        return message_id in self.deleted_messages or meta.chat_id in self.deleted_chats

    def sourced(self, message_id: MessageId, chat_id: ChatId, app_id: AppId) -> bool:
        """The message exists, in that chat, of that app."""
        message = self.messages.get(message_id)
        chat = None if message is None else self.chats.get(message.chat_id)
        return (
            chat is not None
            and message is not None
            and (chat.id, chat.app_id)
            == (
                chat_id,
                app_id,
            )
        )


@attrs.define
class InMemoryHostStore:
    """Host-side writes on an `InMemoryDatabase`, with the SQLite triggers' semantics:
    inserts and relevant updates mark dirty; a delete records one deletion (message or
    chat) that hides its documents at once; chat deletes cascade without a record per
    message; a new chat's marker only adopts messages that named it before it existed."""

    database: InMemoryDatabase

    def create_chat(
        self, app_id: AppId, title: str | None, created_at: int, *, chat_id: ChatId | None = None
    ) -> ChatId:
        db = self.database
        with db.lock:
            if chat_id is not None and chat_id in db.chats:
                raise InvalidArguments(f"chat {chat_id} already exists")
            new_id = db.next_chat_id() if chat_id is None else chat_id
            db.saw_ids(chat_id=new_id)
            chat = ChatRow(new_id, app_id, title, created_at)
            db.chats[new_id] = chat
            db.mark_chat(chat, adopt=True)
            return new_id

    def add_message(
        self,
        chat_id: ChatId,
        role: Role | str,
        content: str,
        created_at: int,
        *,
        is_compaction_summary: bool = False,
        message_id: MessageId | None = None,
        ai_messages_json: str | None = None,
    ) -> MessageId:
        db = self.database
        with db.lock:
            if chat_id not in db.chats:
                raise InvalidArguments(f"chat {chat_id} does not exist")
            if message_id is not None and message_id in db.messages:
                raise InvalidArguments(f"message {message_id} already exists")
            new_id = db.next_message_id() if message_id is None else message_id
            db.saw_ids(message_id=new_id)
            message = MessageRow(
                new_id,
                chat_id,
                Role.of(role).value,
                content,
                created_at,
                is_compaction_summary,
                ai_messages_json,
            )
            db.messages[new_id] = message
            db.mark_message(message)
            return new_id

    def update_message(self, message_id: MessageId, content: str) -> None:
        db = self.database
        with db.lock:
            message = db.messages.get(message_id)
            if message is None or message.content == content:
                return
            message.content = content
            db.mark_message(message)

    def delete_message(self, message_id: MessageId) -> None:
        db = self.database
        with db.lock:
            message = db.messages.pop(message_id, None)
            if message is None or message.chat_id not in db.chats:
                return  # (a cascade: the chat's deletion record covers it)
            db.deleted_messages.setdefault(message_id, None)
            db.dirty_messages.pop(message_id, None)

    def rename_chat(self, chat_id: ChatId, title: str | None) -> None:
        db = self.database
        with db.lock:
            chat = db.chats.get(chat_id)
            if chat is None or chat.title == title:
                return
            chat.title = title
            db.mark_chat(chat)

    def delete_chat(self, chat_id: ChatId) -> None:
        db = self.database
        with db.lock:
            if db.chats.pop(chat_id, None) is None:
                return
            for message_id in [m.id for m in db.messages.values() if m.chat_id == chat_id]:
                self.delete_message(message_id)  # ON DELETE CASCADE, after the chat row
            db.deleted_chats.add(chat_id)
            db.dirty_chats.pop(chat_id, None)
