"""The vector tables in the host's SQLite database and the hooks the engines call
inside their own transactions (`vector_rows.py` has the store and says why). Apart
from the store so that `document_rows` can call the hooks without an import cycle."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from chat_recall.adapters.sqlite_host.migrations import META
from chat_recall.domain.model import AppId, IndexDocument

VECTORS = "chat_recall_vectors"
VECTOR_QUEUE = "chat_recall_vector_queue"
MODEL = "vector_model"
MODEL_KEY = "vector_model_key"
QUEUE_AFTER = "vector_queue_after"  # queueing every document after a model change
DROPPING = "vector_dropping"  # vectors of an earlier model may remain
SETTINGS = "semantic_settings"  # the host's or user's choice (`adapters/semantic.py`)
TABLES = "vector_tables"  # the tables exist (the engines' hooks touch them only then)
DDL = (
    f"CREATE TABLE IF NOT EXISTS {VECTORS} (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
    "message_id INTEGER NOT NULL UNIQUE, app_id INTEGER NOT NULL, model INTEGER NOT NULL, "
    "vector BLOB NOT NULL)",
    f"CREATE INDEX IF NOT EXISTS {VECTORS}_app ON {VECTORS}(app_id, model, seq)",
    f"CREATE TABLE IF NOT EXISTS {VECTOR_QUEUE} (message_id INTEGER PRIMARY KEY, "
    "app_id INTEGER NOT NULL, seq INTEGER NOT NULL)",
    f"CREATE INDEX IF NOT EXISTS {VECTOR_QUEUE}_app ON {VECTOR_QUEUE}(app_id)",
)
# Vectors written per statement at most (4 bound values each).
WRITE_ROWS = 200


def meta(connection: sqlite3.Connection, key: str) -> str | None:
    row = connection.execute(f"SELECT value FROM {META} WHERE key = ?", (key,)).fetchone()
    return None if row is None or row[0] is None else str(row[0])


def set_meta(connection: sqlite3.Connection, key: str, value: str | None) -> None:
    if value is None:
        connection.execute(f"DELETE FROM {META} WHERE key = ?", (key,))
    else:
        connection.execute(f"INSERT OR REPLACE INTO {META}(key, value) VALUES (?, ?)", (key, value))


def recorded_settings(connection: sqlite3.Connection) -> str | None:
    """The semantic settings recorded with the index (read at every start: one row)."""
    return meta(connection, SETTINGS)


def model_key(connection: sqlite3.Connection) -> int | None:
    """The key of the recorded model; None while the layer is off."""
    value = meta(connection, MODEL_KEY)
    return None if value is None or meta(connection, MODEL) is None else int(value)


def tables_exist(connection: sqlite3.Connection) -> bool:
    return meta(connection, TABLES) is not None


def queue_documents(connection: sqlite3.Connection, documents: Sequence[IndexDocument]) -> None:
    """Inside the engine's put: the documents just written wait for a vector (a new
    random seq each time). Nothing while the layer is off."""
    if not documents or model_key(connection) is None:
        return
    connection.execute(
        f"INSERT OR REPLACE INTO {VECTOR_QUEUE}(message_id, app_id, seq) "
        "SELECT value ->> 0, value ->> 1, random() FROM json_each(?)",
        (_as_json([(d.message_id, d.app_id) for d in documents]),),
    )


def forget_vectors(connection: sqlite3.Connection, ids_json: str) -> None:
    """Inside the engine's removal of documents (the ids as a JSON array): their
    vectors and queue rows go with them."""
    if meta(connection, TABLES) is None:
        return  # the tables were never made, or are gone with the layer
    for table in (VECTORS, VECTOR_QUEUE):
        connection.execute(
            f"DELETE FROM {table} WHERE message_id IN (SELECT value FROM json_each(?))",
            (ids_json,),
        )


def forget_app_vectors(connection: sqlite3.Connection, app_id: AppId) -> None:
    """An app's index dropped whole (a rebuild of it): its vectors and queue rows too."""
    if meta(connection, TABLES) is None:
        return
    for table in (VECTORS, VECTOR_QUEUE):
        connection.execute(f"DELETE FROM {table} WHERE app_id = ?", (app_id,))


def _as_json(values: Sequence[object]) -> str:
    return json.dumps(values, separators=(",", ":"))
