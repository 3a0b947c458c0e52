"""The `ImportTarget` of a PostgreSQL database."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import psycopg

from chat_recall.adapters.postgres.database import PostgresDatabase
from chat_recall.adapters.postgres.importer import import_lines
from chat_recall.adapters.sql_import_target import Dialect, SqlImportTarget
from chat_recall.application.importing import LinesReport, OnConflict


def _inserted(connection: Any, sql: str, parameters: Sequence[object], key: str) -> int:
    row = connection.execute(f"{sql} RETURNING {key}", parameters).fetchone()
    return int(row[0])


DIALECT = Dialect(
    placeholder="%s",
    insert_returning_id=_inserted,
    # What one chat's values can break (a host constraint, a value out of a column's
    # range); a lost connection or a read-only server stops the import instead.
    row_errors=(psycopg.IntegrityError, psycopg.DataError),
    boolean=bool,
)


def postgres_import_target(database: PostgresDatabase) -> SqlImportTarget:
    def lines(
        text: Iterable[str],
        on_conflict: OnConflict,
        on_batch: Callable[[LinesReport], None] | None,
    ) -> LinesReport:
        return import_lines(database, text, on_conflict=on_conflict, on_batch=on_batch)

    return SqlImportTarget(database.schema, DIALECT, database.reading, database.writing, lines)
