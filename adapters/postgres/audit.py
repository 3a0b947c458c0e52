"""`PostgresIndexAudit`: drift of the derived index in PostgreSQL, checked in READ ONLY
transactions (the schema version, refused as on SQLite when it is not this release's;
the six triggers present and enabled, the per-app
statistics against the documents), and its repair in place (an idempotent install
recreates the triggers; the statistics are recounted)."""

from __future__ import annotations

from typing import Any

import attrs
import psycopg

from chat_recall.adapters.index_layout import ROLES_SQL
from chat_recall.adapters.postgres import migrations, setup
from chat_recall.adapters.postgres.database import PostgresDatabase
from chat_recall.domain.errors import ChatRecallError, IndexUnavailable
from chat_recall.domain.model import Finding
from chat_recall.domain.schema_version import (
    NOT_INSTALLED,
    installed_version,
    not_installed,
    usable_version,
    version_problem,
)


def findings(connection: psycopg.Connection[Any]) -> list[Finding]:
    stored = migrations.stored_schema_version(connection)
    if stored is None:
        return [not_installed()]
    problem = version_problem(stored, migrations.SCHEMA_VERSION)
    if problem is not None:  # another release's objects, or no version: nothing to judge
        return [problem]
    checks = [installed_version(usable_version(stored, migrations.SCHEMA_VERSION))]
    present = {
        row[0]
        for row in connection.execute(
            "SELECT t.tgname FROM pg_trigger AS t JOIN pg_class AS r ON r.oid = t.tgrelid "
            "WHERE r.relnamespace = current_schema()::regnamespace AND t.tgenabled <> 'D'"
        )
    }
    for name in migrations.TRIGGER_TABLES:
        missing = name not in present
        checks.append(
            Finding(
                "triggers",
                name,
                "missing or disabled: host writes are not indexed" if missing else None,
                "repair" if missing else None,
            )
        )
    odd = connection.execute(
        f"SELECT count(*) FROM {migrations.DOCS} WHERE role NOT IN ({ROLES_SQL})"
    ).fetchone()
    if odd and odd[0]:  # every read leaves them out
        checks.append(
            Finding(
                "integrity", "documents", f"{odd[0]} document rows hold an unknown role", "rebuild"
            )
        )
    rows = connection.execute(
        f"SELECT a.app_id, a.documents, count(d.message_id) FROM {migrations.APPS} AS a "
        f"LEFT JOIN {migrations.DOCS} AS d ON d.app_id = a.app_id "
        "GROUP BY a.app_id, a.documents ORDER BY a.app_id"
    ).fetchall()
    for app_id, counted, actual in rows:
        wrong = counted != actual
        checks.append(
            Finding(
                "statistics",
                f"app {app_id}",
                f"statistics count {counted} documents for {actual}" if wrong else None,
                "repair" if wrong else None,
            )
        )
    return checks


def recount(connection: psycopg.Connection[Any]) -> None:
    connection.execute(
        f"UPDATE {migrations.APPS} AS a SET documents = c.documents, terms = c.terms "
        f"FROM (SELECT a2.app_id, count(d.message_id) AS documents, "
        f"COALESCE(sum(d.terms), 0) AS terms FROM {migrations.APPS} AS a2 "
        f"LEFT JOIN {migrations.DOCS} AS d ON d.app_id = a2.app_id GROUP BY a2.app_id) AS c "
        "WHERE a.app_id = c.app_id"
    )


@attrs.define
class PostgresIndexAudit:
    database: PostgresDatabase

    def check(self, *, deep: bool = True) -> list[Finding]:
        try:
            return self.database.read(findings, snapshot=True)
        except ChatRecallError as error:
            return [Finding("database", "chat-recall objects", str(error), "repair")]

    def repair(self) -> list[str]:
        """Recreate the triggers (an install), then recount the statistics. Refuses a
        database without chat-recall, or with a stored version this release cannot use
        (never re-stamped)."""
        stored = self.database.read(migrations.stored_schema_version)
        if stored is None:
            raise IndexUnavailable(NOT_INSTALLED)
        usable_version(stored, migrations.SCHEMA_VERSION)
        before = [f for f in self.check() if not f.ok]
        setup.start(self.database)
        self.database.write(recount)
        return [f"{f.subject}: {f.problem}" for f in before]
