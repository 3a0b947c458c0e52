"""`SqliteMessageRepo`: the read side of the host's chats and messages.

Every statement that takes an app id joins `chats` and filters on it, so scope is
enforced in storage, never checked afterwards. The provider transcript column is never
selected: every statement names its columns.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import attrs

from chat_recall.adapters.sqlite.database import SqliteDatabase
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

KNOWN_ROLES = Role.values()


@attrs.define
class SqliteMessageRepo:
    database: SqliteDatabase
    _columns: str = attrs.field(init=False)
    _scoped_from: str = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        s = self.database.schema
        self._columns = (
            f"m.{s.q('message_id')}, m.{s.q('message_chat_id')}, m.{s.q('message_role')}, "
            f"m.{s.q('message_content')}, m.{s.q('message_created_at')}, "
            f"{s.compaction_expression('m')}"
        )
        self._scoped_from = (
            f"{s.q('messages')} AS m JOIN {s.q('chats')} AS c "
            f"ON c.{s.q('chat_id')} = m.{s.q('message_chat_id')}"
        )

    def _order(self, direction: str = "ASC") -> str:
        s = self.database.schema
        return f"m.{s.q('message_created_at')} {direction}, m.{s.q('message_id')} {direction}"

    def _key(self) -> str:
        s = self.database.schema
        return f"(m.{s.q('message_created_at')}, m.{s.q('message_id')})"

    def chat(self, app_id: AppId, chat_id: ChatId) -> Chat:
        s = self.database.schema
        with self.database.reading() as connection:
            row = connection.execute(
                f"SELECT {s.q('chat_id')}, {s.q('chat_app_id')}, {s.q('chat_title')}, "
                f"{s.q('chat_created_at')} FROM {s.q('chats')} "
                f"WHERE {s.q('chat_id')} = ? AND {s.q('chat_app_id')} = ?",
                (chat_id, app_id),
            ).fetchone()
        if row is None:
            raise NotFound()
        return Chat(row[0], row[1], row[2], int(row[3] or 0))

    def source_rows(self, message_ids: Sequence[MessageId]) -> list[SourceRow]:
        if not message_ids:
            return []
        s = self.database.schema
        marks = ", ".join("?" for _ in message_ids)
        roles = ", ".join("?" for _ in KNOWN_ROLES)
        with self.database.reading() as connection:
            rows = connection.execute(
                f"SELECT {self._columns}, c.{s.q('chat_app_id')}, c.{s.q('chat_title')} "
                f"FROM {self._scoped_from} "
                f"WHERE m.{s.q('message_id')} IN ({marks}) "
                f"AND m.{s.q('message_role')} IN ({roles}) "
                f"ORDER BY m.{s.q('message_id')}",
                (*message_ids, *KNOWN_ROLES),
            ).fetchall()
        return [SourceRow(_message(row), row[6], row[7]) for row in rows]

    def _cutoff(
        self,
        connection: sqlite3.Connection,
        app_id: AppId,
        chat_id: ChatId,
        before_message_id: MessageId | None,
    ) -> tuple[int, int] | None:
        if before_message_id is None:
            return None
        s = self.database.schema
        row = connection.execute(
            f"SELECT m.{s.q('message_created_at')}, m.{s.q('message_id')} FROM {self._scoped_from} "
            f"WHERE m.{s.q('message_id')} = ? AND m.{s.q('message_chat_id')} = ? "
            f"AND c.{s.q('chat_app_id')} = ?",
            (before_message_id, chat_id, app_id),
        ).fetchone()
        return None if row is None else (row[0], row[1])

    def _select(
        self,
        connection: sqlite3.Connection,
        app_id: AppId,
        chat_id: ChatId,
        conditions: Sequence[tuple[str, tuple[object, ...]]],
        tail: str,
        tail_parameters: tuple[object, ...],
    ) -> list[StoredMessage]:
        s = self.database.schema
        roles = ", ".join("?" for _ in KNOWN_ROLES)
        where = [
            f"m.{s.q('message_chat_id')} = ?",
            f"c.{s.q('chat_app_id')} = ?",
            f"m.{s.q('message_role')} IN ({roles})",
        ]
        parameters: list[object] = [chat_id, app_id, *KNOWN_ROLES]
        for clause, values in conditions:
            where.append(clause)
            parameters.extend(values)
        rows = connection.execute(
            f"SELECT {self._columns} FROM {self._scoped_from} WHERE {' AND '.join(where)} {tail}",
            (*parameters, *tail_parameters),
        ).fetchall()
        return [_message(row) for row in rows]

    def page(
        self,
        app_id: AppId,
        chat_id: ChatId,
        offset: int,
        limit: int,
        *,
        before_message_id: MessageId | None = None,
    ) -> MessageWindow:
        self.chat(app_id, chat_id)
        with self.database.reading() as connection:
            cutoff = self._cutoff(connection, app_id, chat_id, before_message_id)
            conditions = [] if cutoff is None else [(f"{self._key()} < (?, ?)", cutoff)]
            rows = self._select(
                connection,
                app_id,
                chat_id,
                conditions,
                f"ORDER BY {self._order()} LIMIT ? OFFSET ?",
                (limit + 1, offset),
            )
        return MessageWindow(tuple(rows[:limit]), offset > 0, len(rows) > limit)

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
        s = self.database.schema
        with self.database.reading() as connection:
            cutoff = self._cutoff(connection, app_id, chat_id, before_message_id)
            snapshot = [] if cutoff is None else [(f"{self._key()} < (?, ?)", cutoff)]
            target = self._select(
                connection,
                app_id,
                chat_id,
                [(f"m.{s.q('message_id')} = ?", (message_id,)), *snapshot],
                "",
                (),
            )
            if not target:
                raise NotFound()
            key = (target[0].created_at, target[0].id)
            earlier = self._select(
                connection,
                app_id,
                chat_id,
                [(f"{self._key()} < (?, ?)", key)],
                f"ORDER BY {self._order('DESC')} LIMIT ?",
                (before + 1,),
            )
            later = self._select(
                connection,
                app_id,
                chat_id,
                [(f"{self._key()} > (?, ?)", key), *snapshot],
                f"ORDER BY {self._order()} LIMIT ?",
                (after + 1,),
            )
        messages = (*reversed(earlier[:before]), target[0], *later[:after])
        return MessageWindow(messages, len(earlier) > before, len(later) > after)

    def next_message_ids(
        self, app_id: AppId, message_ids: Sequence[MessageId]
    ) -> dict[MessageId, MessageId]:
        if not message_ids:
            return {}
        s = self.database.schema
        mid, mchat = s.q("message_id"), s.q("message_chat_id")
        created, role = s.q("message_created_at"), s.q("message_role")
        marks = ", ".join("?" for _ in message_ids)
        roles = ", ".join("?" for _ in KNOWN_ROLES)
        with self.database.reading() as connection:
            rows = connection.execute(
                f"""
                SELECT m.{mid}, (
                    SELECT n.{mid} FROM {s.q("messages")} AS n
                    WHERE n.{mchat} = m.{mchat} AND n.{role} IN ({roles})
                      AND (n.{created}, n.{mid}) > (m.{created}, m.{mid})
                    ORDER BY n.{created}, n.{mid} LIMIT 1
                )
                FROM {self._scoped_from}
                WHERE m.{mid} IN ({marks}) AND c.{s.q("chat_app_id")} = ?
                """,
                (*KNOWN_ROLES, *message_ids, app_id),
            ).fetchall()
        return {row[0]: row[1] for row in rows if row[1] is not None}

    def last_message_at(self, app_id: AppId, chat_ids: Sequence[ChatId]) -> dict[ChatId, int]:
        if not chat_ids:
            return {}
        s = self.database.schema
        marks = ", ".join("?" for _ in chat_ids)
        with self.database.reading() as connection:
            rows = connection.execute(
                f"SELECT m.{s.q('message_chat_id')}, max(m.{s.q('message_created_at')}) "
                f"FROM {self._scoped_from} "
                f"WHERE m.{s.q('message_chat_id')} IN ({marks}) AND c.{s.q('chat_app_id')} = ? "
                f"GROUP BY m.{s.q('message_chat_id')}",
                (*chat_ids, app_id),
            ).fetchall()
        return {row[0]: int(row[1]) for row in rows}


def _message(row: Sequence[object]) -> StoredMessage:
    return StoredMessage(
        id=int(row[0]),  # type: ignore[call-overload]
        chat_id=int(row[1]),  # type: ignore[call-overload]
        role=Role(row[2]),
        content=str(row[3] or ""),
        created_at=int(row[4] or 0),  # type: ignore[call-overload]
        is_compaction_summary=bool(row[5]),
    )
