"""`SqliteMessageRepo`: the read side of the host's chats and messages.

Every statement that takes an app id joins `chats` and filters on it, so scope is
enforced in storage, never checked afterwards. The provider transcript column is never
selected: every statement names its columns.

Stored values reach the domain through `StoredMessage.from_host` / `Chat.from_host`
as typed raw values (`adapters/sqlite_host/host_values.py`), so an odd row (text time,
milliseconds, bytes that are not UTF-8) is a safe value or a quarantine reason, never
a failed statement. Keysets compare the stored (created_at, id) in SQL, through
subqueries, so ordering never depends on a converted value.

A chat's order is read from chat-recall's own copy of each message's (chat, created_at)
(`migrations.MESSAGE_ORDER`, kept by the triggers), joined to the host's rows by id and
chat; while an install or a repair is still filling that copy, from the host's messages
themselves (`_Order`).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path

import attrs

from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.host_values import host_value, typed
from chat_recall.adapters.sqlite_host.migrations import (
    MESSAGE_ORDER,
    META,
    ORDER_FILLED_AFTER,
    ORDER_KEEPERS,
)
from chat_recall.adapters.sqlite_host.schema import HostSchema
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
from chat_recall.domain.messages import ROLE_OF_VALUE, Role
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
# The known roles as SQL literals (plain words: no quoting can go wrong), for statements
# that test a role in many subqueries and would otherwise repeat its parameters.
KNOWN_ROLE_LITERALS = ", ".join(f"'{role}'" for role in KNOWN_ROLES)


def _packed(expression: str) -> str:
    """One value as one ASCII text, `type:hex-of-its-bytes`: a correlated subquery
    that selects it runs once (`typed` names a value twice, so SQLite would run such a
    subquery twice), and the driver never decodes its text (see `host_values`)."""
    return f"typeof({expression}) || ':' || hex(CAST({expression} AS BLOB))"


def _unpacked(packed: str | None, codec: str) -> HostValue:
    if packed is None:
        return None
    kind, _, data = packed.partition(":")
    return host_value(kind, bytes.fromhex(data), codec)


@attrs.frozen
class _Order:
    """Where the keys a chat is read in order by come from: `table` (each key column
    named in it) joined to the host's messages, the keys first (CROSS JOIN fixes the
    join order, so a read walks the keys' index in order and stops at its LIMIT)."""

    schema: HostSchema
    table: str
    id: str
    chat: str
    created: str

    @classmethod
    def copied(cls, schema: HostSchema) -> _Order:
        """chat-recall's copy, indexed by (chat_id, created_at, message_id)."""
        return cls(schema, MESSAGE_ORDER, "message_id", "chat_id", "created_at")

    @classmethod
    def host(cls, schema: HostSchema) -> _Order:
        """The host's messages themselves (while the copy is being filled)."""
        s = schema
        return cls(
            s, s.q("messages"), s.q("message_id"), s.q("message_chat_id"), s.q("message_created_at")
        )

    def rows(self, keys: str, messages: str) -> str:
        """FROM: the key rows `keys`, each joined to its host message `messages`."""
        s = self.schema
        return (
            f"{self.table} AS {keys} CROSS JOIN {s.q('messages')} AS {messages} "
            f"ON {messages}.{s.q('message_id')} = {keys}.{self.id} "
            f"AND {messages}.{s.q('message_chat_id')} = {keys}.{self.chat}"
        )

    def scoped(self) -> str:
        """FROM: keys `o`, host messages `m`, and their chats `c` (for the app)."""
        s = self.schema
        return (
            f"{self.rows('o', 'm')} JOIN {s.q('chats')} AS c "
            f"ON c.{s.q('chat_id')} = m.{s.q('message_chat_id')}"
        )

    def key(self, alias: str = "o") -> str:
        return f"({alias}.{self.created}, {alias}.{self.id})"

    def key_of(self) -> str:
        """The stored (created_at, id) of the message bound to the one parameter."""
        key = f"k.{self.created}, k.{self.id}"
        return f"(SELECT {key} FROM {self.table} AS k WHERE k.{self.id} = ?)"

    def by(self, direction: str = "ASC", alias: str = "o") -> str:
        return f"{alias}.{self.created} {direction}, {alias}.{self.id} {direction}"


