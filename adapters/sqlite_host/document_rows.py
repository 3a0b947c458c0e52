"""The rows every index kept in the host's SQLite database has, whatever engine holds
the text: `chat_recall_docs` (one row per document), the deletion records the host's
triggers write (`chat_recall_deleted_messages`, `chat_recall_deleted_chats`: every read
here leaves out the documents they name, at once), `chat_recall_purge` (documents the
engine still holds that no docs row describes), `chat_recall_quarantine` and the
projection stamp in `chat_recall_meta`.

`SqliteFts5IndexStore` keeps its text in per-app FTS5 tables, `TantivyIndexStore` in
tantivy indexes beside the database; both use these functions for the rest.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence

from chat_recall.adapters.index_layout import HIDDEN_READ_PAST, ROLES_SQL
from chat_recall.adapters.sqlite_host.migrations import (
    DELETED_CHATS,
    DELETED_MESSAGES,
    DIRTY_CHATS,
    DIRTY_MESSAGES,
    DOCS,
    META,
    PURGE,
    QUARANTINE,
    forget_order_of_gone_chat,
)
from chat_recall.adapters.sqlite_host.schema import HostSchema
from chat_recall.adapters.sqlite_host.vector_tables import forget_vectors, queue_documents
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

# A docs row `d` the host deleted (its message or its chat), or damaged: left out of
# every read.
HIDDEN = (
    f"(EXISTS (SELECT 1 FROM {DELETED_MESSAGES} AS x WHERE x.message_id = d.message_id) "
    f"OR EXISTS (SELECT 1 FROM {DELETED_CHATS} AS y WHERE y.chat_id = d.chat_id) "
    f"OR d.role NOT IN ({ROLES_SQL}))"
)


def hidden_in_app(connection: sqlite3.Connection, app_id: AppId) -> int:
    """At least as many as the app's hidden documents not yet reclaimed (the deleted
    messages of every app, and this app's documents in deleted chats), at most
    `HIDDEN_READ_PAST`: how many more candidates a search takes from its engine, so
    that a deleted match never takes the place of a visible one (the engine ranks
    before the visibility check). Both lookups are of small tables, outside a reclaim
    backlog: the second goes from the deleted chats to their documents by chat (CROSS
    JOIN keeps that order, `+` keeps the app's index out of it; SQLite chose to read
    every document of the app and look its chat up, which in a large app was most of
    a rare term's search)."""
    count = connection.execute(
        f"SELECT (SELECT count(*) FROM {DELETED_MESSAGES}) + (SELECT count(*) "
        f"FROM {DELETED_CHATS} AS y CROSS JOIN {DOCS} AS d ON d.chat_id = y.chat_id "
        "WHERE +d.app_id = ?)",
        (app_id,),
    ).fetchone()[0]
    return min(int(count), HIDDEN_READ_PAST)


def chunks(ids: Sequence[MessageId]) -> Iterator[list[MessageId]]:
    for start in range(0, len(ids), CHUNK):
        yield list(ids[start : start + CHUNK])


def marks(chunk: Sequence[object]) -> str:
    return ", ".join("?" for _ in chunk)


def described(d: IndexDocument) -> tuple[int, int, int, str, int, int, int]:
    """A document's row in `DOCS`, column by column (`insert_rows`)."""
    return (
        d.message_id,
        d.app_id,
        d.chat_id,
        d.role.value,
        d.created_at,
        int(d.is_compaction_summary),
        int(d.projection_truncated),
    )


# A `DOCS` row `d` described as the document of `n`, a row of `json_each` over
# `described_rows` (column by column, in `described`'s order).
DESCRIBED_AS = (
    "d.message_id = n.value ->> 0 AND d.app_id = n.value ->> 1 "
    "AND d.chat_id = n.value ->> 2 AND d.role = n.value ->> 3 "
    "AND d.created_at = n.value ->> 4 AND d.is_compaction_summary = n.value ->> 5 "
    "AND d.projection_truncated = n.value ->> 6"
)


def described_rows(documents: Sequence[IndexDocument]) -> str:
    """The documents' rows in `DOCS`, as `insert_rows` takes them (a JSON array)."""
    return as_json([described(d) for d in documents])


def insert_rows(
    connection: sqlite3.Connection,
    documents: Sequence[IndexDocument],
    *,
    described: str | None = None,
) -> None:
    """The rows of documents just written (their ids hold no row now), in one
    statement over a JSON array whatever their number (see `as_json`); `described`:
    that array, made already (`described_rows`)."""
    connection.execute(
        f"INSERT INTO {DOCS}(message_id, app_id, chat_id, role, created_at, "
        "is_compaction_summary, projection_truncated) "
        "SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, "
        "value ->> 5, value ->> 6 FROM json_each(?)",
        (described_rows(documents) if described is None else described,),
    )
    queue_documents(connection, documents)  # each waits for its vector (layer on)


def as_json(values: Sequence[object]) -> str:
    """A JSON array for `json_each(?)`: the text as it is (no escapes), so text Python
    cannot encode for SQLite fails the bind as it would alone. One statement over an
    array instead of one per row: inside a write transaction every return to Python
    is a wait for the GIL, which a host's busy process can make long."""
    return json.dumps(values, ensure_ascii=False, separators=(",", ":"))


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


def sourced(schema: HostSchema, ids: str) -> str:
    """A scalar subquery: the (id, chat, app) of the messages among `ids` (a parameter
    holding a JSON array of ids) as they exist now, as one JSON array."""
    s = schema
    return (
        f"(SELECT json_group_array(json_array(m.{s.q('message_id')}, "
        f"m.{s.q('message_chat_id')}, c.{s.q('chat_app_id')})) FROM {s.q('messages')} AS m "
        f"JOIN {s.q('chats')} AS c ON c.{s.q('chat_id')} = m.{s.q('message_chat_id')} "
        f"WHERE m.{s.q('message_id')} IN (SELECT value FROM json_each({ids})))"
    )


def sourced_documents(documents: Sequence[IndexDocument], found: str) -> list[IndexDocument]:
    """The documents whose message exists in the chat and app they name, by what
    `sourced` found (its JSON array)."""
    where = {(int(m), c, a) for m, c, a in json.loads(found)}
    return [d for d in documents if (d.message_id, d.chat_id, d.app_id) in where]


def still_sourced(
    connection: sqlite3.Connection, schema: HostSchema, documents: Sequence[IndexDocument]
) -> list[IndexDocument]:
    """The documents whose message still exists in the chat and app they name: inside
    a unit of work's transaction, a batch that read a row before the host deleted or
    moved it cannot put it back."""
    if not documents:
        return []
    # One statement and one row back (a JSON array): see `SqliteFts5IndexStore._forget`.
    row = connection.execute(
        f"SELECT {sourced(schema, '?')}", (json.dumps([d.message_id for d in documents]),)
    ).fetchone()
    return sourced_documents(documents, row[0])


def convert_deletions(
    connection: sqlite3.Connection, schema: HostSchema, limit: int
) -> list[tuple[MessageId, AppId]]:
    """For an engine that reclaims from `chat_recall_purge`: up to `limit` documents the
    host deleted become purge rows (their docs rows and deletion records go); a chat's
    record goes when none of its documents is left. A host row that exists again (an
    id reused, a message or chat moved) is marked dirty. Returns the (id, app) moved."""
    moved: list[tuple[MessageId, AppId]] = []
    records = [
        MessageId(row[0])
        for row in connection.execute(
            f"SELECT message_id FROM {DELETED_MESSAGES} ORDER BY message_id LIMIT ?", (limit,)
        )
    ]
    for chunk in chunks(records):
        moved += _to_purge(connection, f"message_id IN ({marks(chunk)})", chunk)
        connection.execute(
            f"DELETE FROM {DELETED_MESSAGES} WHERE message_id IN ({marks(chunk)})", chunk
        )
        _mark_existing(connection, schema, chunk)
    while len(moved) < limit:
        chat = connection.execute(
            f"SELECT chat_id FROM {DELETED_CHATS} ORDER BY chat_id LIMIT 1"
        ).fetchone()
        if chat is None:
            break
        take = limit - len(moved)
        ids = [
            row[0]
            for row in connection.execute(
                f"SELECT message_id FROM {DOCS} WHERE chat_id = ? LIMIT ?", (chat[0], take)
            )
        ]
        if ids:
            moved += _to_purge(connection, f"message_id IN ({marks(ids)})", ids)
        if forget_order_of_gone_chat(connection, schema, chat[0], take) == take:
            break  # more of the chat's order rows: the next step goes on
        if len(ids) < take:
            connection.execute(f"DELETE FROM {DELETED_CHATS} WHERE chat_id = ?", chat)
            s = schema
            connection.execute(
                f"INSERT OR REPLACE INTO {DIRTY_CHATS}(chat_id, app_id, seq, adopt) "
                f"SELECT {s.q('chat_id')}, {s.q('chat_app_id')}, random(), 0 FROM {s.q('chats')} "
                f"WHERE {s.q('chat_id')} = ?",
                chat,
            )
    return moved


def _to_purge(
    connection: sqlite3.Connection, where: str, parameters: Sequence[object]
) -> list[tuple[MessageId, AppId]]:
    rows = connection.execute(
        f"SELECT message_id, app_id FROM {DOCS} WHERE {where}", parameters
    ).fetchall()
    connection.execute(
        f"INSERT OR REPLACE INTO {PURGE}(message_id, app_id) "
        f"SELECT message_id, app_id FROM {DOCS} WHERE {where}",
        parameters,
    )
    connection.execute(f"DELETE FROM {DOCS} WHERE {where}", parameters)
    forget_vectors(connection, as_json([row[0] for row in rows]))
    return [(MessageId(row[0]), AppId(row[1])) for row in rows]


def _mark_existing(
    connection: sqlite3.Connection, schema: HostSchema, ids: Sequence[MessageId]
) -> None:
    s = schema
    connection.execute(
        f"""
        INSERT OR REPLACE INTO {DIRTY_MESSAGES}(message_id, app_id, chat_id, seq)
        SELECT m.{s.q("message_id")}, c.{s.q("chat_app_id")}, m.{s.q("message_chat_id")}, random()
        FROM {s.q("messages")} AS m
        LEFT JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = m.{s.q("message_chat_id")}
        WHERE m.{s.q("message_id")} IN ({marks(ids)})
        """,
        list(ids),
    )


def forget(connection: sqlite3.Connection, ids: Sequence[MessageId]) -> None:
    """Drop the docs and purge rows of these ids, and their deletion records (their
    engine documents go too, by the caller)."""
    for chunk in chunks(ids):
        for table in (DOCS, PURGE, DELETED_MESSAGES):
            connection.execute(f"DELETE FROM {table} WHERE message_id IN ({marks(chunk)})", chunk)
        forget_vectors(connection, as_json(chunk))


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


def written_within(
    connection: sqlite3.Connection, app_id: AppId, low: int, high: int
) -> list[MessageId]:
    """The ids of one app's documents written at `low` or later and before `high`."""
    return [
        MessageId(row[0])
        for row in connection.execute(
            f"SELECT message_id FROM {DOCS} WHERE app_id = ? AND created_at >= ? "
            "AND created_at < ?",
            (app_id, low, high),
        )
    ]


def metadata(
    connection: sqlite3.Connection,
    app_id: AppId,
    ids: Sequence[MessageId],
    *,
    hidden: str = HIDDEN,
) -> dict[MessageId, tuple[ChatId, Role, int, bool, bool]]:
    """(chat, role, time, compaction summary, truncated) of the visible documents of one
    app among `ids` (those `hidden`, a condition on `d`, left out)."""
    found: dict[MessageId, tuple[ChatId, Role, int, bool, bool]] = {}
    for chunk in chunks(ids):
        for row in connection.execute(
            f"SELECT message_id, chat_id, role, created_at, is_compaction_summary, "
            f"projection_truncated FROM {DOCS} AS d "
            f"WHERE message_id IN ({marks(chunk)}) AND app_id = ? AND NOT {hidden}",
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
        f"SELECT message_id FROM {DOCS} AS d WHERE app_id = ? AND NOT {HIDDEN} ORDER BY message_id",
        (app_id,),
    ).fetchall()
    return [MessageId(row[0]) for row in rows]


def stats(connection: sqlite3.Connection, app_id: AppId) -> IndexStats:
    """Visible documents; unreclaimed: hidden ones and purge rows (the hidden are
    counted from the few deletion records, never by scanning the docs)."""
    total = connection.execute(
        f"SELECT count(*) FROM {DOCS} WHERE app_id = ?", (app_id,)
    ).fetchone()[0]
    # Driven from the deletion records (CROSS JOIN keeps them the outer loop; `+app_id`
    # keeps the planner off the app's index, which would walk every document of the app
    # once per record): left to itself, the planner scans the app's documents.
    in_deleted_chats = connection.execute(
        f"SELECT count(*) FROM {DELETED_CHATS} AS x CROSS JOIN {DOCS} AS d "
        "ON d.chat_id = x.chat_id WHERE +d.app_id = ?",
        (app_id,),
    ).fetchone()[0]
    deleted_messages = connection.execute(
        f"SELECT count(*) FROM {DELETED_MESSAGES} AS x CROSS JOIN {DOCS} AS d "
        "ON d.message_id = x.message_id "
        f"WHERE d.app_id = ? AND d.chat_id NOT IN (SELECT chat_id FROM {DELETED_CHATS})",
        (app_id,),
    ).fetchone()[0]
    purged = connection.execute(
        f"SELECT count(*) FROM {PURGE} WHERE app_id = ?", (app_id,)
    ).fetchone()[0]
    hidden = in_deleted_chats + deleted_messages
    return IndexStats(documents=total - hidden, unreclaimed=hidden + purged)


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
