"""`PostgresVectorStore`: the vectors of the index in the host's PostgreSQL database, a
`bytea` column of packed float32 values (`domain.semantic.pack_vector`), searched
exactly by the shared in-memory matrices (`adapters/vector_matrix.py`) and checked in
the database (visibility is the documents' own: the live host rows). pgvector would
let the server search instead (docs/engines.md, "The vectors": pgvector is the next step).

As on SQLite, the tables exist only while the layer is on; the index store's put
queues a document for a vector and its removal removes the vector, in the same
transaction (`queue_documents`, `forget_vectors`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs
import psycopg

from chat_recall.adapters.postgres.database import PostgresDatabase
from chat_recall.adapters.postgres.migrations import DOCS, META, SEQUENCE
from chat_recall.adapters.vector_matrix import VectorMatrices
from chat_recall.domain.model import AppId, ChatId, IndexDocument, MessageId
from chat_recall.domain.semantic import EmbedTask, Similar, SimilarChat, VectorCoverage
from chat_recall.domain.warming import VectorMemory

if TYPE_CHECKING:
    from chat_recall.adapters.postgres.index_store import PostgresIndexStore

VECTORS = "chat_recall_vectors"
VECTOR_QUEUE = "chat_recall_vector_queue"
MODEL = "vector_model"
MODEL_KEY = "vector_model_key"
QUEUE_AFTER = "vector_queue_after"
DROPPING = "vector_dropping"
TABLES = "vector_tables"
SETTINGS = "semantic_settings"
DDL = (
    f"CREATE TABLE IF NOT EXISTS {VECTORS} (seq bigserial PRIMARY KEY, "
    "message_id bigint NOT NULL UNIQUE, app_id bigint NOT NULL, model integer NOT NULL, "
    "vector bytea NOT NULL)",
    f"CREATE INDEX IF NOT EXISTS {VECTORS}_app ON {VECTORS}(app_id, model, seq)",
    f"CREATE TABLE IF NOT EXISTS {VECTOR_QUEUE} (message_id bigint PRIMARY KEY, "
    "app_id bigint NOT NULL, seq bigint NOT NULL)",
    f"CREATE INDEX IF NOT EXISTS {VECTOR_QUEUE}_app ON {VECTOR_QUEUE}(app_id)",
)
Connection = psycopg.Connection[Any]


def _meta(connection: Connection, key: str) -> str | None:
    row = connection.execute(f"SELECT value FROM {META} WHERE key = %s", (key,)).fetchone()
    return None if row is None or row[0] is None else str(row[0])


def _set_meta(connection: Connection, key: str, value: str | None) -> None:
    if value is None:
        connection.execute(f"DELETE FROM {META} WHERE key = %s", (key,))
    else:
        connection.execute(
            f"INSERT INTO {META} (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (key, value),
        )


def _model_key(connection: Connection) -> int | None:
    value = _meta(connection, MODEL_KEY)
    return None if value is None or _meta(connection, MODEL) is None else int(value)


def queue_documents(connection: Connection, documents: Sequence[IndexDocument]) -> None:
    """Inside the index store's put: each document waits for its vector (a new seq)."""
    if not documents or _model_key(connection) is None:
        return
    connection.execute(
        f"INSERT INTO {VECTOR_QUEUE} (message_id, app_id, seq) "
        f"SELECT m, a, nextval('{SEQUENCE}') FROM unnest(%s::bigint[], %s::bigint[]) AS n(m, a) "
        "ON CONFLICT (message_id) DO UPDATE SET app_id = EXCLUDED.app_id, seq = EXCLUDED.seq",
        ([d.message_id for d in documents], [d.app_id for d in documents]),
    )


def forget_vectors(connection: Connection, message_ids: Sequence[MessageId]) -> None:
    """Inside the index store's removal: the vectors and queue rows go too."""
    if not message_ids or _meta(connection, TABLES) is None:
        return
    for table in (VECTORS, VECTOR_QUEUE):
        connection.execute(f"DELETE FROM {table} WHERE message_id = ANY(%s)", (list(message_ids),))


