"""JSON Lines import into the host tables (standalone use).

Each line is one object: a chat `{"type": "chat", "id", "app_id", "title", "created_at"}`
or a message `{"type": "message", "id", "chat_id", "role", "content", "created_at",
"is_compaction_summary"}`; ids are kept when given. Lines are written in batches, each
line inside its own savepoint: a bad line is reported with its number and nothing of it
is written, while the good lines around it are.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any, Literal

import attrs
import cattrs

from chat_recall.adapters.sqlite.database import SqliteDatabase
from chat_recall.domain.messages import Role

BATCH_LINES = 500


def _non_negative(instance: object, attribute: Any, value: Any) -> None:
    if value is not None and value < 0:
        raise ValueError(f"{attribute.name} must not be negative")


@attrs.frozen
class ChatLine:
    type: Literal["chat"]
    app_id: int
    created_at: int = attrs.field(validator=_non_negative)
    id: int | None = attrs.field(default=None, validator=_non_negative)
    title: str | None = None


@attrs.frozen
class MessageLine:
    type: Literal["message"]
    chat_id: int
    role: Literal["user", "assistant"]
    content: str
    created_at: int = attrs.field(validator=_non_negative)
    id: int | None = attrs.field(default=None, validator=_non_negative)
    is_compaction_summary: bool = False


def _strict(kind: type) -> Any:
    def check(value: Any, _: type) -> Any:
        if type(value) is not kind:
            raise ValueError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    return check


_CONVERTER = cattrs.Converter(forbid_extra_keys=True)
for _kind in (int, str, bool):
    _CONVERTER.register_structure_hook(_kind, _strict(_kind))


@attrs.frozen
class ImportReport:
    chats: int = 0
    messages: int = 0
    errors: tuple[str, ...] = ()


def parse_line(text: str) -> ChatLine | MessageLine:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("a line must be a JSON object")
    kind = data.get("type")
    if kind == "chat":
        return _CONVERTER.structure(data, ChatLine)
    if kind == "message":
        return _CONVERTER.structure(data, MessageLine)
    raise ValueError('"type" must be "chat" or "message"')


def _reason(error: Exception) -> str:
    if isinstance(error, cattrs.ClassValidationError):
        return "; ".join(cattrs.transform_error(error))
    return str(error)


def _write(
    connection: sqlite3.Connection, database: SqliteDatabase, line: ChatLine | MessageLine
) -> None:
    s = database.schema
    if isinstance(line, ChatLine):
        connection.execute(
            f"INSERT INTO {s.q('chats')}({s.q('chat_id')}, {s.q('chat_app_id')}, "
            f"{s.q('chat_title')}, {s.q('chat_created_at')}) VALUES (?, ?, ?, ?)",
            (line.id, line.app_id, line.title, line.created_at),
        )
        return
    exists = connection.execute(
        f"SELECT 1 FROM {s.q('chats')} WHERE {s.q('chat_id')} = ?", (line.chat_id,)
    ).fetchone()
    if not exists:
        raise ValueError(f"chat {line.chat_id} does not exist (import its chat line first)")
    columns = [
        s.q("message_id"),
        s.q("message_chat_id"),
        s.q("message_role"),
        s.q("message_content"),
        s.q("message_created_at"),
    ]
    values: list[object] = [
        line.id,
        line.chat_id,
        Role(line.role).value,
        line.content,
        line.created_at,
    ]
    if s.message_is_compaction_summary is not None:
        columns.append(s.q("message_is_compaction_summary"))
        values.append(int(line.is_compaction_summary))
    connection.execute(
        f"INSERT INTO {s.q('messages')}({', '.join(columns)}) "
        f"VALUES ({', '.join('?' for _ in values)})",
        values,
    )


def import_lines(database: SqliteDatabase, lines: Iterable[str]) -> ImportReport:
    chats = messages = 0
    errors: list[str] = []
    batch: list[tuple[int, str]] = []

    def flush() -> None:
        nonlocal chats, messages
        with database.writing() as connection:
            for number, text in batch:
                connection.execute("SAVEPOINT chat_recall_line")
                try:
                    line = parse_line(text)
                    _write(connection, database, line)
                except (ValueError, TypeError, sqlite3.Error, cattrs.BaseValidationError) as error:
                    connection.execute("ROLLBACK TO chat_recall_line")
                    errors.append(f"line {number}: {_reason(error)}")
                else:
                    if isinstance(line, ChatLine):
                        chats += 1
                    else:
                        messages += 1
                connection.execute("RELEASE chat_recall_line")
        batch.clear()

    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        batch.append((number, text))
        if len(batch) >= BATCH_LINES:
            flush()
    if batch:
        flush()
    return ImportReport(chats, messages, tuple(errors))
