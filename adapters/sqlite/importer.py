"""JSON Lines import into the host tables (standalone use).

Each line is one object: a chat `{"type": "chat", "id", "app_id", "title", "created_at"}`
or a message `{"type": "message", "id", "chat_id", "role", "content", "created_at",
"is_compaction_summary"}`; ids are kept when given. `created_at` is Unix seconds, Unix
milliseconds (a number of 100,000,000,000 or more: no date in seconds is that far
away) or an ISO 8601 string (`2024-05-01T10:00:00Z`; without an offset it is UTC): the
domain's `auto` rule (`domain/host_values.py`). It is stored as the host mapping's
`timestamps` declares (Unix seconds by default). Lines are written in batches, each
line inside its own savepoint: a bad line is reported with its number and nothing of
it is written, while the good lines around it are. A line whose id exists already is
refused, skipped or replaced (`OnConflict`); replacing updates the row in place, so
the host's other columns and a chat's messages stay.
"""

from __future__ import annotations

import enum
import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

import attrs

from chat_recall.adapters.sqlite.database import SqliteDatabase
from chat_recall.application.conversion import structure
from chat_recall.domain.errors import ChatRecallError
from chat_recall.domain.host_values import (
    TimestampFormat,
    Unreadable,
    UnreadableReason,
    iso_time,
    unix_seconds,
)
from chat_recall.domain.messages import Role

BATCH_LINES = 500


class OnConflict(enum.Enum):
    """What a line whose id already exists does."""

    FAIL = "fail"  # refused and reported, like any bad line
    IGNORE = "ignore"  # skipped, counted
    REPLACE = "replace"  # the existing row is updated with the line's values


def _non_negative(instance: object, attribute: Any, value: Any) -> None:
    if value is not None and value < 0:
        raise ValueError(f"{attribute.name}: must not be negative (got {value})")


def _role(instance: object, attribute: Any, value: str) -> None:
    if value not in Role.values():
        allowed = " or ".join(f'"{role}"' for role in Role.values())
        raise ValueError(f"role: must be {allowed} (got {value!r})")


def _timestamp(value: Any) -> int:
    try:
        return parse_timestamp(value)
    except ValueError as error:
        raise ValueError(f"created_at: {error}") from None


@attrs.frozen
class ChatLine:
    type: Literal["chat"]
    app_id: int
    created_at: Any = attrs.field(converter=_timestamp)  # Any: the field converter reads it
    id: int | None = attrs.field(default=None, validator=_non_negative)
    title: str | None = None


@attrs.frozen
class MessageLine:
    type: Literal["message"]
    chat_id: int
    role: str = attrs.field(validator=_role)
    content: str
    created_at: Any = attrs.field(converter=_timestamp)  # Any: the field converter reads it
    id: int | None = attrs.field(default=None, validator=_non_negative)
    is_compaction_summary: bool = False