def drop_all_vectors(connection: Connection) -> None:
    """Every document dropped (a rebuild): their vectors and queue rows too."""
    if _meta(connection, TABLES) is not None:
        connection.execute(f"TRUNCATE {VECTORS}, {VECTOR_QUEUE}")


@attrs.define
class _Rows:
    store: PostgresVectorStore

    def rows_after(
        self, app_id: AppId, model_key: int, after_seq: int, limit: int
    ) -> list[tuple[int, int, int, bytes]]:
        return self.store.database.read(
            lambda c: [
                (int(seq), int(message_id), int(chat_id), bytes(vector))
                for seq, message_id, chat_id, vector in c.execute(
                    f"SELECT v.seq, v.message_id, d.chat_id, v.vector FROM {VECTORS} AS v "
                    f"JOIN {DOCS} AS d ON d.message_id = v.message_id AND d.app_id = v.app_id "
                    "WHERE v.app_id = %s AND v.model = %s AND v.seq > %s ORDER BY v.seq LIMIT %s",
                    (app_id, model_key, after_seq, limit),
                )
            ]
        )

    def count(self, app_id: AppId, model_key: int) -> int:
        row = self.store.database.read(
            lambda c: c.execute(
                f"SELECT count(*) FROM {VECTORS} WHERE app_id = %s AND model = %s",
                (app_id, model_key),
            ).fetchone()
        )
        return 0 if row is None else int(row[0])

    def apps(self, model_key: int) -> list[tuple[int, int, int, int]]:
        def read(connection: Connection) -> list[tuple[int, int, int, int]]:
            size = connection.execute(
                f"SELECT octet_length(vector) FROM {VECTORS} WHERE model = %s LIMIT 1",
                (model_key,),
            ).fetchone()
            if size is None:
                return []
            return [
                (int(app), int(rows), int(newest), int(size[0]))
                for app, rows, newest in connection.execute(
                    f"SELECT app_id, count(*), max(seq) FROM {VECTORS} WHERE model = %s "
                    "GROUP BY app_id ORDER BY app_id",
                    (model_key,),
                )
            ]

        return self.store.database.read(read, snapshot=True)

    def live(
        self, app_id: AppId, model_key: int, seqs: Sequence[int]
    ) -> dict[int, tuple[MessageId, ChatId]]:
        visible = self.store.index.visibility_join("d")
        return self.store.database.read(
            lambda c: {
                int(seq): (MessageId(message_id), ChatId(chat_id))
                for seq, message_id, chat_id in c.execute(
                    f"SELECT v.seq, v.message_id, d.chat_id FROM {VECTORS} AS v "
                    f"JOIN {DOCS} AS d ON d.message_id = v.message_id AND d.app_id = v.app_id "
                    f"{visible} WHERE v.seq = ANY(%s) AND v.app_id = %s AND v.model = %s",
                    (list(seqs), app_id, model_key),
                )
            }
        )


