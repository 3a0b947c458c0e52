"""`InMemoryMessageRepo`: the read side over an `InMemoryDatabase`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from chat_recall.adapters.memory.database import InMemoryDatabase, MessageRow, stored_order
from chat_recall.domain.errors import NotFound
from chat_recall.domain.host_values import (
    CutText,
    HostValue,
    InvalidText,
    TimestampFormat,
    readable_number_ranges,
    safe_unix_seconds,
)
from chat_recall.domain.listing import (
    ChatActivity,
    ChatListQuery,
    ChatPage,
    ChatSummary,
    select_page,
)
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


def _stored(row: MessageRow, timestamps: TimestampFormat, *, window: bool = False) -> StoredMessage:
    """`window`: for read_chat, which sees a long text cut as the storage adapters cut it."""
    return StoredMessage.from_host(
        row.id,
        row.chat_id,
        Role(row.role),
        CutText.of(row.content) if window else row.content,
        row.created_at,
        row.is_compaction_summary,
        timestamps,
    )


@attrs.define
class InMemoryMessageRepo:
    database: InMemoryDatabase

    def source_fingerprint(self) -> str:
        return f"memory:{self.database.timestamps.value}"

    def chat(self, app_id: AppId, chat_id: ChatId) -> Chat:
        with self.database.lock:
            row = self.database.chats.get(chat_id)
            if row is None or row.app_id != app_id:
                raise NotFound()
            return Chat.from_host(
                row.id, row.app_id, row.title, row.created_at, self.database.timestamps
            )

    def source_rows(self, message_ids: Sequence[MessageId]) -> list[SourceRow]:
        rows = []
        db = self.database
        with db.lock:
            for message_id in sorted(set(message_ids)):
                message = db.messages.get(message_id)
                if message is None or message.role not in KNOWN_ROLES:
                    continue
                chat = db.chats.get(message.chat_id)
                if chat is None:
                    continue
                meta = Chat.from_host(chat.id, chat.app_id, chat.title, None, db.timestamps)
                rows.append(
                    SourceRow(
                        _stored(message, db.timestamps), chat.app_id, meta.title, meta.title_problem
                    )
                )
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
            key=MessageRow.order_key,
        )
        rows = [m for m in rows if m.role in KNOWN_ROLES]
        cutoff = (
            None if before_message_id is None else self.database.messages.get(before_message_id)
        )
        if cutoff is not None and cutoff.chat_id == chat_id and cutoff.role in KNOWN_ROLES:
            key = cutoff.order_key()
            rows = [m for m in rows if m.order_key() < key]
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
        timestamps = self.database.timestamps
        return MessageWindow(
            tuple(_stored(m, timestamps, window=True) for m in window),
            offset > 0,
            len(rows) > offset + limit,
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
        timestamps = self.database.timestamps
        return MessageWindow(
            tuple(_stored(m, timestamps, window=True) for m in window),
            start > 0,
            position + after + 1 < len(rows),
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
                key = message.order_key()
                later = [m for m in rows if m.order_key() > key]
                if later and any(m.id == message_id for m in rows):
                    following[message_id] = later[0].id
        return following

    def last_message_at(self, app_id: AppId, chat_ids: Sequence[ChatId]) -> dict[ChatId, int]:
        """As the SQLite adapter: the greatest number in each readable range and the
        greatest text are each converted, and the latest readable one wins."""
        wanted = set(chat_ids)
        ranges = readable_number_ranges(self.database.timestamps)
        greatest: dict[tuple[ChatId, int], tuple[Any, HostValue]] = {}
        with self.database.lock:
            for message in self.database.messages.values():
                chat = self.database.chats.get(message.chat_id)
                if message.chat_id not in wanted or chat is None or chat.app_id != app_id:
                    continue
                value = message.created_at
                _, key = stored_order(value)
                if isinstance(value, int | float):
                    slot = next((i for i, (lo, hi) in enumerate(ranges) if lo <= value <= hi), -1)
                else:
                    slot = len(ranges) if isinstance(value, str | InvalidText) else -1
                best = greatest.get((message.chat_id, slot))
                if slot >= 0 and (best is None or key > best[0]):
                    greatest[(message.chat_id, slot)] = (key, value)
        latest: dict[ChatId, int] = {}
        for (chat_id, _), (_, value) in greatest.items():
            time = safe_unix_seconds(value, self.database.timestamps)
            if time is not None:
                latest[chat_id] = max(time, latest.get(chat_id, time))
        return latest

    def list_chats(self, query: ChatListQuery) -> ChatPage:
        """As the SQLite adapter: the oldest and newest stored time of each kind (each
        readable number range, and text) per chat, of which the readable ones span
        its activity."""
        db = self.database
        ranges = readable_number_ranges(db.timestamps)
        with db.lock:
            rows: dict[ChatId, list[MessageRow]] = {
                chat.id: [] for chat in db.chats.values() if chat.app_id == query.app_id
            }
            for message in db.messages.values():
                if message.chat_id in rows and message.role in KNOWN_ROLES:
                    rows[message.chat_id].append(message)
            activities = []
            for chat_id, messages in rows.items():
                extremes: dict[int, list[MessageRow]] = {}
                for message in messages:
                    slot = _slot(message.created_at, ranges)
                    if slot is not None:
                        extremes.setdefault(slot, []).append(message)
                times = [
                    safe_unix_seconds(
                        pick(found, key=MessageRow.order_key).created_at, db.timestamps
                    )
                    for found in extremes.values()
                    for pick in (min, max)
                ]
                readable = [time for time in times if time is not None]
                if readable:
                    activities.append(ChatActivity(chat_id, min(readable), max(readable)))
            picked, more = select_page(activities, query)
            summaries = []
            for activity in picked:
                ordered = sorted(rows[activity.chat_id], key=MessageRow.order_key)
                first_user = next((m for m in ordered if m.role == Role.USER.value), None)
                chat = db.chats[activity.chat_id]
                summaries.append(
                    ChatSummary(
                        Chat.from_host(
                            chat.id, chat.app_id, chat.title, chat.created_at, db.timestamps
                        ),
                        activity.first_at,
                        activity.last_at,
                        len(ordered),
                        None
                        if first_user is None
                        else _stored(first_user, db.timestamps, window=True),
                    )
                )
        return ChatPage(tuple(summaries), more)


def _slot(value: HostValue, ranges: tuple[tuple[int, int], ...]) -> int | None:
    """Which kind of stored time a value is, as the SQL adapters probe them: the index
    of its readable number range, `len(ranges)` for text, None for any other."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return next((i for i, (low, high) in enumerate(ranges) if low <= value <= high), None)
    if isinstance(value, str | InvalidText):
        return len(ranges)
    return None
