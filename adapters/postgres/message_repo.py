"""`PostgresMessageRepo`: the read side of the host's chats and messages.

Every statement that takes an app id joins `chats` and filters on it (scope enforced in
storage); every statement names its columns (the provider transcript is never read);
each runs in a READ ONLY transaction, retried on a lost connection.

Host values reach the domain through `StoredMessage.from_host` / `Chat.from_host`:
PostgreSQL columns are typed, so a time may come as a number, text, or a timestamp
(handed over as ISO 8601 text), and `host_value` maps the driver's types onto the
domain's `HostValue`. Keysets compare the stored (created_at, id) in SQL.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Sequence
from typing import Any

import attrs
import psycopg

from chat_recall.adapters.postgres.database import PostgresDatabase
from chat_recall.domain.errors import NotFound
from chat_recall.domain.host_values import (
    READ_HEAD_BYTES,
    READ_TAIL_BYTES,
    CutText,
    HostValue,
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

KNOWN_ROLES = list(Role.values())
NUMERIC_TYPES = frozenset({"smallint", "integer", "bigint", "numeric", "real", "double precision"})


def host_value(value: object) -> HostValue:
    """A value as psycopg returns it -> the domain's `HostValue`."""
    if value is None or isinstance(value, int | float | str | bytes):
        return value
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    if isinstance(value, memoryview | bytearray):
        return bytes(value)
    return str(value)


def compaction_flag(expression: str | None) -> str:
    """true or false whatever the host's flag column holds (boolean, number, text)."""
    if expression is None:
        return "false"
    return f"({expression} IS NOT NULL AND {expression}::text NOT IN ('0', 'false', 'f', ''))"


