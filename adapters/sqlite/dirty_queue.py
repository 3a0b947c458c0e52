"""`SqliteDirtyQueue`: the marker tables the triggers fill."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import attrs

from chat_recall.adapters.sqlite.database import SqliteDatabase
from chat_recall.adapters.sqlite.migrations import (
    DIRTY_CHATS,
    DIRTY_MESSAGES,
    PURGE,
    QUARANTINE,
    mark_all_messages_dirty,
)
from chat_recall.domain.model import AppId, Backlog, ChatId, ChatMarker, MessageId, MessageMarker

MARK_CHUNK = 20_000


@attrs.define
class SqliteDirtyQueue:
    database: SqliteDatabase

    @staticmethod
    def clear(connection: sqlite3.Connection, markers: Sequence[MessageMarker]) -> None:
        """Inside the caller's transaction: clear message markers whose seq is
        unchanged (a newer mark of the same id keeps it dirty)."""
        connection.executemany(
            f"DELETE FROM {DIRTY_MESSAGES} WHERE message_id = ? AND seq = ?",
            [(marker.id, marker.seq) for marker in markers],
        )

    def pending_messages(self, limit: int) -> list[MessageMarker]:
        with self.database.reading() as connection:
            rows = connection.execute(
                f"SELECT message_id, seq FROM {DIRTY_MESSAGES} ORDER BY seq LIMIT ?", (limit,)
            ).fetchall()
        return [MessageMarker(MessageId(row[0]), row[1]) for row in rows]

    def pending_chats(self, limit: int) -> list[ChatMarker]:
        with self.database.reading() as connection:
            rows = connection.execute(
                f"SELECT chat_id, seq FROM {DIRTY_CHATS} ORDER BY seq LIMIT ?", (limit,)
            ).fetchall()
        return [ChatMarker(ChatId(row[0]), row[1]) for row in rows]

    def expand_chat(self, marker: ChatMarker) -> int:
        s = self.database.schema
        with self.database.writing() as connection:
            cursor = connection.execute(
                f"""
                INSERT OR REPLACE INTO {DIRTY_MESSAGES}(message_id, app_id, chat_id)
                SELECT m.{s.q("message_id")}, c.{s.q("chat_app_id")}, m.{s.q("message_chat_id")}
                FROM {s.q("messages")} AS m
                JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = m.{s.q("message_chat_id")}
                WHERE m.{s.q("message_chat_id")} = ?
                """,
                (marker.id,),
            )
            connection.execute(
                f"DELETE FROM {DIRTY_CHATS} WHERE chat_id = ? AND seq = ?",
                (marker.id, marker.seq),
            )
            return max(cursor.rowcount, 0)

    def mark_all_messages(self) -> int:
        """In chunks of MARK_CHUNK ids, each its own short transaction, so host writes
        never wait long for the lock."""
        marked = 0
        after = None
        while True:
            with self.database.writing() as connection:
                chunk = mark_all_messages_dirty(
                    connection, self.database.schema, replace=True, after=after, limit=MARK_CHUNK
                )
            if chunk is None:
                return marked
            count, after = chunk
            marked += count

    def requeue_quarantined(self) -> int:
        s = self.database.schema
        with self.database.writing() as connection:
            cursor = connection.execute(
                f"""
                INSERT OR REPLACE INTO {DIRTY_MESSAGES}(message_id, app_id, chat_id)
                SELECT m.{s.q("message_id")}, c.{s.q("chat_app_id")}, m.{s.q("message_chat_id")}
                FROM {QUARANTINE} AS q
                JOIN {s.q("messages")} AS m ON m.{s.q("message_id")} = q.message_id
                LEFT JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = m.{s.q("message_chat_id")}
                """
            )
            return max(cursor.rowcount, 0)

    def backlog(self) -> Backlog:
        with self.database.reading() as connection:
            counts = [
                connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in (DIRTY_MESSAGES, DIRTY_CHATS, PURGE)
            ]
        return Backlog(messages=counts[0], chats=counts[1], purges=counts[2])

    def pending_in_app(self, app_id: AppId, exclude_chat_id: ChatId | None) -> int:
        with self.database.reading() as connection:
            messages = connection.execute(
                f"SELECT count(*) FROM {DIRTY_MESSAGES} WHERE app_id = ? AND chat_id IS NOT ?",
                (app_id, exclude_chat_id),
            ).fetchone()[0]
            chats = connection.execute(
                f"SELECT count(*) FROM {DIRTY_CHATS} WHERE app_id = ? AND chat_id IS NOT ?",
                (app_id, exclude_chat_id),
            ).fetchone()[0]
        return int(messages) + int(chats)