@attrs.define
class SqliteMessageRepo:
    database: SqliteDatabase
    _columns: str = attrs.field(init=False)
    # `_columns` with a text content as it is (see `source_rows`)
    _text_columns: str = attrs.field(init=False)
    _scoped_from: str = attrs.field(init=False)  # host messages `m` and their chats `c`
    _copied: _Order = attrs.field(init=False)
    _host_order: _Order = attrs.field(init=False)
    # read_chat's columns: the content's type and rowid instead of its value, which is
    # read through incremental blob I/O (at most its head and tail); False when the
    # host's messages table has no rowid (WITHOUT ROWID, a view): whole values then.
    _window_columns: str = attrs.field(init=False)
    _blob_reads: bool = attrs.field(init=False, default=True)

    def __attrs_post_init__(self) -> None:
        s = self.database.schema
        self._columns = (
            f"m.{s.q('message_id')}, m.{s.q('message_chat_id')}, {s.role_expression('m')}, "
            f"{typed('m.' + s.q('message_content'))}, "
            f"{typed('m.' + s.q('message_created_at'))}, "
            f"{s.compaction_expression('m')}"
        )
        content = f"m.{s.q('message_content')}"
        self._text_columns = self._columns.replace(
            f"CAST({content} AS BLOB)",
            f"CASE WHEN typeof({content}) = 'text' THEN {content} ELSE CAST({content} AS BLOB) END",
        )
        self._window_columns = (
            f"m.{s.q('message_id')}, m.{s.q('message_chat_id')}, {s.role_expression('m')}, "
            f"typeof({content}), CASE WHEN typeof({content}) IN ('text', 'blob') THEN NULL "
            f"ELSE CAST({content} AS BLOB) END, "
            f"{typed('m.' + s.q('message_created_at'))}, "
            f"{s.compaction_expression('m')}, m.rowid"
        )
        self._scoped_from = (
            f"{s.q('messages')} AS m JOIN {s.q('chats')} AS c "
            f"ON c.{s.q('chat_id')} = m.{s.q('message_chat_id')}"
        )
        self._copied = _Order.copied(s)
        self._host_order = _Order.host(s)

    def _order_of(self, connection: sqlite3.Connection) -> _Order:
        """The copied order once it is filled and kept; the host's otherwise: an install
        or a repair still walking, or triggers that keep it missing (a host migration
        that rebuilt the messages table dropped them: writes since then are not in the
        copy until a start recreates them and walks it again)."""
        keepers = ", ".join("?" for _ in ORDER_KEEPERS)
        try:
            filled = connection.execute(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?) "
                f"AND NOT EXISTS (SELECT 1 FROM {META} WHERE key = ?) "
                "AND (SELECT count(*) FROM sqlite_master WHERE type = 'trigger' "
                f"AND name IN ({keepers})) = ?",
                (MESSAGE_ORDER, ORDER_FILLED_AFTER, *ORDER_KEEPERS, len(ORDER_KEEPERS)),
            ).fetchone()[0]
        except sqlite3.OperationalError:  # no meta table: nothing of ours to read
            filled = False
        return self._copied if filled else self._host_order

    def source_fingerprint(self) -> str:
        return f"sqlite:{self.database.schema.fingerprint()}"

    def chat(self, app_id: AppId, chat_id: ChatId) -> Chat:
        s = self.database.schema
        with self.database.reading() as connection:
            row = connection.execute(
                f"SELECT {s.q('chat_id')}, {s.q('chat_app_id')}, {typed(s.q('chat_title'))}, "
                f"{typed(s.q('chat_created_at'))} FROM {s.q('chats')} "
                f"WHERE {s.q('chat_id')} = ? AND {s.q('chat_app_id')} = ?",
                (chat_id, app_id),
            ).fetchone()
            codec = self.database.codec(connection)
        if row is None:
            raise NotFound()
        return Chat.from_host(
            ChatId(int(row[0])),
            AppId(int(row[1])),
            host_value(row[2], row[3], codec),
            host_value(row[4], row[5], codec),
            s.timestamps,
        )

    def never_indexed(self, roles_shown: int = 5) -> list[tuple[str, int]]:
        """Host messages this repo never reads, so no index holds them, as (why, how
        many): each role other than `KNOWN_ROLES` (the most frequent `roles_shown`; a
        host storing 'User' sees it here), and messages whose chat does not exist. A
        scan of the host's messages: for `chat-recall status`, not for a hot path."""
        s = self.database.schema
        role, mchat = s.role_expression("m"), f"m.{s.q('message_chat_id')}"
        marks = ", ".join("?" for _ in KNOWN_ROLES)
        with self.database.reading() as connection:
            by_role = connection.execute(
                f"SELECT substr(quote({role}), 1, 40), count(*) FROM {s.q('messages')} AS m "
                f"WHERE {role} NOT IN ({marks}) OR {role} IS NULL "
                f"GROUP BY {role} ORDER BY count(*) DESC, 1 LIMIT ?",
                (*KNOWN_ROLES, roles_shown),
            ).fetchall()
            chatless = connection.execute(
                f"SELECT count(*) FROM {s.q('messages')} AS m WHERE {role} IN ({marks}) "
                f"AND NOT EXISTS (SELECT 1 FROM {s.q('chats')} AS c "
                f"WHERE c.{s.q('chat_id')} = {mchat})",
                KNOWN_ROLES,
            ).fetchone()[0]
        found = [(f"role {quoted} is not indexed", int(count)) for quoted, count in by_role]
        if chatless:
            found.append(("its chat does not exist", int(chatless)))
        return found

    def source_rows(self, message_ids: Sequence[MessageId]) -> list[SourceRow]:
        """The rows of the messages. In a UTF-8 database a text content is read as
        text, decoded by the driver: reading it as bytes (a copy in SQLite, one in
        Python) and decoding them cost a backfill's planning process more on every
        message. The driver refuses a whole result for one content that is not valid
        UTF-8, so then the batch is read again as bytes, which tell which one it is."""
        if not message_ids:
            return []
        s = self.database.schema
        marks = ", ".join("?" for _ in message_ids)
        roles = ", ".join("?" for _ in KNOWN_ROLES)
        with self.database.reading() as connection:
            codec = self.database.codec(connection)
            columns = [self._text_columns] if codec == "utf-8" else []
            columns.append(self._columns)
            for tried, selected in enumerate(columns, start=1):
                try:
                    rows = connection.execute(
                        f"SELECT {selected}, c.{s.q('chat_app_id')}, "
                        f"{typed('c.' + s.q('chat_title'))} "
                        f"FROM {self._scoped_from} "
                        f"WHERE m.{s.q('message_id')} IN ({marks}) "
                        f"AND {s.role_expression('m')} IN ({roles}) "
                        f"ORDER BY m.{s.q('message_id')}",
                        (*message_ids, *KNOWN_ROLES),
                    ).fetchall()
                    break
                except sqlite3.OperationalError:
                    if tried == len(columns):
                        raise
        found = []
        chats: dict[tuple[object, ...], Chat] = {}  # a batch holds many messages per chat
        for row in rows:
            key = (row[1], row[8], row[9], row[10])
            chat = chats.get(key)
            if chat is None:
                chat = chats[key] = Chat.from_host(
                    ChatId(int(row[1])),
                    AppId(int(row[8])),
                    host_value(row[9], row[10], codec),
                    None,
                    s.timestamps,
                )
            message = self._message(row, codec)
            found.append(SourceRow(message, chat.app_id, chat.title, chat.title_problem))
        return found

    def _snapshot(
        self,
        connection: sqlite3.Connection,
        order: _Order,
        app_id: AppId,
        chat_id: ChatId,
        before_message_id: MessageId | None,
    ) -> list[tuple[str, tuple[object, ...]]]:
        """The condition that keeps only messages before the in-flight one (none when
        it is not a message of this chat of this app)."""
        if before_message_id is None:
            return []
        s = self.database.schema
        row = connection.execute(
            f"SELECT 1 FROM {order.scoped()} "
            f"WHERE o.{order.id} = ? AND o.{order.chat} = ? AND c.{s.q('chat_app_id')} = ?",
            (before_message_id, chat_id, app_id),
        ).fetchone()
        if row is None:
            return []
        return [(f"{order.key()} < {order.key_of()}", (before_message_id,))]

    def _select(
        self,
        connection: sqlite3.Connection,
        order: _Order,
        app_id: AppId,
        chat_id: ChatId,
        conditions: Sequence[tuple[str, tuple[object, ...]]],
        tail: str,
        tail_parameters: tuple[object, ...],
    ) -> list[StoredMessage]:
        """Messages of a read window; call inside `_one_snapshot`."""
        s = self.database.schema
        roles = ", ".join("?" for _ in KNOWN_ROLES)
        where = [
            f"o.{order.chat} = ?",
            f"c.{s.q('chat_app_id')} = ?",
            f"{s.role_expression('m')} IN ({roles})",
        ]
        parameters: list[object] = [chat_id, app_id, *KNOWN_ROLES]
        for clause, values in conditions:
            where.append(clause)
            parameters.extend(values)
        codec = self.database.codec(connection)
        if self._blob_reads:
            try:
                rows = connection.execute(
                    f"SELECT {self._window_columns} FROM {order.scoped()} "
                    f"WHERE {' AND '.join(where)} {tail}",
                    (*parameters, *tail_parameters),
                ).fetchall()
                return [self._windowed(connection, row, codec) for row in rows]
            except sqlite3.OperationalError as error:
                if not any(sign in str(error) for sign in ("rowid", "view", "blob")):
                    raise
                self._blob_reads = False  # no rowid to read by: whole values below
        rows = connection.execute(
            f"SELECT {self._columns} FROM {order.scoped()} WHERE {' AND '.join(where)} {tail}",
            (*parameters, *tail_parameters),
        ).fetchall()
        return [self._message(row, codec) for row in rows]

    def _windowed(
        self, connection: sqlite3.Connection, row: Sequence[object], codec: str
    ) -> StoredMessage:
        kind = str(row[3])
        content: HostValue
        if kind == "text":
            content = self._read_text(connection, int(row[8]), codec)  # type: ignore[call-overload]
        else:  # a blob is not text (never read); a number or NULL came whole
            content = host_value(kind, b"" if kind == "blob" else row[4], codec)  # type: ignore[arg-type]
        return StoredMessage.from_host(
            id=int(row[0]),  # type: ignore[call-overload]
            chat_id=int(row[1]),  # type: ignore[call-overload]
            role=Role(row[2]),
            content=content,
            created_at=host_value(row[5], row[6], codec),  # type: ignore[arg-type]
            is_compaction_summary=bool(row[7]),
            timestamps=self.database.schema.timestamps,
        )

    def _read_text(self, connection: sqlite3.Connection, rowid: int, codec: str) -> HostValue:
        """A stored text through incremental blob I/O: whole when short, else only its
        head and tail (see `CutText`), so reading a message costs the same whatever its size."""
        s = self.database.schema
        with connection.blobopen(s.messages, s.message_content, rowid, readonly=True) as blob:
            size = len(blob)
            if size <= READ_HEAD_BYTES + READ_TAIL_BYTES:
                return host_value("text", blob.read(), codec)
            head = blob.read(READ_HEAD_BYTES)
            blob.seek(size - READ_TAIL_BYTES)
            return CutText(head, blob.read(READ_TAIL_BYTES), size, codec)

    def _message(self, row: Sequence[object], codec: str) -> StoredMessage:
        content = row[4]
        return StoredMessage.from_host(
            id=int(row[0]),  # type: ignore[call-overload]
            chat_id=int(row[1]),  # type: ignore[call-overload]
            role=ROLE_OF_VALUE[row[2]],  # type: ignore[index]
            content=content if type(content) is str else host_value(row[3], content, codec),  # type: ignore[arg-type]
            created_at=host_value(row[5], row[6], codec),  # type: ignore[arg-type]
            is_compaction_summary=bool(row[7]),
            timestamps=self.database.schema.timestamps,
        )

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
        with self.database.reading() as connection, _one_snapshot(connection):
            order = self._order_of(connection)
            rows = self._select(
                connection,
                order,
                app_id,
                chat_id,
                self._snapshot(connection, order, app_id, chat_id, before_message_id),
                f"ORDER BY {order.by()} LIMIT ? OFFSET ?",
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
        with self.database.reading() as connection, _one_snapshot(connection):
            order = self._order_of(connection)
            snapshot = self._snapshot(connection, order, app_id, chat_id, before_message_id)
            target = self._select(
                connection,
                order,
                app_id,
                chat_id,
                [(f"o.{order.id} = ?", (message_id,)), *snapshot],
                "",
                (),
            )
            if not target:
                raise NotFound()
            earlier = self._select(
                connection,
                order,
                app_id,
                chat_id,
                [(f"{order.key()} < {order.key_of()}", (message_id,))],
                f"ORDER BY {order.by('DESC')} LIMIT ?",
                (before + 1,),
            )
            later = self._select(
                connection,
                order,
                app_id,
                chat_id,
                [(f"{order.key()} > {order.key_of()}", (message_id,)), *snapshot],
                f"ORDER BY {order.by()} LIMIT ?",
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
        marks = ", ".join("?" for _ in message_ids)
        roles = ", ".join("?" for _ in KNOWN_ROLES)
        with self.database.reading() as connection, _one_snapshot(connection):
            order = self._order_of(connection)
            rows = connection.execute(
                f"""
                SELECT o.{order.id}, (
                    SELECT n.{order.id} FROM {order.rows("n", "nm")}
                    WHERE n.{order.chat} = o.{order.chat}
                      AND {s.role_expression("nm")} IN ({roles})
                      AND {order.key("n")} > {order.key()}
                    ORDER BY {order.by(alias="n")} LIMIT 1
                )
                FROM {order.scoped()}
                WHERE o.{order.id} IN ({marks}) AND c.{s.q("chat_app_id")} = ?
                """,
                (*KNOWN_ROLES, *message_ids, app_id),
            ).fetchall()
        return {row[0]: row[1] for row in rows if row[1] is not None}

    def last_message_at(self, app_id: AppId, chat_ids: Sequence[ChatId]) -> dict[ChatId, int]:
        """The newest readable time per chat. One max() could pick a value that cannot
        be read (SQLite orders every text after every number, and a stray number may be
        out of range), so the greatest number in each readable range and the greatest
        text are each converted, and the latest readable one wins. Each is one step down
        the order's index (joining the chat's messages whole costs as much as the chat
        is long)."""
        if not chat_ids:
            return {}
        s = self.database.schema
        marks = ", ".join("?" for _ in chat_ids)
        with self.database.reading() as connection, _one_snapshot(connection):
            order = self._order_of(connection)
            created = f"o.{order.created}"

            def newest(condition: str) -> str:
                """The chat's newest time under `condition`: down its keys' index from
                the top, to the first key whose message is there."""
                return typed(
                    f"(SELECT {created} FROM {order.rows('o', 'm')} "
                    f"WHERE o.{order.chat} = c.{s.q('chat_id')} AND {condition} "
                    f"ORDER BY {created} DESC LIMIT 1)"
                )

            greatest = [
                newest(f"{created} BETWEEN {low} AND {high}")
                for low, high in readable_number_ranges(s.timestamps)
            ]
            # every text sorts after every number and before every blob
            greatest.append(newest(f"{created} >= '' AND {created} < x''"))
            rows = connection.execute(
                f"SELECT c.{s.q('chat_id')}, {', '.join(greatest)} FROM {s.q('chats')} AS c "
                f"WHERE c.{s.q('chat_id')} IN ({marks}) AND c.{s.q('chat_app_id')} = ?",
                (*chat_ids, app_id),
            ).fetchall()
            codec = self.database.codec(connection)
        latest: dict[ChatId, int] = {}
        for row in rows:
            pairs = zip(row[1::2], row[2::2], strict=True)
            times = [
                safe_unix_seconds(host_value(kind, raw, codec), s.timestamps) for kind, raw in pairs
            ]
            readable = [time for time in times if time is not None]
            if readable:
                latest[ChatId(int(row[0]))] = max(readable)
        return latest

    def list_chats(self, query: ChatListQuery) -> ChatPage:
        """The app's chats (one scan of its chats), each with the oldest and newest
        time of every stored kind (`readable_number_ranges` and text), found one step
        down the order's index each, as `last_message_at` finds the newest; the page
        is chosen by `select_page`; then the page's counts and first user messages."""
        s = self.database.schema
        role = s.role_expression("m")
        with self.database.reading() as connection, _one_snapshot(connection):
            order = self._order_of(connection)
            codec = self.database.codec(connection)
            created = f"o.{order.created}"

            def extreme(condition: str, direction: str) -> str:
                return (
                    f"(SELECT {_packed(created)} FROM {order.rows('o', 'm')} "
                    f"WHERE o.{order.chat} = c.{s.q('chat_id')} AND {condition} "
                    f"AND {role} IN ({KNOWN_ROLE_LITERALS}) "
                    f"ORDER BY {created} {direction} LIMIT 1)"
                )

            kinds = [
                f"{created} BETWEEN {low} AND {high}"
                for low, high in readable_number_ranges(s.timestamps)
            ]
            kinds.append(f"{created} >= '' AND {created} < x''")  # every text
            extremes = [extreme(kind, way) for kind in kinds for way in ("ASC", "DESC")]
            rows = connection.execute(
                f"SELECT c.{s.q('chat_id')}, {typed('c.' + s.q('chat_title'))}, "
                f"{typed('c.' + s.q('chat_created_at'))}, {', '.join(extremes)} "
                f"FROM {s.q('chats')} AS c WHERE c.{s.q('chat_app_id')} = ?",
                (query.app_id,),
            ).fetchall()
            chats: dict[ChatId, tuple[object, ...]] = {}
            activities = []
            for row in rows:
                times = [
                    safe_unix_seconds(_unpacked(value, codec), s.timestamps) for value in row[5:]
                ]
                readable = [time for time in times if time is not None]
                if readable:
                    chat_id = ChatId(int(row[0]))
                    chats[chat_id] = row
                    activities.append(ChatActivity(chat_id, min(readable), max(readable)))
            picked, more = select_page(activities, query)
            if not picked:
                return ChatPage((), more)
            marks = ", ".join("?" for _ in picked)
            counts = dict(
                connection.execute(
                    f"SELECT o.{order.chat}, count(*) FROM {order.rows('o', 'm')} "
                    f"WHERE o.{order.chat} IN ({marks}) AND {role} IN ({KNOWN_ROLE_LITERALS}) "
                    f"GROUP BY o.{order.chat}",
                    [activity.chat_id for activity in picked],
                ).fetchall()
            )
            summaries = []
            for activity in picked:
                row = chats[activity.chat_id]
                first_user = self._select(
                    connection,
                    order,
                    query.app_id,
                    activity.chat_id,
                    [(f"{role} = ?", (Role.USER.value,))],
                    f"ORDER BY {order.by()} LIMIT 1",
                    (),
                )
                chat = Chat.from_host(
                    activity.chat_id,
                    query.app_id,
                    host_value(row[1], row[2], codec),  # type: ignore[arg-type]
                    host_value(row[3], row[4], codec),  # type: ignore[arg-type]
                    s.timestamps,
                )
                summaries.append(
                    ChatSummary(
                        chat,
                        activity.first_at,
                        activity.last_at,
                        int(counts.get(activity.chat_id, 0)),
                        first_user[0] if first_user else None,
                    )
                )
        return ChatPage(tuple(summaries), more)


@attrs.frozen
class SqliteMessageRepoOpener:
    """A `MessageRepoOpener` for a database file: a planning process opens its own
    read-only connections to it (WAL readers never block the writer or the host)."""

    path: Path
    schema: HostSchema

    def open(self) -> SqliteMessageRepo:
        return SqliteMessageRepo(SqliteDatabase(self.path, self.schema))


@contextlib.contextmanager
def _one_snapshot(connection: sqlite3.Connection) -> Iterator[None]:
    """The statements and blob reads of one read window see one state of the database
    (a host commit in between cannot remove a row the window found). Inside a
    transaction the host's shared connection already has, that one is used."""
    if connection.in_transaction:
        yield
        return
    connection.execute("BEGIN DEFERRED")  # a read snapshot: no lock until it reads
    try:
        yield
    finally:
        connection.execute("COMMIT")
