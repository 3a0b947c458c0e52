"""`SqliteFts5IndexStore`: the derived documents in FTS5, one table per app.

Layout (see ARCHITECTURE.md for the numbers that chose it):
- `chat_recall_fts_<app>`: FTS5 (title, body, chat_ref), rowid = message id.
- `chat_recall_docs`: one row per visible document (app, chat, role, time, flags). Host
  deletes remove it in the same transaction (triggers), so a deleted message is never a
  result; the FTS row is purged later by the indexer through `chat_recall_purge`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import attrs

from chat_recall.adapters.index_layout import RECLAIM_PER_STEP, chat_ref
from chat_recall.adapters.sqlite.database import SqliteDatabase
from chat_recall.adapters.sqlite.fts5_query import compile_match
from chat_recall.adapters.sqlite.migrations import (
    APPS,
    DOCS,
    META,
    PURGE,
    QUARANTINE,
    fts_table_ddl,
    fts_table_name,
)
from chat_recall.adapters.sqlite.schema import quote
from chat_recall.domain.host_values import UnreadableReason
from chat_recall.domain.messages import Role
from chat_recall.domain.model import (
    AppId,
    Candidate,
    DocumentText,
    IndexDocument,
    IndexStats,
    Maintenance,
    MessageId,
    Quarantine,
    QuarantinedRow,
)
from chat_recall.domain.query import ScopedQuery
from chat_recall.domain.text.analysis import TextAnalysis

MAINTENANCE_MERGE_PAGES = 100  # FTS5 merge work per written table (measured: <= ~11 ms)


@attrs.define
class SqliteFts5IndexStore:
    database: SqliteDatabase
    # Applied by FTS5 itself (the table's tokenizer) to documents and query phrases.
    analysis: TextAnalysis = TextAnalysis.default()
    purges_per_step: int = RECLAIM_PER_STEP
    merge_pages: int = MAINTENANCE_MERGE_PAGES
    _known_tables: set[AppId] = attrs.field(factory=set, init=False)
    _written: set[AppId] = attrs.field(factory=set, init=False)

    # -- writing (inside a unit of work's transaction, see unit_of_work.py) -------------

    def put(self, connection: sqlite3.Connection, documents: Sequence[IndexDocument]) -> None:
        """Set-based: one lookup finds which ids already have a document anywhere; only
        those are removed; inserts go per app table with executemany."""
        self.remove(connection, [document.message_id for document in documents])
        by_app: dict[AppId, list[IndexDocument]] = {}
        for document in documents:
            by_app.setdefault(document.app_id, []).append(document)
        for app_id, app_documents in by_app.items():
            self._written.add(app_id)
            table = quote(self._ensure_table(connection, app_id))
            connection.executemany(
                f"INSERT INTO {table}(rowid, title, body, chat_ref) VALUES (?, ?, ?, ?)",
                [(d.message_id, d.title, d.body, chat_ref(d.chat_id)) for d in app_documents],
            )
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
                    for d in app_documents
                ],
            )

    def remove(self, connection: sqlite3.Connection, message_ids: Sequence[MessageId]) -> None:
        """Remove documents; a message put or removed is out of quarantine too."""
        ids = list(message_ids)
        for message_id in self._existing(connection, ids):
            self._remove(connection, message_id)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            connection.execute(f"DELETE FROM {QUARANTINE} WHERE message_id IN ({marks})", chunk)

    def set_aside(self, connection: sqlite3.Connection, rows: Sequence[QuarantinedRow]) -> None:
        """Quarantine rows: their documents go (the content they were built from
        changed into something unreadable), their reason stays."""
        self.remove(connection, [row.message_id for row in rows])
        connection.executemany(
            f"INSERT OR REPLACE INTO {QUARANTINE}(message_id, app_id, chat_id, reason) "
            "VALUES (?, ?, ?, ?)",
            [(row.message_id, row.app_id, row.chat_id, row.reason.value) for row in rows],
        )

    def _existing(self, connection: sqlite3.Connection, ids: list[MessageId]) -> set[MessageId]:
        found: set[MessageId] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            for table in (DOCS, PURGE):
                found.update(
                    row[0]
                    for row in connection.execute(
                        f"SELECT message_id FROM {table} WHERE message_id IN ({marks})", chunk
                    )
                )
        return found

    def _remove(self, connection: sqlite3.Connection, message_id: MessageId) -> None:
        """Drop a document wherever it is: visible (docs) or awaiting purge."""
        apps = {
            row[0]
            for table in (DOCS, PURGE)
            for row in connection.execute(
                f"SELECT app_id FROM {table} WHERE message_id = ?", (message_id,)
            )
        }
        for app_id in apps:
            self._written.add(app_id)
            if self._table_exists(connection, app_id):
                connection.execute(
                    f"DELETE FROM {quote(fts_table_name(app_id))} WHERE rowid = ?", (message_id,)
                )
        connection.execute(f"DELETE FROM {DOCS} WHERE message_id = ?", (message_id,))
        connection.execute(f"DELETE FROM {PURGE} WHERE message_id = ?", (message_id,))

    def forget_tables(self) -> None:
        """Drop the cache of registered app tables (after the registry was repaired)."""
        self._known_tables.clear()

    def _table_exists(self, connection: sqlite3.Connection, app_id: AppId) -> bool:
        if app_id in self._known_tables:
            return True
        found = connection.execute(f"SELECT 1 FROM {APPS} WHERE app_id = ?", (app_id,)).fetchone()
        if found:
            self._known_tables.add(app_id)
        return found is not None

    def _ensure_table(self, connection: sqlite3.Connection, app_id: AppId) -> str:
        table = fts_table_name(app_id)
        if not self._table_exists(connection, app_id):
            connection.execute(fts_table_ddl(table, self.analysis))
            connection.execute(
                f"INSERT INTO {quote(table)}({quote(table)}, rank) VALUES ('automerge', 0)"
            )
            connection.execute(
                f"INSERT OR IGNORE INTO {APPS}(app_id, fts_table) VALUES (?, ?)", (app_id, table)
            )
        return table

    def maintain(self) -> Maintenance:
        """Reclaim up to `purges_per_step` deleted documents, then an incremental FTS5
        merge of about `merge_pages` pages in each table written since the last step:
        automatic merging is off in our tables (it made some write batches take 2x the
        budget), so this bounded step replaces it. Two short transactions."""
        with self.database.reading() as connection:
            waiting = connection.execute(f"SELECT 1 FROM {PURGE} LIMIT 1").fetchone()
        rows: list[tuple[int]] = []
        if waiting is not None:
            with self.database.writing() as connection:
                rows = connection.execute(
                    f"SELECT message_id FROM {PURGE} ORDER BY message_id LIMIT ?",
                    (self.purges_per_step + 1,),
                ).fetchall()
                for (message_id,) in rows[: self.purges_per_step]:
                    self._remove(connection, MessageId(message_id))
        written, self._written = self._written, set()
        if written:
            with self.database.writing() as connection:
                for app_id in sorted(written):
                    if self._table_exists(connection, app_id):
                        table = quote(fts_table_name(app_id))
                        connection.execute(
                            f"INSERT INTO {table}({table}, rank) VALUES ('merge', ?)",
                            (self.merge_pages,),
                        )
        reclaimed = min(len(rows), self.purges_per_step)
        return Maintenance(reclaimed=reclaimed, more=len(rows) > self.purges_per_step)

    def remove_orphans(self) -> int:
        s = self.database.schema
        with self.database.writing() as connection:
            orphans = connection.execute(
                f"""
                SELECT d.message_id FROM {DOCS} AS d
                WHERE NOT EXISTS (
                    SELECT 1 FROM {s.q("messages")} AS m
                    JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = m.{s.q("message_chat_id")}
                    WHERE m.{s.q("message_id")} = d.message_id
                )
                """
            ).fetchall()
            stray = 0
            for app_id, table in connection.execute(f"SELECT app_id, fts_table FROM {APPS}"):
                cursor = connection.execute(
                    f"DELETE FROM {quote(table)} WHERE rowid NOT IN "
                    f"(SELECT message_id FROM {DOCS} WHERE app_id = ? "
                    f"UNION ALL SELECT message_id FROM {PURGE} WHERE app_id = ?)",
                    (app_id, app_id),
                )
                stray += max(cursor.rowcount, 0)
            for (message_id,) in orphans:
                self._remove(connection, message_id)
            connection.execute(
                f"DELETE FROM {QUARANTINE} WHERE NOT EXISTS (SELECT 1 FROM {s.q('messages')} "
                f"AS m WHERE m.{s.q('message_id')} = {QUARANTINE}.message_id)"
            )
            return len(orphans) + stray

    # -- reading -----------------------------------------------------------------------

    def _readable_table(self, connection: sqlite3.Connection, app_id: AppId) -> str | None:
        return fts_table_name(app_id) if self._table_exists(connection, app_id) else None

    def search(self, query: ScopedQuery) -> list[Candidate]:
        if query.match.is_empty:
            return []
        with self.database.reading() as connection:
            table = self._readable_table(connection, query.app_id)
            if table is None:
                return []
            fts = quote(table)
            rows = connection.execute(
                f"""
                SELECT r.message_id, -r.score, d.chat_id, d.role, d.created_at,
                       d.is_compaction_summary, d.projection_truncated
                FROM (
                    SELECT rowid AS message_id, bm25({fts}, ?, ?, 0.0) AS score
                    FROM {fts} WHERE {fts} MATCH ?
                    ORDER BY score, rowid LIMIT ?
                ) AS r
                JOIN {DOCS} AS d ON d.message_id = r.message_id AND d.app_id = ?
                ORDER BY r.score, r.message_id
                """,
                (
                    query.weights.title,
                    query.weights.body,
                    compile_match(query.match, query.exclude_chat_id),
                    query.window,
                    query.app_id,
                ),
            ).fetchall()
        return [
            Candidate(
                message_id=row[0],
                score=row[1],
                chat_id=row[2],
                role=Role(row[3]),
                created_at=row[4],
                is_compaction_summary=bool(row[5]),
                projection_truncated=bool(row[6]),
            )
            for row in rows
        ]

    def documents(self, app_id: AppId, message_ids: Sequence[MessageId]) -> list[DocumentText]:
        if not message_ids:
            return []
        with self.database.reading() as connection:
            table = self._readable_table(connection, app_id)
            if table is None:
                return []
            marks = ", ".join("?" for _ in message_ids)
            rows = connection.execute(
                f"""
                SELECT d.message_id, f.title, f.body, d.chat_id, d.role, d.created_at,
                       d.is_compaction_summary, d.projection_truncated
                FROM {DOCS} AS d JOIN {quote(table)} AS f ON f.rowid = d.message_id
                WHERE d.message_id IN ({marks}) AND d.app_id = ?
                ORDER BY d.message_id
                """,
                (*message_ids, app_id),
            ).fetchall()
        return [
            DocumentText(
                message_id=row[0],
                title=row[1],
                body=row[2],
                chat_id=row[3],
                role=Role(row[4]),
                created_at=row[5],
                is_compaction_summary=bool(row[6]),
                projection_truncated=bool(row[7]),
            )
            for row in rows
        ]

    def document_ids(self, app_id: AppId) -> list[MessageId]:
        with self.database.reading() as connection:
            rows = connection.execute(
                f"SELECT message_id FROM {DOCS} WHERE app_id = ? ORDER BY message_id", (app_id,)
            ).fetchall()
        return [row[0] for row in rows]

    def stats(self, app_id: AppId) -> IndexStats:
        with self.database.reading() as connection:
            documents = connection.execute(
                f"SELECT count(*) FROM {DOCS} WHERE app_id = ?", (app_id,)
            ).fetchone()[0]
            unreclaimed = connection.execute(
                f"SELECT count(*) FROM {PURGE} WHERE app_id = ?", (app_id,)
            ).fetchone()[0]
        return IndexStats(documents=documents, unreclaimed=unreclaimed)

    def projection_stamp(self) -> str | None:
        with self.database.reading() as connection:
            row = connection.execute(
                f"SELECT value FROM {META} WHERE key = 'projection'"
            ).fetchone()
        return None if row is None else str(row[0])

    def quarantine(self, limit: int) -> Quarantine:
        s = self.database.schema
        live = (
            f"FROM {QUARANTINE} AS q WHERE EXISTS (SELECT 1 FROM {s.q('messages')} AS m "
            f"WHERE m.{s.q('message_id')} = q.message_id)"
        )
        with self.database.reading() as connection:
            total = connection.execute(f"SELECT count(*) {live}").fetchone()[0]
            rows = connection.execute(
                f"SELECT q.message_id, q.app_id, q.chat_id, q.reason {live} "
                "ORDER BY q.message_id LIMIT ?",
                (limit,),
            ).fetchall()
        return Quarantine(
            int(total),
            tuple(QuarantinedRow(row[0], row[1], row[2], reason_of(row[3])) for row in rows),
        )

    def set_projection_stamp(self, stamp: str) -> None:
        with self.database.writing() as connection:
            connection.execute(
                f"INSERT OR REPLACE INTO {META}(key, value) VALUES ('projection', ?)", (stamp,)
            )


def reason_of(stored: str) -> UnreadableReason:
    """A stored reason (one written by a later release reads as `indexing_failed`)."""
    try:
        return UnreadableReason(stored)
    except ValueError:
        return UnreadableReason.INDEXING_FAILED
