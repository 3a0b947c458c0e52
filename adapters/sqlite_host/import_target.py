"""The `ImportTarget` of a SQLite database (the tantivy engine's too: the host's rows and
the links live in the database file either way)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from chat_recall.adapters.sql_import_target import Dialect, SqlImportTarget
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.importer import import_lines
from chat_recall.application.importing import LinesReport, OnConflict


def _inserted(connection: Any, sql: str, parameters: Sequence[object], key: str) -> int:
    return int(connection.execute(sql, parameters).lastrowid)


DIALECT = Dialect(
    placeholder="?",
    insert_returning_id=_inserted,
    # What one chat's values can break (a host constraint, a value the driver cannot
    # bind); busy, damaged or read-only storage stops the import instead.
    row_errors=(sqlite3.IntegrityError, sqlite3.InterfaceError, OverflowError),
    boolean=int,
)


def sqlite_import_target(database: SqliteDatabase) -> SqlImportTarget:
    def lines(
        text: Iterable[str],
        on_conflict: OnConflict,
        on_batch: Callable[[LinesReport], None] | None,
    ) -> LinesReport:
        return import_lines(database, text, on_conflict=on_conflict, on_batch=on_batch)

    return SqlImportTarget(database.schema, DIALECT, database.reading, database.writing, lines)
