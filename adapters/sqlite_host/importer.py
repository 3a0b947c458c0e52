"""chat-recall's JSON Lines written into the host tables of a SQLite database (the line
format: `adapters/importers/jsonl.py`).

Lines are written in batches, each line inside its own savepoint: a bad line is
reported with its number and nothing of it is written, while the good lines around it
are. A line whose id exists already is refused, skipped or replaced (`OnConflict`);
replacing updates the row in place, so the host's other columns and a chat's messages
stay.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping

from chat_recall.adapters.importers.jsonl import ChatLine, MessageLine, parse_line, stored_time
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.application.importing import LinesReport, OnConflict
from chat_recall.domain.errors import ChatRecallError
from chat_recall.domain.messages import Role

__all__ = ["BATCH_LINES", "LinesReport", "OnConflict", "import_lines"]

BATCH_LINES = 500


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
    on_batch: Callable[[LinesReport], None] | None = None,
) -> LinesReport:
    """Import the lines in batches of BATCH_LINES (one short transaction each);
    `on_batch` sees the running totals after each batch."""
    chats = messages = ignored = conflicts = read = size = 0
    errors: list[str] = []
    batch: list[tuple[int, str]] = []

    def report() -> LinesReport:
        return LinesReport(chats, messages, ignored, conflicts, tuple(errors), read, size)

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