def parse_timestamp(value: Any) -> int:
    """Unix seconds from seconds, milliseconds or ISO 8601 text (the domain's `auto`
    rule, the same one the index applies to host rows)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(
            "must be Unix seconds, Unix milliseconds or an ISO 8601 string "
            f"(got {type(value).__name__})"
        )
    try:
        return unix_seconds(value, TimestampFormat.AUTO)
    except Unreadable as error:
        why = "" if error.reason is UnreadableReason.TIMESTAMP_UNPARSEABLE else " (out of range)"
        raise ValueError(
            f"{value!r} is not Unix seconds, Unix milliseconds or an ISO 8601 date and time "
            f"(e.g. 2024-05-01T10:00:00Z){why}"
        ) from None


def stored_time(seconds: int, timestamps: TimestampFormat) -> int | str:
    """A time as the host stores it (seconds unless the mapping declares otherwise)."""
    if timestamps is TimestampFormat.UNIX_MILLISECONDS:
        return seconds * 1000
    if timestamps is TimestampFormat.ISO_8601:
        return iso_time(seconds) or str(seconds)
    return seconds


@attrs.frozen
class ImportReport:
    chats: int = 0
    messages: int = 0
    ignored: int = 0  # lines whose id existed, skipped under OnConflict.IGNORE
    conflicts: int = 0  # lines refused because their id existed (OnConflict.FAIL)
    errors: tuple[str, ...] = ()
    lines: int = 0  # lines read so far
    bytes: int = 0  # UTF-8 bytes read so far


def parse_line(text: str) -> ChatLine | MessageLine:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # read with surrogateescape: the bytes were not UTF-8
        raise ValueError("the line is not valid UTF-8") from None
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("a line must be a JSON object")
    kind = data.get("type")
    if kind == "chat":
        return structure(data, ChatLine, noun="field")
    if kind == "message":
        return structure(data, MessageLine, noun="field")
    raise ValueError('"type" must be "chat" or "message"')


def _on_conflict(key: str, columns: list[str], policy: OnConflict) -> str:
    if policy is OnConflict.IGNORE:
        return f" ON CONFLICT({key}) DO NOTHING"
    if policy is OnConflict.REPLACE:
        updates = ", ".join(f"{column} = excluded.{column}" for column in columns)
        return f" ON CONFLICT({key}) DO UPDATE SET {updates}"
    return ""


def _insert(
    connection: sqlite3.Connection,
    table: str,
    key: str,
    row: Mapping[str, object],
    policy: OnConflict,
) -> bool:
    """Insert one row (quoted column -> value); False when it was skipped."""
    columns = list(row)
    others = [column for column in columns if column != key]
    cursor = connection.execute(
        f"INSERT INTO {table}({', '.join(columns)}) VALUES ({', '.join('?' for _ in row)})"
        + _on_conflict(key, others, policy),
        list(row.values()),
    )
    return cursor.rowcount > 0


_DUPLICATE = frozenset({"SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE"})


def _write(
    connection: sqlite3.Connection,
    database: SqliteDatabase,
    line: ChatLine | MessageLine,
    policy: OnConflict,
) -> bool:
    s = database.schema
    if isinstance(line, ChatLine):
        chat = {
            s.q("chat_id"): line.id,
            s.q("chat_app_id"): line.app_id,
            s.q("chat_title"): line.title,
            s.q("chat_created_at"): stored_time(line.created_at, s.timestamps),
        }
        return _insert(connection, s.q("chats"), s.q("chat_id"), chat, policy)
    exists = connection.execute(
        f"SELECT 1 FROM {s.q('chats')} WHERE {s.q('chat_id')} = ?", (line.chat_id,)
    ).fetchone()
    if not exists:
        raise ValueError(f"chat {line.chat_id} does not exist (import its chat line first)")
    message: dict[str, object] = {
        s.q("message_id"): line.id,
        s.q("message_chat_id"): line.chat_id,
        s.q("message_role"): s.stored_role(Role(line.role)),
        s.q("message_content"): line.content,
        s.q("message_created_at"): stored_time(line.created_at, s.timestamps),
    }
    if s.message_is_compaction_summary is not None:
        message[s.q("message_is_compaction_summary")] = int(line.is_compaction_summary)
    return _insert(connection, s.q("messages"), s.q("message_id"), message, policy)


def import_lines(
    database: SqliteDatabase,
    lines: Iterable[str],
    *,
    on_conflict: OnConflict = OnConflict.FAIL,
    on_batch: Callable[[ImportReport], None] | None = None,
) -> ImportReport:
    """Import the lines in batches of BATCH_LINES (one short transaction each);
    `on_batch` sees the running totals after each batch."""
    chats = messages = ignored = conflicts = read = size = 0
    errors: list[str] = []
    batch: list[tuple[int, str]] = []

    def report() -> ImportReport:
        return ImportReport(chats, messages, ignored, conflicts, tuple(errors), read, size)

    def flush() -> None:
        nonlocal chats, messages, ignored, conflicts
        with database.writing() as connection:
            for number, text in batch:
                connection.execute("SAVEPOINT chat_recall_line")
                try:
                    line = parse_line(text)
                    written = _write(connection, database, line, on_conflict)
                except sqlite3.IntegrityError as error:
                    connection.execute("ROLLBACK TO chat_recall_line")
                    if getattr(error, "sqlite_errorname", "") in _DUPLICATE:
                        conflicts += 1
                        kind = "chat" if isinstance(line, ChatLine) else "message"
                        errors.append(f"line {number}: {kind} {line.id} exists already")
                    else:
                        errors.append(f"line {number}: {error}")
                except (ValueError, TypeError, sqlite3.Error, ChatRecallError) as error:
                    connection.execute("ROLLBACK TO chat_recall_line")
                    errors.append(f"line {number}: {error}")
                else:
                    if not written:
                        ignored += 1
                    elif isinstance(line, ChatLine):
                        chats += 1
                    else:
                        messages += 1
                connection.execute("RELEASE chat_recall_line")
        batch.clear()
        if on_batch is not None:
            on_batch(report())

    for number, text in enumerate(lines, start=1):
        read = number
        size += len(text.encode("utf-8", "surrogateescape"))
        if not text.strip():
            continue
        batch.append((number, text))
        if len(batch) >= BATCH_LINES:
            flush()
    if batch:
        flush()
    return report()
