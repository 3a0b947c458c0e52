"""Which engine holds the searchable text of an index kept in a host's SQLite database,
and what changes when a host switches.

Both engines keep the dirty queue, the triggers, `chat_recall_docs` (what is visible),
the purge list and the quarantine in the host's database; they differ in where the text
and its postings live: FTS5 tables in the same file (`SQLITE`, the default), or tantivy
indexes in a directory beside it (`TANTIVY`, the optional `tantivy` extra). The engine
that built the index is recorded in `chat_recall_meta`; opening the database with the
other one drops the old engine's text and re-indexes every message in the background
(old visible documents answer nothing until they are re-indexed: searches say
`indexing` meanwhile).
"""

from __future__ import annotations

import enum
import shutil
from pathlib import Path

from chat_recall.adapters.host_schema import quote
from chat_recall.adapters.sqlite_host import migrations
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.domain.errors import IndexUnavailable

ENGINE_KEY = "engine"
# The projection stamp left by an engine switch: it matches no real stamp, so the
# indexer's start re-marks every message (in short chunks) and stamps them anew.
SWITCHED_STAMP = "engine-switched"
TANTIVY_DIRECTORY_SUFFIX = ".chat-recall-tantivy"


class Engine(enum.Enum):
    SQLITE = "sqlite"  # FTS5 tables inside the host's database (the default)
    TANTIVY = "tantivy"  # tantivy indexes beside the database (extra `tantivy`)


def tantivy_directory(database_file: Path) -> Path:
    """Where the tantivy indexes of a database file live: beside it."""
    return database_file.with_name(database_file.name + TANTIVY_DIRECTORY_SUFFIX)


def recorded_engine(database: SqliteDatabase) -> Engine | None:
    """The engine that built the installed index (None: nothing indexed yet). Indexes
    from before this record were built by SQLite FTS5."""
    with database.reading() as connection:
        row = connection.execute(
            f"SELECT value FROM {migrations.META} WHERE key = ?", (ENGINE_KEY,)
        ).fetchone()
        if row is not None:
            return Engine(row[0])
        built = connection.execute(f"SELECT 1 FROM {migrations.DOCS} LIMIT 1").fetchone()
    return Engine.SQLITE if built else None


def use_engine(database: SqliteDatabase, engine: Engine) -> None:
    """At start (after install): record `engine`; when the index was built by the other
    engine, drop that engine's text and have every message re-indexed."""
    previous = recorded_engine(database)
    if previous is engine:
        return
    with database.writing() as connection:
        connection.execute(
            f"INSERT OR REPLACE INTO {migrations.META}(key, value) VALUES (?, ?)",
            (ENGINE_KEY, engine.value),
        )
        if previous is None:
            return
        connection.execute(
            f"INSERT OR REPLACE INTO {migrations.META}(key, value) VALUES ('projection', ?)",
            (SWITCHED_STAMP,),
        )
    if previous is Engine.SQLITE:
        with database.reading() as connection:
            tables = connection.execute(f"SELECT fts_table FROM {migrations.APPS}").fetchall()
        for (table,) in tables:  # one app per transaction
            with database.writing() as connection:
                connection.execute(f"DROP TABLE IF EXISTS {quote(table)}")
                connection.execute(f"DELETE FROM {migrations.APPS} WHERE fts_table = ?", (table,))
    elif database.path is not None:
        shutil.rmtree(tantivy_directory(database.path), ignore_errors=True)


def check_engine(database: SqliteDatabase, engine: Engine) -> None:
    """Read-only start: the installed index must have been built by `engine`."""
    previous = recorded_engine(database)
    if previous is not None and previous is not engine:
        raise IndexUnavailable(
            f"this database's index was built by the {previous.value} engine; open it with "
            f"engine={previous.value!r} or let an indexing process switch it"
        )
