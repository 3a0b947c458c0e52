"""`PostgresIndexAudit`: drift of the derived index in PostgreSQL, checked in READ ONLY
transactions (the schema version, the six triggers present and enabled, the per-app
statistics against the documents), and its repair in place (an idempotent install
recreates the triggers; the statistics are recounted)."""

from __future__ import annotations

from typing import Any

import attrs
import psycopg

from chat_recall.adapters.postgres import migrations, setup
from chat_recall.adapters.postgres.database import PostgresDatabase
from chat_recall.domain.errors import ChatRecallError
from chat_recall.domain.model import Finding


def findings(connection: psycopg.Connection[Any]) -> list[Finding]:
    version = migrations.schema_version(connection)
    checks = [
        Finding(
            "schema_version",
            "chat-recall schema",
            None
            if version == migrations.SCHEMA_VERSION
            else f"version {version}, this release has {migrations.SCHEMA_VERSION}",
            None if version == migrations.SCHEMA_VERSION else "repair",
        )
    ]
    if version == 0:
        return checks
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
        before = [f for f in self.check() if not f.ok]
        setup.start(self.database)
        self.database.write(recount)
        return [f"{f.subject}: {f.problem}" for f in before]
