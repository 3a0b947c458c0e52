"""The rows every index kept in the host's SQLite database has, whatever engine holds
the text: `chat_recall_docs` (one row per visible document, which the host's delete
triggers remove at once), `chat_recall_purge` (deleted documents the engine still holds),
`chat_recall_quarantine` and the projection stamp in `chat_recall_meta`.

`SqliteFts5IndexStore` keeps its text in per-app FTS5 tables, `TantivyIndexStore` in
tantivy indexes beside the database; both use these functions for the rest.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

from chat_recall.adapters.sqlite.migrations import DOCS, META, PURGE, QUARANTINE
from chat_recall.adapters.sqlite.schema import HostSchema
from chat_recall.domain.host_values import UnreadableReason
from chat_recall.domain.messages import Role
from chat_recall.domain.model import (
    AppId,
    ChatId,
    IndexDocument,
    IndexStats,
    MessageId,
    Quarantine,
    QuarantinedRow,
)

CHUNK = 500  # ids per statement (SQLite's bound-parameter limit is far above)


def chunks(ids: Sequence[MessageId]) -> Iterator[list[MessageId]]:
    for start in range(0, len(ids), CHUNK):
        yield list(ids[start : start + CHUNK])


def marks(chunk: Sequence[object]) -> str:
    return ", ".join("?" for _ in chunk)


def insert_rows(connection: sqlite3.Connection, documents: Sequence[IndexDocument]) -> None:
    """The metadata rows of documents just written (their ids hold no row now)."""
    connection.executemany(
        f"INSERT INTO {DOCS}(message_id, app_id, chat_id, role, created_at, "
        "is_compaction_summary, projection_truncated) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                d.message_id,
                d.app_id,
                d.chat_id,
                d.role.value,
                d.created_at,
                int(d.is_compaction_summary),
                int(d.projection_truncated),
            )
            for d in documents
        ],
    )


def locate(connection: sqlite3.Connection, ids: Sequence[MessageId]) -> dict[MessageId, set[AppId]]:
    """The apps whose engine may hold a document of each id: visible (docs) or awaiting
    reclaim (purge). Ids with neither are left out."""
    found: dict[MessageId, set[AppId]] = {}
    for chunk in chunks(ids):
        for table in (DOCS, PURGE):
            for message_id, app_id in connection.execute(
                f"SELECT message_id, app_id FROM {table} WHERE message_id IN ({marks(chunk)})",
                chunk,
            ):
                found.setdefault(MessageId(message_id), set()).add(AppId(app_id))
    return found


def forget(connection: sqlite3.Connection, ids: Sequence[MessageId]) -> None:
    """Drop the docs and purge rows of these ids (their engine documents go too, by the
    caller)."""
    for chunk in chunks(ids):
        for table in (DOCS, PURGE):
            connection.execute(f"DELETE FROM {table} WHERE message_id IN ({marks(chunk)})", chunk)


def end_quarantine(connection: sqlite3.Connection, ids: Sequence[MessageId]) -> None:
    """A message put or removed is out of quarantine."""
    for chunk in chunks(ids):
        connection.execute(f"DELETE FROM {QUARANTINE} WHERE message_id IN ({marks(chunk)})", chunk)


def set_aside(connection: sqlite3.Connection, rows: Sequence[QuarantinedRow]) -> None:
    connection.executemany(
        f"INSERT OR REPLACE INTO {QUARANTINE}(message_id, app_id, chat_id, reason) "
        "VALUES (?, ?, ?, ?)",
        [(row.message_id, row.app_id, row.chat_id, row.reason.value) for row in rows],
    )


def metadata(
    connection: sqlite3.Connection, app_id: AppId, ids: Sequence[MessageId]
) -> dict[MessageId, tuple[ChatId, Role, int, bool, bool]]:
    """(chat, role, time, compaction summary, truncated) of the visible documents of one
    app among `ids`."""
    found: dict[MessageId, tuple[ChatId, Role, int, bool, bool]] = {}
    for chunk in chunks(ids):
        for row in connection.execute(
            f"SELECT message_id, chat_id, role, created_at, is_compaction_summary, "
            f"projection_truncated FROM {DOCS} "
            f"WHERE message_id IN ({marks(chunk)}) AND app_id = ?",
            (*chunk, app_id),
        ):
            found[MessageId(row[0])] = (
                ChatId(row[1]),
                Role(row[2]),
                row[3],
                bool(row[4]),
                bool(row[5]),
            )
    return found


def orphans(connection: sqlite3.Connection, schema: HostSchema) -> list[tuple[MessageId, AppId]]:
    """Visible documents whose source message (or its chat) is gone."""
    s = schema
    rows = connection.execute(
        f"""
        SELECT d.message_id, d.app_id FROM {DOCS} AS d
        WHERE NOT EXISTS (
            SELECT 1 FROM {s.q("messages")} AS m
            JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = m.{s.q("message_chat_id")}
            WHERE m.{s.q("message_id")} = d.message_id
        )
        """
    ).fetchall()
    return [(MessageId(row[0]), AppId(row[1])) for row in rows]


def forget_quarantine_of_deleted(connection: sqlite3.Connection, schema: HostSchema) -> None:
    s = schema
    connection.execute(
        f"DELETE FROM {QUARANTINE} WHERE NOT EXISTS (SELECT 1 FROM {s.q('messages')} "
        f"AS m WHERE m.{s.q('message_id')} = {QUARANTINE}.message_id)"
    )


def document_ids(connection: sqlite3.Connection, app_id: AppId) -> list[MessageId]:
    rows = connection.execute(
        f"SELECT message_id FROM {DOCS} WHERE app_id = ? ORDER BY message_id", (app_id,)
    ).fetchall()
    return [MessageId(row[0]) for row in rows]


def stats(connection: sqlite3.Connection, app_id: AppId) -> IndexStats:
    documents = connection.execute(
        f"SELECT count(*) FROM {DOCS} WHERE app_id = ?", (app_id,)
    ).fetchone()[0]
    unreclaimed = connection.execute(
        f"SELECT count(*) FROM {PURGE} WHERE app_id = ?", (app_id,)
    ).fetchone()[0]
    return IndexStats(documents=documents, unreclaimed=unreclaimed)


def projection_stamp(connection: sqlite3.Connection) -> str | None:
    row = connection.execute(f"SELECT value FROM {META} WHERE key = 'projection'").fetchone()
    return None if row is None else str(row[0])


def set_projection_stamp(connection: sqlite3.Connection, stamp: str) -> None:
    connection.execute(
        f"INSERT OR REPLACE INTO {META}(key, value) VALUES ('projection', ?)", (stamp,)
    )


def quarantine(connection: sqlite3.Connection, schema: HostSchema, limit: int) -> Quarantine:
    s = schema
    live = (
        f"FROM {QUARANTINE} AS q WHERE EXISTS (SELECT 1 FROM {s.q('messages')} AS m "
        f"WHERE m.{s.q('message_id')} = q.message_id)"
    )
    total = connection.execute(f"SELECT count(*) {live}").fetchone()[0]
    rows = connection.execute(
        f"SELECT q.message_id, q.app_id, q.chat_id, q.reason {live} ORDER BY q.message_id LIMIT ?",
        (limit,),
    ).fetchall()
    return Quarantine(
        int(total),
        tuple(QuarantinedRow(row[0], row[1], row[2], reason_of(row[3])) for row in rows),
    )


def reason_of(stored: str) -> UnreadableReason:
    """A stored reason (one written by a later release reads as `indexing_failed`)."""
    try:
        return UnreadableReason(stored)
    except ValueError:
        return UnreadableReason.INDEXING_FAILED
