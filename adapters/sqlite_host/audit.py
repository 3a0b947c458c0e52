"""`HostDatabaseAudit`: drift and damage of chat-recall's tables in the host's SQLite
database, found without a write lock, and repaired in place where that is possible.
Both engines keep their bookkeeping there, so both audits start from this one: the FTS5
engine's (`adapters/sqlite/audit.py`) adds what its index store caches, the tantivy
engine's (`adapters/tantivy/audit.py`) the indexes beside the file.

Checks run on their own read-only connection (`SqliteDatabase.inspecting`): a host
writer never waits for them. FTS5's own `integrity-check` is a write statement (it
takes the write lock for as long as it reads the whole index), so the deep check reads
instead: `PRAGMA quick_check` of every chat-recall table (b-tree structure, page by
page), every app table's postings decoded through an `fts5vocab` view (corrupt index
data or shadow tables fail it), and index rows counted against documents.
"""

from __future__ import annotations

import sqlite3

import attrs

from chat_recall.adapters.index_layout import ROLES_SQL
from chat_recall.adapters.sqlite_host import registry, setup
from chat_recall.adapters.sqlite_host.database import SqliteDatabase, translate
from chat_recall.adapters.sqlite_host.migrations import (
    APPS,
    DOCS,
    PURGE,
    SCHEMA_VERSION,
    derived_objects,
    is_virtual,
    stored_schema_version,
    trigger_drift,
)
from chat_recall.adapters.sqlite_host.schema import quote
from chat_recall.domain.errors import IndexUnavailable
from chat_recall.domain.model import Finding
from chat_recall.domain.schema_version import (
    NOT_INSTALLED,
    installed_version,
    not_installed,
    usable_version,
    version_problem,
)
from chat_recall.domain.wording import counted

VOCAB = "temp.chat_recall_audit_vocab"


@attrs.define
class HostDatabaseAudit:
    database: SqliteDatabase

    def check(self, *, deep: bool = True) -> list[Finding]:
        try:
            with self.database.inspecting() as connection:
                return self._checks(connection, deep)
        except sqlite3.Error as error:  # the database itself could not be read
            return [Finding("database", "database", str(translate(error)), "rebuild")]

    def _checks(self, connection: sqlite3.Connection, deep: bool) -> list[Finding]:
        stored = stored_schema_version(connection)
        if stored is None:
            return [not_installed()]
        problem = version_problem(stored, SCHEMA_VERSION)
        if problem is not None:
            return [problem]
        findings = [installed_version(usable_version(stored, SCHEMA_VERSION))]
        findings += _guarded("triggers", lambda: self._triggers(connection))
        findings += _guarded("registry", lambda: _registry(connection))
        if deep:
            findings += _integrity(connection)
        return findings

    def _triggers(self, connection: sqlite3.Connection) -> list[Finding]:
        drift = trigger_drift(connection, self.database.schema)
        if not drift:
            return [Finding("triggers", "triggers")]
        return [
            Finding(
                "triggers",
                line.split()[1],
                line + (": host writes are not all tracked" if line.startswith("trigger") else ""),
                "repair",
            )
            for line in drift
        ]

    def repair(self) -> list[str]:
        """Recreate the triggers (as every start does), then restore the registry; each
        step a short transaction."""
        with self.database.reading() as connection:
            stored = stored_schema_version(connection)
            drifted = trigger_drift(connection, self.database.schema) if stored else []
        if stored is None:
            raise IndexUnavailable(NOT_INSTALLED)
        usable_version(stored, SCHEMA_VERSION)  # raises for a newer or unusable version
        done = []
        report = setup.start(self.database)
        if drifted:  # `migrations.install` walks the order again
            done.append("recreated the triggers (" + "; ".join(drifted) + ")")
            done.append(
                "walked every message into the chat order again (host writes made "
                "while the triggers were missing are read in their place)"
            )
        done += report.registry_repairs
        return done


# What a check reports when SQLite fails to allocate while reading chat-recall's
# tables (Python raises MemoryError for SQLITE_NOMEM, not sqlite3.Error).
NO_MEMORY = "SQLite could not allocate memory to read it: damaged data asks for an impossible size"


