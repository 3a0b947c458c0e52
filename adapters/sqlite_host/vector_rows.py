"""`SqliteVectorStore`: the vectors of an index kept in the host's SQLite database,
whatever engine holds the text (FTS5 and tantivy both keep their document rows here).

Tables, created when the semantic layer is turned on and dropped when it is off (so a
database without it carries nothing):
- `chat_recall_vectors`: one row per document with a vector: `seq` grows with every
  write (the in-memory matrices catch up by it, `adapters/vector_matrix.py`), `model`
  is the key of the model it was made with (`vector_model_key` in the meta table).
- `chat_recall_vector_queue`: documents waiting for a vector, with a random `seq` that
  changes whenever the document is put again (a vector of an older text is not written).

The engines call `queue_documents` where they write a document row and
`forget_vectors` where they drop one, inside the same transaction: a document put again
loses its old vector at once and is queued; one removed loses its vector. Visibility
is the document rows' own (`document_rows.HIDDEN`): a deleted message's vector is never
returned, from the delete on, though it is reclaimed later with the document.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import attrs

from chat_recall.adapters.sqlite_host import document_rows
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.migrations import DOCS, META
from chat_recall.adapters.sqlite_host.vector_tables import (
    DDL,
    DROPPING,
    MODEL,
    MODEL_KEY,
    QUEUE_AFTER,
    SETTINGS,
    TABLES,
    VECTOR_QUEUE,
    VECTORS,
    WRITE_ROWS,
    meta,
    model_key,
    set_meta,
    tables_exist,
)
from chat_recall.adapters.vector_matrix import VectorMatrices
from chat_recall.domain.model import AppId, ChatId, MessageId
from chat_recall.domain.semantic import EmbedTask, Similar, SimilarChat, VectorCoverage
from chat_recall.domain.warming import VectorMemory


@attrs.define
class _Rows:
    """`VectorRows` over one database (for `VectorMatrices`)."""

    database: SqliteDatabase

    def rows_after(
        self, app_id: AppId, model_key: int, after_seq: int, limit: int
    ) -> list[tuple[int, int, int, bytes]]:
        # The driver gives these columns as int and bytes already: the rows as fetched.
        with self.database.reading() as connection:
            rows: list[tuple[int, int, int, bytes]] = connection.execute(
                f"SELECT v.seq, v.message_id, d.chat_id, v.vector FROM {VECTORS} AS v "
                f"JOIN {DOCS} AS d ON d.message_id = v.message_id AND d.app_id = v.app_id "
                "WHERE v.app_id = ? AND v.model = ? AND v.seq > ? ORDER BY v.seq LIMIT ?",
                (app_id, model_key, after_seq, limit),
            ).fetchall()
            return rows

    def count(self, app_id: AppId, model_key: int) -> int:
        with self.database.reading() as connection:
            return int(
                connection.execute(
                    f"SELECT count(*) FROM {VECTORS} WHERE app_id = ? AND model = ?",
                    (app_id, model_key),
                ).fetchone()[0]
            )

    def apps(self, model_key: int) -> list[tuple[int, int, int, int]]:
        # Counted from the (app, model, seq) index alone; one row gives the vector size
        # (every vector of a model has its dimension).
        with self.database.reading() as connection:
            size = connection.execute(
                f"SELECT length(vector) FROM {VECTORS} WHERE model = ? LIMIT 1", (model_key,)
            ).fetchone()
            if size is None:
                return []
            return [
                (int(app), int(rows), int(newest), int(size[0]))
                for app, rows, newest in connection.execute(
                    f"SELECT app_id, count(*), max(seq) FROM {VECTORS} WHERE model = ? "
                    "GROUP BY app_id ORDER BY app_id",
                    (model_key,),
                )
            ]

    def live(
        self, app_id: AppId, model_key: int, seqs: Sequence[int]
    ) -> dict[int, tuple[MessageId, ChatId]]:
        with self.database.reading() as connection:
            return {
                int(seq): (MessageId(message_id), ChatId(chat_id))
                for seq, message_id, chat_id in connection.execute(
                    f"SELECT v.seq, v.message_id, d.chat_id FROM {VECTORS} AS v "
                    f"JOIN {DOCS} AS d ON d.message_id = v.message_id AND d.app_id = v.app_id "
                    "WHERE v.seq IN (SELECT value FROM json_each(?)) AND v.app_id = ? "
                    f"AND v.model = ? AND NOT {document_rows.HIDDEN}",
                    (json.dumps(list(seqs)), app_id, model_key),
                )
            }


@attrs.define
class SqliteVectorStore:
    """`VectorStore` in the host's SQLite database (see the module docstring)."""

    database: SqliteDatabase
    matrices: VectorMatrices = attrs.field(factory=VectorMatrices)

    def vector_model(self) -> str | None:
        with self.database.reading() as connection:
            return meta(connection, MODEL)

    def use_vector_model(self, identity: str | None) -> None:
        with self.database.writing() as connection:
            if identity is not None and identity == meta(connection, MODEL):
                return
            key = int(meta(connection, MODEL_KEY) or 0) + 1
            if identity is None:
                set_meta(connection, MODEL, None)
                set_meta(connection, QUEUE_AFTER, None)
            else:
                for statement in DDL:
                    connection.execute(statement)
                set_meta(connection, TABLES, "1")
                connection.execute(f"DELETE FROM {VECTOR_QUEUE}")
                set_meta(connection, MODEL, identity)
                set_meta(connection, QUEUE_AFTER, str(-(2**63)))
            set_meta(connection, MODEL_KEY, str(key))
            set_meta(connection, DROPPING, "1")
        self.matrices.clear()

    def queue_step(self, limit: int) -> int:
        with self.database.writing() as connection:
            after = meta(connection, QUEUE_AFTER)
            if after is None or model_key(connection) is None:
                return 0
            last = connection.execute(
                f"SELECT count(*), max(message_id) FROM (SELECT message_id FROM {DOCS} "
                "WHERE message_id > ? ORDER BY message_id LIMIT ?)",
                (int(after), limit),
            ).fetchone()
            count = int(last[0])
            if count:
                connection.execute(
                    f"INSERT OR REPLACE INTO {VECTOR_QUEUE}(message_id, app_id, seq) "
                    f"SELECT message_id, app_id, random() FROM {DOCS} "
                    "WHERE message_id > ? AND message_id <= ?",
                    (int(after), int(last[1])),
                )
            set_meta(connection, QUEUE_AFTER, str(last[1]) if count == limit else None)
            return count

    def pending_vectors(self, limit: int, *, after: MessageId | None = None) -> list[EmbedTask]:
        with self.database.reading() as connection:
            if model_key(connection) is None:
                return []
            return [
                EmbedTask(MessageId(m), AppId(a), int(s))
                for m, a, s in connection.execute(
                    f"SELECT message_id, app_id, seq FROM {VECTOR_QUEUE} "
                    "WHERE message_id > ? ORDER BY message_id LIMIT ?",
                    (-(2**63) if after is None else after, limit),
                )
            ]

    def write_vectors(
        self, identity: str, tasks: Sequence[EmbedTask], vectors: Sequence[bytes | None]
    ) -> int:
        if len(tasks) != len(vectors):
            raise ValueError("one vector (or None) per task")
        written = 0
        with self.database.writing() as connection:
            key = model_key(connection)
            if key is None or meta(connection, MODEL) != identity:
                return 0  # the model changed meanwhile: these vectors are of no use
            made = [(t, v) for t, v in zip(tasks, vectors, strict=True) if v is not None]
            for start in range(0, len(made), WRITE_ROWS):
                chunk = made[start : start + WRITE_ROWS]
                before = connection.total_changes
                connection.execute(
                    f"INSERT OR REPLACE INTO {VECTORS}(message_id, app_id, model, vector) "
                    "SELECT v.column1, v.column2, ?, v.column4 FROM (VALUES "
                    + ", ".join(["(?, ?, ?, ?)"] * len(chunk))
                    + f") AS v JOIN {VECTOR_QUEUE} AS q "
                    "ON q.message_id = v.column1 AND q.seq = v.column3 "
                    f"JOIN {DOCS} AS d ON d.message_id = v.column1 AND d.app_id = v.column2",
                    [key, *(x for t, v in chunk for x in (t.message_id, t.app_id, t.seq, v))],
                )
                written += connection.total_changes - before
            connection.execute(
                f"DELETE FROM {VECTOR_QUEUE} WHERE (message_id, seq) IN "
                "(SELECT value ->> 0, value ->> 1 FROM json_each(?))",
                (json.dumps([(t.message_id, t.seq) for t, _ in made]),),
            )
        return written

    def drop_step(self, limit: int) -> int:
        with self.database.writing() as connection:
            if meta(connection, DROPPING) is None or not tables_exist(connection):
                return 0
            key = model_key(connection)
            if key is None:
                cursor = connection.execute(
                    f"DELETE FROM {VECTORS} WHERE seq IN (SELECT seq FROM {VECTORS} LIMIT ?)",
                    (limit,),
                )
                dropped = max(cursor.rowcount, 0)
                if dropped < limit:
                    connection.execute(f"DROP TABLE IF EXISTS {VECTORS}")
                    connection.execute(f"DROP TABLE IF EXISTS {VECTOR_QUEUE}")
                    # The model key stays: keys are never used twice, so a matrix
                    # another process holds of an earlier model never matches a row.
                    for name in (TABLES, DROPPING):
                        set_meta(connection, name, None)
                return dropped
            cursor = connection.execute(
                f"DELETE FROM {VECTORS} WHERE seq IN "
                f"(SELECT seq FROM {VECTORS} WHERE model != ? LIMIT ?)",
                (key, limit),
            )
            dropped = max(cursor.rowcount, 0)
            if dropped < limit:
                set_meta(connection, DROPPING, None)
            return dropped

    def building(self, app_id: AppId) -> bool:
        with self.database.reading() as connection:
            if model_key(connection) is None or not tables_exist(connection):
                return False
            if meta(connection, QUEUE_AFTER) is not None:
                return True
            row = connection.execute(
                f"SELECT EXISTS (SELECT 1 FROM {VECTOR_QUEUE} WHERE app_id = ?)", (app_id,)
            ).fetchone()
        return bool(row[0])

    def semantic_settings(self) -> str | None:
        with self.database.reading() as connection:
            return meta(connection, SETTINGS)

    def record_semantic_settings(self, settings: str | None) -> None:
        with self.database.writing() as connection:
            set_meta(connection, SETTINGS, settings)

    def vector_coverage(self, app_id: AppId | None) -> VectorCoverage:
        with self.database.reading() as connection:
            identity = meta(connection, MODEL)
            key = model_key(connection)
            if app_id is None:
                documents = int(connection.execute(f"SELECT count(*) FROM {DOCS}").fetchone()[0])
            else:
                documents = document_rows.stats(connection, app_id).documents
            if key is None or not tables_exist(connection):
                return VectorCoverage(identity, documents, 0, 0)
            scope, arguments = ("", ()) if app_id is None else (" AND app_id = ?", (app_id,))
            embedded = connection.execute(
                f"SELECT count(*) FROM {VECTORS} WHERE model = ?{scope}", (key, *arguments)
            ).fetchone()[0]
            queued = connection.execute(
                f"SELECT count(*) FROM {VECTOR_QUEUE} WHERE 1{scope}", arguments
            ).fetchone()[0]
            after = meta(connection, QUEUE_AFTER)
            unqueued = 0
            if after is not None:
                unqueued = connection.execute(
                    f"SELECT count(*) FROM {DOCS} WHERE message_id > ?{scope}",
                    (int(after), *arguments),
                ).fetchone()[0]
        return VectorCoverage(identity, documents, int(embedded), int(queued) + int(unqueued))

    def nearest_chats(
        self,
        app_id: AppId,
        vector: bytes,
        limit: int,
        *,
        per_chat: int,
        mean_weight: float,
        exclude_chat_id: ChatId | None = None,
        floor: float = -1.0,
        centered: bool = False,
    ) -> list[SimilarChat]:
        with self.database.reading() as connection:
            key = model_key(connection)
            if key is None or not tables_exist(connection):
                return []
        return self.matrices.nearest_chats(
            _Rows(self.database),
            app_id,
            key,
            vector,
            limit,
            per_chat=per_chat,
            mean_weight=mean_weight,
            exclude_chat_id=exclude_chat_id,
            floor=floor,
            centered=centered,
        )

    def nearest(
        self,
        app_id: AppId,
        vector: bytes,
        limit: int,
        *,
        exclude_chat_id: ChatId | None = None,
        floor: float = -1.0,
        centered: bool = False,
    ) -> list[Similar]:
        with self.database.reading() as connection:
            key = model_key(connection)
            if key is None or not tables_exist(connection):
                return []
        return self.matrices.nearest(
            _Rows(self.database),
            app_id,
            key,
            vector,
            limit,
            exclude_chat_id=exclude_chat_id,
            floor=floor,
            centered=centered,
        )

    def vector_memory(self) -> VectorMemory:
        key = self._search_key()
        if key is None:
            return VectorMemory(budget_bytes=self.matrices.budget_bytes)
        return self.matrices.memory(_Rows(self.database), key)

    def warm(self, app_id: AppId, limit: int) -> int:
        key = self._search_key()
        if key is None:
            return 0
        return self.matrices.warm(_Rows(self.database), app_id, key, limit)

    def _search_key(self) -> int | None:
        """The key of the model searched, while its tables exist (one statement: a
        warming step asks it every time)."""
        with self.database.reading() as connection:
            found = dict(
                connection.execute(
                    f"SELECT key, value FROM {META} WHERE key IN (?, ?, ?)",
                    (MODEL, MODEL_KEY, TABLES),
                ).fetchall()
            )
        if found.get(MODEL) is None or found.get(TABLES) is None or found.get(MODEL_KEY) is None:
            return None
        return int(found[MODEL_KEY])