@attrs.define
class PostgresMessageRepo:
    database: PostgresDatabase
    _columns: str = attrs.field(init=False)
    _scoped_from: str = attrs.field(init=False)
    # read_chat's columns: a text over the read limit comes as its first and last bytes
    # (UTF-8, cut by the server at the positions every adapter cuts; see `CutText`).
    _window_columns: str = attrs.field(init=False)
    _time_type: str | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        s = self.database.schema
        flag = (
            None
            if s.message_is_compaction_summary is None
            else f"m.{s.q('message_is_compaction_summary')}"
        )
        self._columns = (
            f"m.{s.q('message_id')}, m.{s.q('message_chat_id')}, {s.role_expression('m')}, "
            f"m.{s.q('message_content')}, m.{s.q('message_created_at')}, "
            f"{compaction_flag(flag)}"
        )
        content = f"m.{s.q('message_content')}"
        limit = READ_HEAD_BYTES + READ_TAIL_BYTES
        long_text = (
            f"pg_typeof({content}) IN ('text'::regtype, 'character varying'::regtype) "
            f"AND octet_length({content}::text) > {limit}"
        )
        utf8 = f"convert_to({content}::text, 'UTF8')"
        self._window_columns = (
            f"m.{s.q('message_id')}, m.{s.q('message_chat_id')}, {s.role_expression('m')}, "
            f"CASE WHEN {long_text} THEN NULL ELSE {content} END, "
            f"m.{s.q('message_created_at')}, {compaction_flag(flag)}, "
            f"CASE WHEN {long_text} THEN octet_length({content}::text) END, "
            f"CASE WHEN {long_text} THEN substring({utf8} FROM 1 FOR {READ_HEAD_BYTES}) END, "
            f"CASE WHEN {long_text} THEN substring({utf8} "
            f"FROM octet_length({content}::text) - {READ_TAIL_BYTES - 1}) END"
        )
        self._scoped_from = (
            f"{s.q('messages')} AS m JOIN {s.q('chats')} AS c "
            f"ON c.{s.q('chat_id')} = m.{s.q('message_chat_id')}"
        )

    def never_indexed(self, roles_shown: int = 5) -> list[tuple[str, int]]:
        """Host messages this repo never reads, so no index holds them, as (why, how
        many): each role other than `KNOWN_ROLES` (the most frequent `roles_shown`),
        and messages whose chat does not exist. As `SqliteMessageRepo.never_indexed`:
        a scan of the host's messages, for `chat-recall status` only."""
        s = self.database.schema
        role, mchat = s.role_expression("m"), f"m.{s.q('message_chat_id')}"

        def count(connection: psycopg.Connection[Any]) -> list[tuple[str, int]]:
            by_role = connection.execute(
                f"SELECT left(quote_nullable({role}::text), 40), count(*) "
                f"FROM {s.q('messages')} AS m "
                f"WHERE {role}::text <> ALL(%(roles)s) OR {role} IS NULL "
                "GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT %(shown)s",
                {"roles": KNOWN_ROLES, "shown": roles_shown},
            ).fetchall()
            chatless = connection.execute(
                f"SELECT count(*) FROM {s.q('messages')} AS m "
                f"WHERE {role}::text = ANY(%(roles)s) AND NOT EXISTS "
                f"(SELECT 1 FROM {s.q('chats')} AS c WHERE c.{s.q('chat_id')} = {mchat})",
                {"roles": KNOWN_ROLES},
            ).fetchone()
            found = [(f"role {quoted} is not indexed", int(n)) for quoted, n in by_role]
            if chatless and chatless[0]:
                found.append(("its chat does not exist", int(chatless[0])))
            return found

        return self.database.read(count, snapshot=True)

    def _order(self, direction: str = "ASC") -> str:
        s = self.database.schema
        return f"m.{s.q('message_created_at')} {direction}, m.{s.q('message_id')} {direction}"

    def _key(self) -> str:
        s = self.database.schema
        return f"(m.{s.q('message_created_at')}, m.{s.q('message_id')})"

    def _key_of(self, parameter: str) -> str:
        s = self.database.schema
        return (
            f"(SELECT k.{s.q('message_created_at')}, k.{s.q('message_id')} "
            f"FROM {s.q('messages')} AS k WHERE k.{s.q('message_id')} = %({parameter})s)"
        )

    def source_fingerprint(self) -> str:
        return f"postgres:{self.database.schema.fingerprint()}"

    def _message(self, row: Sequence[Any]) -> StoredMessage:
        return StoredMessage.from_host(
            id=MessageId(int(row[0])),
            chat_id=ChatId(int(row[1])),
            role=Role(row[2]),
            content=host_value(row[3]),
            created_at=host_value(row[4]),
            is_compaction_summary=bool(row[5]),
            timestamps=self.database.schema.timestamps,
        )

    def chat(self, app_id: AppId, chat_id: ChatId) -> Chat:
        s = self.database.schema
        row = self.database.read(
            lambda c: c.execute(
                f"SELECT {s.q('chat_id')}, {s.q('chat_app_id')}, {s.q('chat_title')}, "
                f"{s.q('chat_created_at')} FROM {s.q('chats')} "
                f"WHERE {s.q('chat_id')} = %s AND {s.q('chat_app_id')} = %s",
                (chat_id, app_id),
            ).fetchone()
        )
        if row is None:
            raise NotFound()
        return Chat.from_host(
            ChatId(int(row[0])),
            AppId(int(row[1])),
            host_value(row[2]),
            host_value(row[3]),
            s.timestamps,
        )

    def source_rows(self, message_ids: Sequence[MessageId]) -> list[SourceRow]:
        if not message_ids:
            return []
        s = self.database.schema
        rows = self.database.read(
            lambda c: c.execute(
                f"SELECT {self._columns}, c.{s.q('chat_app_id')}, c.{s.q('chat_title')} "
                f"FROM {self._scoped_from} "
                f"WHERE m.{s.q('message_id')} = ANY(%s) AND {s.role_expression('m')} = ANY(%s) "
                f"ORDER BY m.{s.q('message_id')}",
                (list(message_ids), KNOWN_ROLES),
            ).fetchall()
        )
        found = []
        for row in rows:
            chat = Chat.from_host(
                ChatId(int(row[1])), AppId(int(row[6])), host_value(row[7]), None, s.timestamps
            )
            found.append(SourceRow(self._message(row), chat.app_id, chat.title, chat.title_problem))
        return found

    def _select(
        self,
        connection: psycopg.Connection[Any],
        app_id: AppId,
        chat_id: ChatId,
        conditions: Sequence[str],
        tail: str,
        parameters: dict[str, object],
    ) -> list[StoredMessage]:
        s = self.database.schema
        where = [
            f"m.{s.q('message_chat_id')} = %(chat)s",
            f"c.{s.q('chat_app_id')} = %(app)s",
            f"{s.role_expression('m')} = ANY(%(roles)s)",
            *conditions,
        ]
        rows = connection.execute(
            f"SELECT {self._window_columns} FROM {self._scoped_from} "
            f"WHERE {' AND '.join(where)} {tail}",
            {"chat": chat_id, "app": app_id, "roles": KNOWN_ROLES, **parameters},
        ).fetchall()
        return [self._windowed(row) for row in rows]

    def _windowed(self, row: Sequence[Any]) -> StoredMessage:
        message = self._message(row)
        if row[6] is None:
            return message
        cut = CutText(bytes(row[7]), bytes(row[8]), int(row[6]), "utf-8")
        return StoredMessage.from_host(
            id=message.id,
            chat_id=message.chat_id,
            role=message.role,
            content=cut,
            created_at=host_value(row[4]),
            is_compaction_summary=message.is_compaction_summary,
            timestamps=self.database.schema.timestamps,
        )

    def _snapshot(
        self,
        connection: psycopg.Connection[Any],
        app_id: AppId,
        chat_id: ChatId,
        before_message_id: MessageId | None,
    ) -> list[str]:
        """The condition keeping only messages before the in-flight one (none when it is
        not a message of this chat of this app)."""
        if before_message_id is None:
            return []
        s = self.database.schema
        row = connection.execute(
            f"SELECT 1 FROM {self._scoped_from} WHERE m.{s.q('message_id')} = %s "
            f"AND m.{s.q('message_chat_id')} = %s AND c.{s.q('chat_app_id')} = %s",
            (before_message_id, chat_id, app_id),
        ).fetchone()
        if row is None:
            return []
        return [f"{self._key()} < {self._key_of('in_flight')}"]

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

        def read(connection: psycopg.Connection[Any]) -> list[StoredMessage]:
            return self._select(
                connection,
                app_id,
                chat_id,
                self._snapshot(connection, app_id, chat_id, before_message_id),
                f"ORDER BY {self._order()} LIMIT %(limit)s OFFSET %(offset)s",
                {"limit": limit + 1, "offset": offset, "in_flight": before_message_id},
            )

        rows = self.database.read(read, snapshot=True)
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
        parameters: dict[str, object] = {"target": message_id, "in_flight": before_message_id}

        def read(
            connection: psycopg.Connection[Any],
        ) -> tuple[list[StoredMessage], list[StoredMessage], list[StoredMessage]]:
            snapshot = self._snapshot(connection, app_id, chat_id, before_message_id)
            target = self._select(
                connection,
                app_id,
                chat_id,
                [f"m.{s.q('message_id')} = %(target)s", *snapshot],
                "",
                parameters,
            )
            if not target:
                return [], [], []
            earlier = self._select(
                connection,
                app_id,
                chat_id,
                [f"{self._key()} < {self._key_of('target')}"],
                f"ORDER BY {self._order('DESC')} LIMIT %(limit)s",
                {**parameters, "limit": before + 1},
            )
            later = self._select(
                connection,
                app_id,
                chat_id,
                [f"{self._key()} > {self._key_of('target')}", *snapshot],
                f"ORDER BY {self._order()} LIMIT %(limit)s",
                {**parameters, "limit": after + 1},
            )
            return target, earlier, later

        target, earlier, later = self.database.read(read, snapshot=True)
        if not target:
            raise NotFound()
        messages = (*reversed(earlier[:before]), target[0], *later[:after])
        return MessageWindow(messages, len(earlier) > before, len(later) > after)

    def next_message_ids(
        self, app_id: AppId, message_ids: Sequence[MessageId]
    ) -> dict[MessageId, MessageId]:
        if not message_ids:
            return {}
        s = self.database.schema
        mid, mchat = s.q("message_id"), s.q("message_chat_id")
        created = s.q("message_created_at")
        rows = self.database.read(
            lambda c: c.execute(
                f"""
                SELECT m.{mid}, (
                    SELECT n.{mid} FROM {s.q("messages")} AS n
                    WHERE n.{mchat} = m.{mchat} AND {s.role_expression("n")} = ANY(%(roles)s)
                      AND (n.{created}, n.{mid}) > (m.{created}, m.{mid})
                    ORDER BY n.{created}, n.{mid} LIMIT 1
                )
                FROM {self._scoped_from}
                WHERE m.{mid} = ANY(%(ids)s) AND c.{s.q("chat_app_id")} = %(app)s
                """,
                {"roles": KNOWN_ROLES, "ids": list(message_ids), "app": app_id},
            ).fetchall()
        )
        return {MessageId(row[0]): MessageId(row[1]) for row in rows if row[1] is not None}

    def _created_at_type(self, connection: psycopg.Connection[Any]) -> str:
        if self._time_type is None:
            s = self.database.schema
            row = connection.execute(
                "SELECT format_type(a.atttypid, NULL) FROM pg_attribute AS a "
                "WHERE a.attrelid = to_regclass(%s) AND a.attname = %s",
                (s.q("messages"), s.message_created_at),
            ).fetchone()
            self._time_type = str(row[0]) if row else "text"
        return self._time_type

    def last_message_at(self, app_id: AppId, chat_ids: Sequence[ChatId]) -> dict[ChatId, int]:
        """The newest readable time per chat. A numeric column: the greatest number in
        each readable range (the greatest overall may be unreadable); any other type:
        its greatest value. The latest readable one wins."""
        if not chat_ids:
            return {}
        s = self.database.schema
        created = f"m.{s.q('message_created_at')}"

        def read(connection: psycopg.Connection[Any]) -> list[tuple[Any, ...]]:
            if self._created_at_type(connection) in NUMERIC_TYPES:
                greatest = [
                    f"max(CASE WHEN {created} BETWEEN {low} AND {high} THEN {created} END)"
                    for low, high in readable_number_ranges(s.timestamps)
                ] or ["NULL"]
            else:
                greatest = [f"max({created})"]
            return connection.execute(
                f"SELECT m.{s.q('message_chat_id')}, {', '.join(greatest)} "
                f"FROM {self._scoped_from} "
                f"WHERE m.{s.q('message_chat_id')} = ANY(%s) AND c.{s.q('chat_app_id')} = %s "
                f"GROUP BY m.{s.q('message_chat_id')}",
                (list(chat_ids), app_id),
            ).fetchall()

        latest: dict[ChatId, int] = {}
        for row in self.database.read(read):
            times = [safe_unix_seconds(host_value(value), s.timestamps) for value in row[1:]]
            readable = [time for time in times if time is not None]
            if readable:
                latest[ChatId(int(row[0]))] = max(readable)
        return latest

    def list_chats(self, query: ChatListQuery) -> ChatPage:
        """One aggregate over the app's messages of the known roles gives each chat's
        count and the oldest and newest time of each stored kind (a numeric column:
        per readable range; any other type: its least and greatest value); the page is
        chosen by `select_page`; then the page's first user messages."""
        s = self.database.schema
        created = f"m.{s.q('message_created_at')}"
        role = s.role_expression("m")

        def read(connection: psycopg.Connection[Any]) -> ChatPage:
            if self._created_at_type(connection) in NUMERIC_TYPES:
                kinds = [
                    f"CASE WHEN {created} BETWEEN {low} AND {high} THEN {created} END"
                    for low, high in readable_number_ranges(s.timestamps)
                ]
            else:
                kinds = [created]
            extremes = [f"{way}({kind})" for kind in kinds for way in ("min", "max")]
            rows = connection.execute(
                f"SELECT c.{s.q('chat_id')}, c.{s.q('chat_title')}, c.{s.q('chat_created_at')}, "
                f"a.* FROM {s.q('chats')} AS c JOIN ("
                f"SELECT m.{s.q('message_chat_id')} AS chat, count(*), {', '.join(extremes)} "
                f"FROM {self._scoped_from} "
                f"WHERE c.{s.q('chat_app_id')} = %(app)s AND {role} = ANY(%(roles)s) "
                f"GROUP BY m.{s.q('message_chat_id')}"
                f") AS a ON a.chat = c.{s.q('chat_id')} WHERE c.{s.q('chat_app_id')} = %(app)s",
                {"roles": KNOWN_ROLES, "app": query.app_id},
            ).fetchall()
            found: dict[ChatId, tuple[Any, ...]] = {}
            activities = []
            for row in rows:
                times = [safe_unix_seconds(host_value(value), s.timestamps) for value in row[5:]]
                readable = [time for time in times if time is not None]
                if readable:
                    chat_id = ChatId(int(row[0]))
                    found[chat_id] = row
                    activities.append(ChatActivity(chat_id, min(readable), max(readable)))
            picked, more = select_page(activities, query)
            summaries = []
            for activity in picked:
                row = found[activity.chat_id]
                first_user = self._select(
                    connection,
                    query.app_id,
                    activity.chat_id,
                    [f"{role} = %(user)s"],
                    f"ORDER BY {self._order()} LIMIT 1",
                    {"user": Role.USER.value},
                )
                chat = Chat.from_host(
                    activity.chat_id,
                    query.app_id,
                    host_value(row[1]),
                    host_value(row[2]),
                    s.timestamps,
                )
                summaries.append(
                    ChatSummary(
                        chat,
                        activity.first_at,
                        activity.last_at,
                        int(row[4]),
                        first_user[0] if first_user else None,
                    )
                )
            return ChatPage(tuple(summaries), more)

        return self.database.read(read, snapshot=True)
