"""`InMemoryMessageRepo`: the read side over an `InMemoryDatabase`."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from chat_recall.adapters.memory.database import InMemoryDatabase, MessageRow
from chat_recall.domain.errors import NotFound
from chat_recall.domain.messages import Role
from chat_recall.domain.model import (
    AppId,
    Chat,
    ChatId,
    MessageId,
    MessageWindow,
    SourceRow,
    StoredMessage,
)

KNOWN_ROLES = frozenset(Role.values())


def _stored(row: MessageRow) -> StoredMessage:
    return StoredMessage(
        row.id, row.chat_id, Role(row.role), row.content, row.created_at, row.is_compaction_summary
    )


@attrs.define
class InMemoryMessageRepo:
    database: InMemoryDatabase

    def chat(self, app_id: AppId, chat_id: ChatId) -> Chat:
        with self.database.lock:
            row = self.database.chats.get(chat_id)
            if row is None or row.app_id != app_id:
                raise NotFound()
            return Chat(row.id, row.app_id, row.title, row.created_at)

    def source_rows(self, message_ids: Sequence[MessageId]) -> list[SourceRow]:
        rows = []
        with self.database.lock:
            for message_id in sorted(set(message_ids)):
                message = self.database.messages.get(message_id)
                if message is None or message.role not in KNOWN_ROLES:
                    continue
                chat = self.database.chats.get(message.chat_id)
                if chat is None:
                    continue
                rows.append(SourceRow(_stored(message), chat.app_id, chat.title))
        return rows

    def _ordered(
        self, app_id: AppId, chat_id: ChatId, before_message_id: MessageId | None
    ) -> list[MessageRow]:
        """The chat's visible messages in (created_at, id) order, within the snapshot."""
        chat = self.database.chats.get(chat_id)
        if chat is None or chat.app_id != app_id:
            return []
        rows = sorted(
            (m for m in self.database.messages.values() if m.chat_id == chat_id),
            key=lambda m: (m.created_at, m.id),
        )
        rows = [m for m in rows if m.role in KNOWN_ROLES]
        cutoff = self.database.messages.get(before_message_id or -1)
        if cutoff is not None and cutoff.chat_id == chat_id:
            key = (cutoff.created_at, cutoff.id)
            rows = [m for m in rows if (m.created_at, m.id) < key]
        return rows

    def page(
        self,
        app_id: AppId,
        chat_id: ChatId,
        offset: int,
        limit: int,
        *,
        before_message_id: MessageId | None = None,
    ) -> MessageWindow:
        with self.database.lock:
            self.chat(app_id, chat_id)
            rows = self._ordered(app_id, chat_id, before_message_id)
        window = rows[offset : offset + limit]
        return MessageWindow(
            tuple(_stored(m) for m in window), offset > 0, len(rows) > offset + limit
        )

    def around(
        self,
        app_id: AppId,
        chat_id: ChatId,
        message_id: MessageId,
        before: int,
        after: int,
        *,
        before_message_id: MessageId | None = None,
    ) -> MessageWindow:
        with self.database.lock:
            rows = self._ordered(app_id, chat_id, before_message_id)
        position = next((i for i, m in enumerate(rows) if m.id == message_id), None)
        if position is None:
            raise NotFound()
        start = max(position - before, 0)
        window = rows[start : position + after + 1]
        return MessageWindow(
            tuple(_stored(m) for m in window), start > 0, position + after + 1 < len(rows)
        )

    def next_message_ids(
        self, app_id: AppId, message_ids: Sequence[MessageId]
    ) -> dict[MessageId, MessageId]:
        following: dict[MessageId, MessageId] = {}
        with self.database.lock:
            for message_id in message_ids:
                message = self.database.messages.get(message_id)
                if message is None:
                    continue
                rows = self._ordered(app_id, message.chat_id, None)
                key = (message.created_at, message.id)
                later = [m for m in rows if (m.created_at, m.id) > key]
                if later and any(m.id == message_id for m in rows):
                    following[message_id] = later[0].id
        return following

    def last_message_at(self, app_id: AppId, chat_ids: Sequence[ChatId]) -> dict[ChatId, int]:
        wanted = set(chat_ids)
        latest: dict[ChatId, int] = {}
        with self.database.lock:
            for message in self.database.messages.values():
                chat = self.database.chats.get(message.chat_id)
                if message.chat_id in wanted and chat is not None and chat.app_id == app_id:
                    latest[message.chat_id] = max(
                        latest.get(message.chat_id, message.created_at), message.created_at
                    )
        return latest
