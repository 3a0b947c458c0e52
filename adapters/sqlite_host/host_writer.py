"""`SqliteHostWriter`: writes chats and messages into the host tables, as a host would.

chat-recall itself never writes host rows while serving tools; this writer exists for
standalone use (the CLI's `import`), the demo, and the contract suites.
"""

from __future__ import annotations

import attrs

from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId, ChatId, MessageId


@attrs.define
class SqliteHostWriter:
    database: SqliteDatabase

    def create_chat(
        self, app_id: AppId, title: str | None, created_at: int, *, chat_id: ChatId | None = None
    ) -> ChatId:
        s = self.database.schema
        with self.database.writing(paced=False) as connection:
            cursor = connection.execute(
                f"INSERT INTO {s.q('chats')}({s.q('chat_id')}, {s.q('chat_app_id')}, "
                f"{s.q('chat_title')}, {s.q('chat_created_at')}) VALUES (?, ?, ?, ?)",
                (chat_id, app_id, title, created_at),
            )
            return ChatId(int(cursor.lastrowid or 0))

    def add_message(
        self,
        chat_id: ChatId,
        role: Role | str,
        content: str,
        created_at: int,
        *,
        is_compaction_summary: bool = False,
        message_id: MessageId | None = None,
    ) -> MessageId:
        s = self.database.schema
        columns = [
            s.q("message_id"),
            s.q("message_chat_id"),
            s.q("message_role"),
            s.q("message_content"),
            s.q("message_created_at"),
        ]
        values: list[object] = [
            message_id,
            chat_id,
            s.stored_role(Role.of(role)),
            content,
            created_at,
        ]
        if s.message_is_compaction_summary is not None:
            columns.append(s.q("message_is_compaction_summary"))
            values.append(int(is_compaction_summary))
        with self.database.writing(paced=False) as connection:
            cursor = connection.execute(
                f"INSERT INTO {s.q('messages')}({', '.join(columns)}) "
                f"VALUES ({', '.join('?' for _ in values)})",
                values,
            )
            return MessageId(int(cursor.lastrowid or 0))

    def update_message(self, message_id: MessageId, content: str) -> None:
        s = self.database.schema
        with self.database.writing(paced=False) as connection:
            connection.execute(
                f"UPDATE {s.q('messages')} SET {s.q('message_content')} = ? "
                f"WHERE {s.q('message_id')} = ?",
                (content, message_id),
            )

    def delete_message(self, message_id: MessageId) -> None:
        s = self.database.schema
        with self.database.writing(paced=False) as connection:
            connection.execute(
                f"DELETE FROM {s.q('messages')} WHERE {s.q('message_id')} = ?", (message_id,)
            )

    def rename_chat(self, chat_id: ChatId, title: str | None) -> None:
        s = self.database.schema
        with self.database.writing(paced=False) as connection:
            connection.execute(
                f"UPDATE {s.q('chats')} SET {s.q('chat_title')} = ? WHERE {s.q('chat_id')} = ?",
                (title, chat_id),
            )

    def delete_chat(self, chat_id: ChatId) -> None:
        s = self.database.schema
        with self.database.writing(paced=False) as connection:
            connection.execute(f"DELETE FROM {s.q('chats')} WHERE {s.q('chat_id')} = ?", (chat_id,))