@attrs.define
class PostgresVectorStore:
    database: PostgresDatabase
    index: PostgresIndexStore
    matrices: VectorMatrices = attrs.field(factory=VectorMatrices)

    def vector_model(self) -> str | None:
        return self.database.read(lambda c: _meta(c, MODEL))

    def use_vector_model(self, identity: str | None) -> None:
        def change(connection: Connection) -> None:
            connection.execute(f"LOCK TABLE {META} IN SHARE ROW EXCLUSIVE MODE")
            if identity is not None and identity == _meta(connection, MODEL):
                return
            key = int(_meta(connection, MODEL_KEY) or 0) + 1
            if identity is None:
                _set_meta(connection, MODEL, None)
                _set_meta(connection, QUEUE_AFTER, None)
            else:
                for statement in DDL:
                    connection.execute(statement)
                _set_meta(connection, TABLES, "1")
                connection.execute(f"DELETE FROM {VECTOR_QUEUE}")
                _set_meta(connection, MODEL, identity)
                _set_meta(connection, QUEUE_AFTER, str(-(2**63)))
            _set_meta(connection, MODEL_KEY, str(key))
            _set_meta(connection, DROPPING, "1")

        self.database.write(change)
        self.matrices.clear()

    def queue_step(self, limit: int) -> int:
        def step(connection: Connection) -> int:
            after = _meta(connection, QUEUE_AFTER)
            if after is None or _model_key(connection) is None:
                return 0
            row = connection.execute(
                f"SELECT count(*), max(message_id) FROM (SELECT message_id FROM {DOCS} "
                "WHERE message_id > %s ORDER BY message_id LIMIT %s) AS chunk",
                (int(after), limit),
            ).fetchone()
            count = int(row[0]) if row else 0
            if count:
                connection.execute(
                    f"INSERT INTO {VECTOR_QUEUE} (message_id, app_id, seq) "
                    f"SELECT message_id, app_id, nextval('{SEQUENCE}') FROM {DOCS} "
                    "WHERE message_id > %s AND message_id <= %s "
                    "ON CONFLICT (message_id) DO UPDATE SET seq = EXCLUDED.seq",
                    (int(after), int(row[1])),  # type: ignore[index]
                )
            last = str(row[1]) if row and count == limit else None
            _set_meta(connection, QUEUE_AFTER, last)
            return count

        return self.database.write(step)

    def pending_vectors(self, limit: int, *, after: MessageId | None = None) -> list[EmbedTask]:
        def read(connection: Connection) -> list[EmbedTask]:
            if _model_key(connection) is None:
                return []
            return [
                EmbedTask(MessageId(m), AppId(a), int(s))
                for m, a, s in connection.execute(
                    f"SELECT message_id, app_id, seq FROM {VECTOR_QUEUE} WHERE message_id > %s "
                    "ORDER BY message_id LIMIT %s",
                    (-(2**63) if after is None else after, limit),
                )
            ]

        return self.database.read(read, snapshot=True)

    def write_vectors(
        self, identity: str, tasks: Sequence[EmbedTask], vectors: Sequence[bytes | None]
    ) -> int:
        if len(tasks) != len(vectors):
            raise ValueError("one vector (or None) per task")
        made = [(t, v) for t, v in zip(tasks, vectors, strict=True) if v is not None]

        def write(connection: Connection) -> int:
            key = _model_key(connection)
            if key is None or _meta(connection, MODEL) != identity or not made:
                return 0
            taken = connection.execute(
                f"DELETE FROM {VECTOR_QUEUE} AS q USING unnest(%s::bigint[], %s::bigint[]) "
                "AS n(m, s) WHERE q.message_id = n.m AND q.seq = n.s RETURNING q.message_id",
                ([t.message_id for t, _ in made], [t.seq for t, _ in made]),
            ).fetchall()
            current = {int(row[0]) for row in taken}
            chosen = [(t, v) for t, v in made if t.message_id in current]
            if not chosen:
                return 0
            cursor = connection.execute(
                f"INSERT INTO {VECTORS} (message_id, app_id, model, vector) "
                "SELECT n.m, n.a, %s, n.v FROM unnest(%s::bigint[], %s::bigint[], %s::bytea[]) "
                f"AS n(m, a, v) JOIN {DOCS} AS d ON d.message_id = n.m AND d.app_id = n.a "
                "ON CONFLICT (message_id) DO UPDATE SET app_id = EXCLUDED.app_id, "
                f"model = EXCLUDED.model, vector = EXCLUDED.vector, "
                f"seq = nextval(pg_get_serial_sequence('{VECTORS}', 'seq'))",
                (
                    key,
                    [t.message_id for t, _ in chosen],
                    [t.app_id for t, _ in chosen],
                    [v for _, v in chosen],
                ),
            )
            return max(cursor.rowcount, 0)

        return self.database.write(write)

    def drop_step(self, limit: int) -> int:
        def step(connection: Connection) -> int:
            if _meta(connection, DROPPING) is None or _meta(connection, TABLES) is None:
                return 0
            key = _model_key(connection)
            if key is None:
                dropped = connection.execute(
                    f"DELETE FROM {VECTORS} WHERE seq IN (SELECT seq FROM {VECTORS} LIMIT %s)",
                    (limit,),
                ).rowcount
                if dropped < limit:
                    connection.execute(f"DROP TABLE IF EXISTS {VECTORS}, {VECTOR_QUEUE}")
                    _set_meta(connection, TABLES, None)
                    _set_meta(connection, DROPPING, None)
                return max(dropped, 0)
            dropped = connection.execute(
                f"DELETE FROM {VECTORS} WHERE seq IN "
                f"(SELECT seq FROM {VECTORS} WHERE model <> %s LIMIT %s)",
                (key, limit),
            ).rowcount
            if dropped < limit:
                _set_meta(connection, DROPPING, None)
            return max(dropped, 0)

        return self.database.write(step)

    def building(self, app_id: AppId) -> bool:
        def read(connection: Connection) -> bool:
            if _model_key(connection) is None or _meta(connection, TABLES) is None:
                return False
            if _meta(connection, QUEUE_AFTER) is not None:
                return True
            row = connection.execute(
                f"SELECT EXISTS (SELECT 1 FROM {VECTOR_QUEUE} WHERE app_id = %s)", (app_id,)
            ).fetchone()
            return bool(row and row[0])

        return self.database.read(read, snapshot=True)

    def semantic_settings(self) -> str | None:
        return self.database.read(lambda c: _meta(c, SETTINGS))

    def record_semantic_settings(self, settings: str | None) -> None:
        self.database.write(lambda c: _set_meta(c, SETTINGS, settings))

    def vector_coverage(self, app_id: AppId | None) -> VectorCoverage:
        documents = (
            self.index.stats(app_id).documents
            if app_id is not None
            else self.database.read(
                lambda c: int(c.execute(f"SELECT count(*) FROM {DOCS}").fetchone()[0])  # type: ignore[index]
            )
        )

        def read(connection: Connection) -> VectorCoverage:
            identity = _meta(connection, MODEL)
            key = _model_key(connection)
            if key is None or _meta(connection, TABLES) is None:
                return VectorCoverage(identity, documents, 0, 0)
            scope = "" if app_id is None else " AND app_id = %(app)s"
            arguments = {"app": app_id, "key": key}
            embedded = connection.execute(
                f"SELECT count(*) FROM {VECTORS} WHERE model = %(key)s{scope}", arguments
            ).fetchone()
            queued = connection.execute(
                f"SELECT count(*) FROM {VECTOR_QUEUE} WHERE true{scope}", arguments
            ).fetchone()
            after = _meta(connection, QUEUE_AFTER)
            unqueued = 0
            if after is not None:
                row = connection.execute(
                    f"SELECT count(*) FROM {DOCS} WHERE message_id > %(after)s{scope}",
                    {**arguments, "after": int(after)},
                ).fetchone()
                unqueued = int(row[0]) if row else 0
            return VectorCoverage(
                identity,
                documents,
                int(embedded[0]) if embedded else 0,
                (int(queued[0]) if queued else 0) + unqueued,
            )

        return self.database.read(read, snapshot=True)

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
        key = self.database.read(
            lambda c: _model_key(c) if _meta(c, TABLES) is not None else None, snapshot=True
        )
        if key is None:
            return []
        return self.matrices.nearest_chats(
            _Rows(self),
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
        key = self.database.read(
            lambda c: _model_key(c) if _meta(c, TABLES) is not None else None, snapshot=True
        )
        if key is None:
            return []
        return self.matrices.nearest(
            _Rows(self),
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
        return self.matrices.memory(_Rows(self), key)

    def warm(self, app_id: AppId, limit: int) -> int:
        key = self._search_key()
        if key is None:
            return 0
        return self.matrices.warm(_Rows(self), app_id, key, limit)

    def _search_key(self) -> int | None:
        """The key of the model searched, while its tables exist."""
        return self.database.read(
            lambda c: _model_key(c) if _meta(c, TABLES) is not None else None, snapshot=True
        )