def _guarded(check: str, run: object) -> list[Finding]:
    """A check's findings; a driver error while checking is a finding itself."""
    try:
        return run()  # type: ignore[operator,no-any-return]
    except sqlite3.Error as error:
        return [Finding(check, check, str(translate(error)), "rebuild")]
    except MemoryError:  # SQLITE_NOMEM: e.g. a damaged FTS5 record asks for a huge size
        return [Finding(check, check, NO_MEMORY, "rebuild")]


def _registry(connection: sqlite3.Connection) -> list[Finding]:
    drift = registry.drift(connection)
    if drift.is_empty:
        return [Finding("registry", "apps")]
    return [
        Finding("registry", f"app {app}", problem, "repair") for app, problem in drift.problems()
    ]


def _integrity(connection: sqlite3.Connection) -> list[Finding]:
    objects = derived_objects(connection)
    plain = sorted(name for kind, name, sql in objects if kind == "table" and not is_virtual(sql))
    findings = []
    damaged = set()
    for name in plain:
        problem = _quick_check(connection, name)
        if problem is not None:
            damaged.add(name)
            findings.append(Finding("integrity", name, problem, "rebuild"))
    tables = {name for kind, name, sql in objects if kind == "table" and is_virtual(sql)}
    registered = connection.execute(f"SELECT app_id, fts_table FROM {APPS} ORDER BY app_id")
    for app_id, table in registered.fetchall():
        if table not in tables or any(name.startswith(f"{table}_") for name in damaged):
            continue  # reported by the registry check, or its shadow tables above
        problem = _postings(connection, app_id, table)
        if problem is not None:
            findings.append(Finding("integrity", f"app {app_id}", problem, "rebuild"))
    if DOCS not in damaged:
        problem = _document_rows(connection)
        if problem is not None:
            findings.append(Finding("integrity", "documents", problem, "rebuild"))
    if not findings:
        findings.append(Finding("integrity", "index"))
    return findings


def _document_rows(connection: sqlite3.Connection) -> str | None:
    """Document rows whose role is none chat-recall writes (every read leaves them out)."""
    try:
        odd = connection.execute(
            f"SELECT count(*) FROM {DOCS} WHERE role NOT IN ({ROLES_SQL})"
        ).fetchone()[0]
    except sqlite3.Error as error:
        return str(translate(error))
    return f"{odd} document rows hold an unknown role" if odd else None


def _quick_check(connection: sqlite3.Connection, table: str) -> str | None:
    try:
        rows = connection.execute(f"PRAGMA quick_check({quote(table)})").fetchall()
    except sqlite3.Error as error:
        return str(translate(error))
    if rows == [("ok",)]:
        return None
    first = str(rows[0][0]).replace("*** in database main ***\n", "").splitlines()[0]
    return f"damaged b-tree ({first})"


def _postings(connection: sqlite3.Connection, app_id: int, table: str) -> str | None:
    """Decode every posting of the app's table, and count its rows against the
    documents (visible, and deleted ones awaiting maintenance)."""
    try:
        connection.execute(
            f"CREATE VIRTUAL TABLE {VOCAB} USING fts5vocab(main, {quote(table)}, 'instance')"
        )
        try:
            connection.execute(f"SELECT count(*) FROM {VOCAB}").fetchone()
        finally:
            connection.execute(f"DROP TABLE {VOCAB}")
        # One statement, so one snapshot: counted apart, a host delete committing in
        # between (its document hidden, its index row queued for maintenance) or the
        # indexer's batch would look like damage.
        rows, expected = connection.execute(
            f"SELECT (SELECT count(*) FROM {quote(table)}), "
            f"(SELECT count(*) FROM {DOCS} WHERE app_id = ?) + "
            f"(SELECT count(*) FROM {PURGE} WHERE app_id = ?)",
            (app_id, app_id),
        ).fetchone()
    except sqlite3.Error as error:
        return str(translate(error))
    except MemoryError:
        return NO_MEMORY
    if rows != expected:
        return f"{counted(rows, 'index row')} for {counted(expected, 'document')}"
    return None
