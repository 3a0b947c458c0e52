"""`PostgresHostWriter`: writes chats and messages into the host tables, as a host would
(standalone use, imports, the contract suites; never while serving tools)."""

from __future__ import annotations

from typing import Any

import attrs
import psycopg

from chat_recall.adapters.postgres.database import PostgresDatabase
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId, ChatId, MessageId


def keep_sequence_ahead(connection: psycopg.Connection[Any], table: str, column: str) -> None:
    """After a row with an explicit id: move the column's sequence (identity or serial)
    past the largest id, so the next generated id never collides."""
    connection.execute(
        f"SELECT setval(seq, GREATEST((SELECT max({column}) FROM {table}), 1)) "
        "FROM (SELECT pg_get_serial_sequence(%s, %s) AS seq) AS s WHERE seq IS NOT NULL",
        (table, column.strip('"').replace('""', '"')),
    )


@attrs.define
class PostgresHostWriter:
    database: PostgresDatabase

    def create_chat(
        self, app_id: AppId, title: str | None, created_at: int, *, chat_id: ChatId | None = None
    ) -> ChatId:
        s = self.database.schema
        columns = [s.q("chat_app_id"), s.q("chat_title"), s.q("chat_created_at")]
        values: list[object] = [app_id, title, created_at]
        if chat_id is not None:
            columns.insert(0, s.q("chat_id"))
            values.insert(0, chat_id)

        def insert(connection: psycopg.Connection[Any]) -> ChatId:
            row = connection.execute(
                f"INSERT INTO {s.q('chats')} ({', '.join(columns)}) "
                f"VALUES ({', '.join('%s' for _ in values)}) RETURNING {s.q('chat_id')}",
                values,
            ).fetchone()
            assert row is not None
            if chat_id is not None:
                keep_sequence_ahead(connection, s.q("chats"), s.q("chat_id"))
            return ChatId(int(row[0]))

        return self.database.write(insert)

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
            s.q("message_chat_id"),
            s.q("message_role"),
            s.q("message_content"),
            s.q("message_created_at"),
        ]
        values: list[object] = [chat_id, s.stored_role(Role.of(role)), content, created_at]
        if s.message_is_compaction_summary is not None:
            columns.append(s.q("message_is_compaction_summary"))
            values.append(is_compaction_summary)
        if message_id is not None:
            columns.insert(0, s.q("message_id"))
            values.insert(0, message_id)

        def insert(connection: psycopg.Connection[Any]) -> MessageId:
            row = connection.execute(
                f"INSERT INTO {s.q('messages')} ({', '.join(columns)}) "
                f"VALUES ({', '.join('%s' for _ in values)}) RETURNING {s.q('message_id')}",
                values,
            ).fetchone()
            assert row is not None
            if message_id is not None:
                keep_sequence_ahead(connection, s.q("messages"), s.q("message_id"))
            return MessageId(int(row[0]))

        return self.database.write(insert)

    def update_message(self, message_id: MessageId, content: str) -> None:
        s = self.database.schema
        self.database.write(
            lambda c: c.execute(
                f"UPDATE {s.q('messages')} SET {s.q('message_content')} = %s "
                f"WHERE {s.q('message_id')} = %s",
                (content, message_id),
            )
        )

    def delete_message(self, message_id: MessageId) -> None:
        s = self.database.schema
        self.database.write(
            lambda c: c.execute(
                f"DELETE FROM {s.q('messages')} WHERE {s.q('message_id')} = %s", (message_id,)
            )
        )

    def rename_chat(self, chat_id: ChatId, title: str | None) -> None:
        s = self.database.schema
        self.database.write(
            lambda c: c.execute(
                f"UPDATE {s.q('chats')} SET {s.q('chat_title')} = %s WHERE {s.q('chat_id')} = %s",
                (title, chat_id),
            )
        )

    def delete_chat(self, chat_id: ChatId) -> None:
        s = self.database.schema
        self.database.write(
            lambda c: c.execute(
                f"DELETE FROM {s.q('chats')} WHERE {s.q('chat_id')} = %s", (chat_id,)
            )
        )
