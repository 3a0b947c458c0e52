"""Start-up of the SQLite adapter: capability and schema checks, install, uninstall."""

from __future__ import annotations

import sqlite3

import attrs

from chat_recall.adapters.sqlite import migrations
from chat_recall.adapters.sqlite.database import SqliteDatabase, check_fts5
from chat_recall.adapters.sqlite.schema import REFERENCE_HOST_DDL
from chat_recall.domain.errors import IndexUnavailable


@attrs.frozen
class InstallReport:
    previous_version: int
    version: int
    dirty_messages: int


def create_reference_schema(database: SqliteDatabase) -> None:
    """Create the reference host's chats and messages tables (standalone use)."""
    with database.writing() as connection:
        migrations.execute_script(connection, REFERENCE_HOST_DDL)


def start(database: SqliteDatabase) -> InstallReport:
    """Check FTS5 and the host schema, switch to WAL, and install or upgrade the derived
    objects. Idempotent; safe at every start."""
    with database.writing() as connection:
        check_fts5(connection)
        database.schema.verify(connection)
    database.enable_wal()
    with database.writing() as connection:
        previous = migrations.install(connection, database.schema)
        dirty = connection.execute(f"SELECT count(*) FROM {migrations.DIRTY_MESSAGES}").fetchone()[
            0
        ]
    return InstallReport(previous, migrations.SCHEMA_VERSION, int(dirty))


def verify(database: SqliteDatabase) -> int:
    """Read-only start: FTS5, the schema mapping, and an installed derived index.
    Returns the installed schema version."""
    with database.reading() as connection:
        check_fts5_readonly(connection)
        database.schema.verify(connection)
        version = migrations.schema_version(connection)
    if version == 0:
        raise IndexUnavailable("chat-recall is not installed in this database (run install)")
    return version


def check_fts5_readonly(connection: sqlite3.Connection) -> None:
    """The FTS5 check without creating anything: the compile options name it."""
    options = {row[0] for row in connection.execute("PRAGMA compile_options")}
    if "ENABLE_FTS5" not in options:
        check_fts5(connection)


def uninstall(database: SqliteDatabase) -> list[str]:
    """Remove every derived object; no host row is touched."""
    with database.writing() as connection:
        return migrations.uninstall(connection)
