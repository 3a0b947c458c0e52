"""`SqlImportTarget`: the writes of an import in SQL, shared by the SQLite and
PostgreSQL engines (neither imports the other), over the links table of
`adapters/import_links.py`."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from chat_recall.adapters.host_schema import HostSchema
from chat_recall.adapters.import_links import IMPORT_LINKS
from chat_recall.adapters.importers.jsonl import stored_time
from chat_recall.application.importing import LinesReport, OnConflict
from chat_recall.domain.imports import (
    ChatChange,
    ChatSync,
    ImportedChat,
    ImportedMessage,
    LinkedChat,
    LinkedMessage,
    RefusedRecord,
    SourceApp,
    SourceFormat,
)
from chat_recall.domain.model import AppId, ChatId, MessageId

APP, CHAT, MESSAGE = "app", "chat", "message"
# A message's link key is its chat's source id, this separator and its own source id.
SEPARATOR = "\n"
AFTER_SEPARATOR = chr(ord(SEPARATOR) + 1)


@attrs.frozen
class Dialect:
    """What differs between the engines: the placeholder, how a new row's id comes
    back, and which driver errors belong to one chat (rolled back alone) rather than
    to the storage (they stop the import)."""

    placeholder: str
    insert_returning_id: Callable[[Any, str, Sequence[object], str], int]
    row_errors: tuple[type[Exception], ...]
    boolean: Callable[[bool], object]


@attrs.define
class SqlImportTarget:
    """`ImportTarget` over a SQL engine: `reading` and `writing` give a connection in a
    read-only or a write transaction; `write_lines` is the engine's JSON Lines writer."""

    schema: HostSchema
    dialect: Dialect
    reading: Callable[[], contextlib.AbstractContextManager[Any]]
    writing: Callable[[], contextlib.AbstractContextManager[Any]]
    lines_writer: Callable[
        [Iterable[str], OnConflict, Callable[[LinesReport], None] | None], LinesReport
    ]

    def _sql(self, text: str) -> str:
        return text.replace("?", self.dialect.placeholder)

    def linked_apps(self, sources: Sequence[SourceApp]) -> dict[SourceApp, AppId]:
        found: dict[SourceApp, AppId] = {}
        with self.reading() as connection:
            for source in sources:
                row = connection.execute(
                    self._sql(
                        f"SELECT target FROM {IMPORT_LINKS} "
                        "WHERE kind = ? AND format = ? AND source_id = ?"
                    ),
                    (APP, source.format.value, source.key),
                ).fetchone()
                if row is not None:
                    found[source] = AppId(int(row[0]))
        return found

    def linked_chats(
        self, format: SourceFormat, source_ids: Sequence[str]
    ) -> dict[str, LinkedChat]:
        if not source_ids:
            return {}
        s = self.schema
        marks = ", ".join("?" for _ in source_ids)
        found: dict[str, LinkedChat] = {}
        with self.reading() as connection:
            chats = connection.execute(
                self._sql(
                    f"SELECT l.source_id, l.target, c.{s.q('chat_app_id')}, l.fingerprint "
                    f"FROM {IMPORT_LINKS} AS l JOIN {s.q('chats')} AS c "
                    f"ON c.{s.q('chat_id')} = l.target "
                    f"WHERE l.kind = ? AND l.format = ? AND l.source_id IN ({marks})"
                ),
                (CHAT, format.value, *source_ids),
            ).fetchall()
            for source_id, chat_id, app_id, fingerprint in chats:
                messages = connection.execute(
                    self._sql(
                        f"SELECT l.source_id, l.target, l.fingerprint FROM {IMPORT_LINKS} AS l "
                        f"JOIN {s.q('messages')} AS m ON m.{s.q('message_id')} = l.target "
                        f"AND m.{s.q('message_chat_id')} = ? "
                        "WHERE l.kind = ? AND l.format = ? AND l.source_id > ? AND l.source_id < ? "
                        "ORDER BY l.source_id"
                    ),
                    (
                        chat_id,
                        MESSAGE,
                        format.value,
                        f"{source_id}{SEPARATOR}",
                        f"{source_id}{AFTER_SEPARATOR}",
                    ),
                ).fetchall()
                prefix = len(source_id) + len(SEPARATOR)
                found[str(source_id)] = LinkedChat(
                    ChatId(int(chat_id)),
                    AppId(int(app_id)),
                    str(fingerprint),
                    tuple(
                        LinkedMessage(str(key)[prefix:], MessageId(int(target)), str(digest))
                        for key, target, digest in messages
                    ),
                )
        return found

    def new_app_id(self) -> AppId:
        s = self.schema
        with self.reading() as connection:
            host = connection.execute(
                f"SELECT max({s.q('chat_app_id')}) FROM {s.q('chats')}"
            ).fetchone()[0]
            linked = connection.execute(
                self._sql(f"SELECT max(target) FROM {IMPORT_LINKS} WHERE kind = ?"), (APP,)
            ).fetchone()[0]
        return AppId(max(int(host or 0), int(linked or 0)) + 1)

    def apply(
        self, syncs: Sequence[ChatSync], apps: Mapping[SourceApp, AppId]
    ) -> list[RefusedRecord]:
        refused = []
        with self.writing() as connection:
            for source, app_id in apps.items():
                self._link(connection, APP, source.format, source.key, app_id, None)
            for sync in syncs:
                connection.execute("SAVEPOINT chat_recall_import")
                try:
                    self._write(connection, sync)
                except self.dialect.row_errors as error:
                    connection.execute("ROLLBACK TO SAVEPOINT chat_recall_import")
                    why = str(error).splitlines()[0] if str(error) else type(error).__name__
                    refused.append(RefusedRecord(sync.chat.where, f"not written: {why}"))
                connection.execute("RELEASE SAVEPOINT chat_recall_import")
        return refused

    def write_lines(
        self,
        lines: Iterable[str],
        on_conflict: OnConflict,
        on_batch: Callable[[LinesReport], None] | None = None,
    ) -> LinesReport:
        return self.lines_writer(lines, on_conflict, on_batch)

    # -- one chat ----------------------------------------------------------------------

    def _write(self, connection: Any, sync: ChatSync) -> None:
        chat = sync.chat
        s = self.schema
        if sync.change is ChatChange.ADDED:
            chat_id = ChatId(
                self.dialect.insert_returning_id(
                    connection,
                    self._sql(
                        f"INSERT INTO {s.q('chats')} ({s.q('chat_app_id')}, {s.q('chat_title')}, "
                        f"{s.q('chat_created_at')}) VALUES (?, ?, ?)"
                    ),
                    (sync.app_id, chat.title, stored_time(chat.created_at, s.timestamps)),
                    s.q("chat_id"),
                )
            )
        else:
            assert sync.chat_id is not None
            chat_id = sync.chat_id
            connection.execute(
                self._sql(
                    f"UPDATE {s.q('chats')} SET {s.q('chat_app_id')} = ?, {s.q('chat_title')} = ?, "
                    f"{s.q('chat_created_at')} = ? WHERE {s.q('chat_id')} = ?"
                ),
                (sync.app_id, chat.title, stored_time(chat.created_at, s.timestamps), chat_id),
            )
        for message_id in sync.remove:
            connection.execute(
                self._sql(f"DELETE FROM {s.q('messages')} WHERE {s.q('message_id')} = ?"),
                (message_id,),
            )
        for message_id, message in sync.rewrite:
            columns, values = self._message_values(message)
            assignments = ", ".join(f"{column} = ?" for column in columns)
            connection.execute(
                self._sql(
                    f"UPDATE {s.q('messages')} SET {assignments} WHERE {s.q('message_id')} = ?"
                ),
                (*values, message_id),
            )
            self._link_message(connection, chat, message, message_id)
        for message in sync.add:
            columns, values = self._message_values(message)
            new_id = self.dialect.insert_returning_id(
                connection,
                self._sql(
                    f"INSERT INTO {s.q('messages')} ({s.q('message_chat_id')}, "
                    f"{', '.join(columns)}) VALUES (?, {', '.join('?' for _ in columns)})"
                ),
                (chat_id, *values),
                s.q("message_id"),
            )
            self._link_message(connection, chat, message, new_id)
        self._link(connection, CHAT, chat.format, chat.source_id, chat_id, chat.fingerprint)

    def _message_values(self, message: ImportedMessage) -> tuple[list[str], list[object]]:
        s = self.schema
        columns = [s.q("message_role"), s.q("message_content"), s.q("message_created_at")]
        values: list[object] = [
            s.stored_role(message.role),
            message.content,
            stored_time(message.created_at, s.timestamps),
        ]
        if s.message_is_compaction_summary is not None:
            columns.append(s.q("message_is_compaction_summary"))
            values.append(self.dialect.boolean(message.is_compaction_summary))
        return columns, values

    def _link_message(
        self, connection: Any, chat: ImportedChat, message: ImportedMessage, message_id: int
    ) -> None:
        key = f"{chat.source_id}{SEPARATOR}{message.source_id}"
        self._link(connection, MESSAGE, chat.format, key, message_id, message.fingerprint)

    def _link(
        self,
        connection: Any,
        kind: str,
        format: SourceFormat,
        source_id: str,
        target: int,
        fingerprint: str | None,
    ) -> None:
        connection.execute(
            self._sql(
                f"INSERT INTO {IMPORT_LINKS} (kind, format, source_id, target, fingerprint) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, format, source_id) "
                "DO UPDATE SET target = excluded.target, fingerprint = excluded.fingerprint"
            ),
            (kind, format.value, source_id, target, fingerprint),
        )
