"""Writing what a careless host could store, into either adapter: text or millisecond
times, empty strings, bytes that are not UTF-8 in a TEXT column, blobs, numbers."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.memory.database import InMemoryDatabase, MessageRow
from chat_recall.adapters.sqlite_host.schema import HostSchema
from chat_recall.application.service import ChatRecall
from chat_recall.domain.host_values import InvalidText, TimestampFormat


@attrs.frozen
class NotUtf8:
    """Bytes stored as TEXT that are not valid UTF-8 (SQLite never checks)."""

    data: bytes = b"sessions \xff\xfe broken"


Stored = int | float | str | bytes | NotUtf8 | None


@attrs.define
class Storage:
    """One adapter's storage, reopened with any timestamp format."""

    kind: str
    path: Path
    memory: InMemoryDatabase = attrs.field(factory=InMemoryDatabase)
    opened: list[ChatRecall] = attrs.field(factory=list)

    def open(
        self, timestamps: TimestampFormat = TimestampFormat.AUTO, **kwargs: object
    ) -> ChatRecall:
        if self.kind == "sqlite":
            recall = bootstrap.sqlite(
                self.path,
                create_host_schema=True,
                schema=HostSchema(timestamps=timestamps),
                **kwargs,  # type: ignore[arg-type]
            )
        else:
            self.memory.timestamps = timestamps
            recall = bootstrap.in_memory(database=self.memory, **kwargs)  # type: ignore[arg-type]
        self.opened.append(recall)
        return recall

    def close(self) -> None:
        for recall in self.opened:
            recall.close()

    def insert(self, chat_id: int, role: str, content: Stored, created_at: Stored) -> int:
        """A message row exactly as stored, through the host's own write path
        (triggers in SQLite, the same marking in memory)."""
        if self.kind == "sqlite":
            with self._connection() as connection:
                cursor = connection.execute(
                    "INSERT INTO messages(chat_id, role, content, created_at) "
                    f"VALUES (?, ?, {_sql(content)}, {_sql(created_at)})",
                    (chat_id, role, *_parameters(content), *_parameters(created_at)),
                )
                return int(cursor.lastrowid or 0)
        db = self.memory
        with db.lock:
            message_id = db.next_message_id()
            row = MessageRow(message_id, chat_id, role, _memory(content), _memory(created_at))
            db.messages[message_id] = row
            db.mark_message(row)
            return message_id

    def set_content(self, message_id: int, content: Stored) -> None:
        if self.kind == "sqlite":
            with self._connection() as connection:
                connection.execute(
                    f"UPDATE messages SET content = {_sql(content)} WHERE id = ?",
                    (*_parameters(content), message_id),
                )
            return
        db = self.memory
        with db.lock:
            db.messages[message_id].content = _memory(content)
            db.mark_message(db.messages[message_id])

    def set_title(self, chat_id: int, title: Stored) -> None:
        if self.kind == "sqlite":
            with self._connection() as connection:
                connection.execute(
                    f"UPDATE chats SET title = {_sql(title)} WHERE id = ?",
                    (*_parameters(title), chat_id),
                )
            return
        db = self.memory
        with db.lock:
            db.chats[chat_id].title = _memory(title)
            db.mark_chat(db.chats[chat_id])

    def _connection(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, isolation_level=None)
        return _Closing(connection)  # type: ignore[return-value]


class _Closing:
    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def __enter__(self) -> sqlite3.Connection:
        return self.connection

    def __exit__(self, *_: object) -> None:
        self.connection.close()


def _sql(value: Stored) -> str:
    return "CAST(? AS TEXT)" if isinstance(value, NotUtf8) else "?"


def _parameters(value: Stored) -> tuple[object, ...]:
    return (value.data,) if isinstance(value, NotUtf8) else (value,)


def _memory(value: Stored) -> int | float | str | bytes | InvalidText | None:
    return InvalidText(len(value.data)) if isinstance(value, NotUtf8) else value


@pytest.fixture(params=["sqlite", "memory"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    instance = Storage(request.param, tmp_path / "host.db")
    yield instance
    instance.close()


Opener = Callable[..., ChatRecall]
