"""chat-recall's JSON Lines written into the host tables of a PostgreSQL database: the
same lines (`adapters/importers/jsonl.py`), rules and report as the SQLite writer
(`adapters/sqlite_host/importer.py`), each line in its own savepoint inside batches of short
transactions."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import psycopg
from psycopg import errors as pg_errors

from chat_recall.adapters.importers.jsonl import ChatLine, MessageLine, parse_line, stored_time
from chat_recall.adapters.postgres.database import PostgresDatabase
from chat_recall.adapters.postgres.host_writer import keep_sequence_ahead
from chat_recall.application.importing import LinesReport, OnConflict
from chat_recall.domain.errors import ChatRecallError
from chat_recall.domain.messages import Role

BATCH_LINES = 500


def _insert(
    connection: psycopg.Connection[Any],
    table: str,
    key: str,
    row: dict[str, object],
    policy: OnConflict,
) -> bool:
    """Insert one row (quoted column -> value; a None key lets the database choose);
    False when it was skipped."""
    if row.get(key) is None:
        row = {column: value for column, value in row.items() if column != key}
    columns = list(row)
    others = [column for column in columns if column != key]
    conflict = ""
    if policy is OnConflict.IGNORE:
        conflict = f" ON CONFLICT ({key}) DO NOTHING"
    elif policy is OnConflict.REPLACE and others:
        updates = ", ".join(f"{column} = EXCLUDED.{column}" for column in others)
        conflict = f" ON CONFLICT ({key}) DO UPDATE SET {updates}"
    cursor = connection.execute(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('%s' for _ in row)})"
        + conflict,
        list(row.values()),
    )
    return cursor.rowcount > 0


def _write(
    connection: psycopg.Connection[Any],
    database: PostgresDatabase,
    line: ChatLine | MessageLine,
    policy: OnConflict,
) -> bool:
    s = database.schema
    if isinstance(line, ChatLine):
        chat: dict[str, object] = {
            s.q("chat_id"): line.id,
            s.q("chat_app_id"): line.app_id,
            s.q("chat_title"): line.title,
            s.q("chat_created_at"): stored_time(line.created_at, s.timestamps),
        }
        return _insert(connection, s.q("chats"), s.q("chat_id"), chat, policy)
    exists = connection.execute(
        f"SELECT 1 FROM {s.q('chats')} WHERE {s.q('chat_id')} = %s", (line.chat_id,)
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
        message[s.q("message_is_compaction_summary")] = line.is_compaction_summary
    return _insert(connection, s.q("messages"), s.q("message_id"), message, policy)


def import_lines(
    database: PostgresDatabase,
    lines: Iterable[str],
    *,
    on_conflict: OnConflict = OnConflict.FAIL,
    on_batch: Callable[[LinesReport], None] | None = None,
) -> LinesReport:
    """Import the lines in batches of BATCH_LINES (one short transaction each)."""
    chats = messages = ignored = conflicts = read = size = 0
    errors: list[str] = []
    batch: list[tuple[int, str]] = []
    s = database.schema

    def report() -> LinesReport:
        return LinesReport(chats, messages, ignored, conflicts, tuple(errors), read, size)

    def flush(connection: psycopg.Connection[Any]) -> None:
        nonlocal chats, messages, ignored, conflicts
        for number, text in batch:
            line: ChatLine | MessageLine | None = None
            try:
                with connection.transaction():  # a savepoint: a bad line writes nothing
                    line = parse_line(text)
                    written = _write(connection, database, line, on_conflict)
            except pg_errors.UniqueViolation:
                conflicts += 1
                kind = "chat" if isinstance(line, ChatLine) else "message"
                errors.append(f"line {number}: {kind} {getattr(line, 'id', '?')} exists already")
            except (ValueError, TypeError, psycopg.Error, ChatRecallError) as error:
                errors.append(f"line {number}: {str(error).splitlines()[0]}")
            else:
                if not written:
                    ignored += 1
                elif isinstance(line, ChatLine):
                    chats += 1
                else:
                    messages += 1
        keep_sequence_ahead(connection, s.q("chats"), s.q("chat_id"))
        keep_sequence_ahead(connection, s.q("messages"), s.q("message_id"))

    def run_batch() -> None:
        database.write(flush)
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
            run_batch()
    if batch:
        run_batch()
    return report()
