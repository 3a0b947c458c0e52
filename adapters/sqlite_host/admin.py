"""`SqliteAdministration`: the admin port (`adapters/administration.py`) for chat-recall
inside one SQLite database file, as the CLI's `init`, `install`, `uninstall`, `import`
and `status` do it: each call opens the file, does one job, closes it, and returns a
report (never prints).

Nothing here creates a file it was not asked to create: every call but `initialise`,
`import_history` and `import_file` refuses a path that does not exist, and those remove
the file again when they created it and then failed.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from chat_recall.adapters.administration import (
    CheckStatus,
    InitReport,
    InstallReport,
    NotIndexedStatus,
    RepairReport,
    StatusReport,
    UninstallReport,
)
from chat_recall.adapters.sqlite_host import engines, migrations, setup
from chat_recall.adapters.sqlite_host.database import SqliteDatabase, require_existing
from chat_recall.adapters.sqlite_host.importer import LinesReport, OnConflict, import_lines
from chat_recall.adapters.sqlite_host.message_repo import SqliteMessageRepo
from chat_recall.adapters.sqlite_host.schema import HostSchema
from chat_recall.domain.model import Finding
from chat_recall.domain.schema_version import version_problem
from chat_recall.domain.text.analysis import language_of_name
from chat_recall.domain.text.language import Language

if TYPE_CHECKING:
    from chat_recall.adapters.sqlite_host.engines import Engine
    from chat_recall.application.importing import ImportReport, ImportTarget
    from chat_recall.application.service import ChatRecall
    from chat_recall.domain.ports import IndexAudit

# Files SQLite keeps beside a database.
_COMPANIONS = ("-wal", "-shm", "-journal")


@contextlib.contextmanager
def _new_file(path: Path) -> Iterator[bool]:
    """Yields whether `path` is new; if it is and the block fails, the file (and the
    files SQLite made beside it) is removed again."""
    created = not path.exists()
    try:
        yield created
    except BaseException:
        if created:
            _remove(path)
        raise


def _remove(path: Path) -> None:
    for name in ("", *_COMPANIONS):
        Path(f"{path}{name}").unlink(missing_ok=True)


@contextlib.contextmanager
def _database(path: Path, schema: HostSchema) -> Iterator[SqliteDatabase]:
    database = SqliteDatabase(path, schema)
    try:
        yield database
    finally:
        database.close()


def _install(database: SqliteDatabase, language: Language | None = None) -> InstallReport:
    started = time.monotonic()
    report = setup.start(database, language=language)
    return InstallReport(
        report.previous_version,
        report.version,
        report.dirty_messages,
        time.monotonic() - started,
        database.lock_stats,
        report.language,
    )


@attrs.define
class SqliteAdministration:
    """`IndexAdministration` of a SQLite file, whichever engine holds its text (the
    engine's audit comes from `audit`; the facade `status` reads its figures through
    comes from `open_facade`: both built by the wiring, so this package imports no
    engine)."""

    path: Path
    schema: HostSchema
    audit: Callable[[SqliteDatabase], IndexAudit]
    open_facade: Callable[[], ChatRecall]

    def initialise(self, language: Language | None = None) -> InitReport:
        """A standalone database: the reference host tables (unless there) and the index
        (under `language`; None: the one it records, else English)."""
        path = self.path
        with _new_file(path) as created, _database(path, HostSchema.reference()) as database:
            with database.writing() as connection:
                had_tables = connection.execute(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)",
                    ("chats", "messages"),
                ).fetchone()[0]
            setup.create_reference_schema(database)
            return InitReport(created, had_tables < 2, _install(database, language))

    def install(self, language: Language | None = None) -> InstallReport:
        """Install the index, idempotently (under `language`; None: the one it records,
        else English: a change re-indexes in the background)."""
        with _database(require_existing(self.path), self.schema) as database:
            return _install(database, language)

    def recorded_language(self) -> Language | None:
        """The language the index records (None when nothing is installed or recorded)."""
        with (
            _database(require_existing(self.path), self.schema) as database,
            database.reading() as connection,
        ):
            recorded = migrations.chosen_analysis(connection)
        return None if recorded is None else language_of_name(recorded)

    def recorded_engine(self) -> Engine | None:
        """The engine that built the index (None when nothing is installed or recorded)."""
        with _database(require_existing(self.path), self.schema) as database:
            with database.reading() as connection:
                if migrations.stored_schema_version(connection) is None:
                    return None
            return engines.recorded_engine(database)

    def uninstall(self, *, keep_imports: bool = False) -> UninstallReport:
        """Drop every derived object (and the tantivy engine's indexes beside the file);
        host tables and rows are untouched. `keep_imports` (a rebuild) keeps the links of
        imported history, so importing it again still updates rather than duplicates."""
        started = time.monotonic()
        with _database(require_existing(self.path), self.schema) as database:
            removed = setup.uninstall(database, keep_imports=keep_imports)
        beside = engines.tantivy_directory(self.path)
        if beside.is_dir():
            shutil.rmtree(beside)
            removed = attrs.evolve(removed, dropped=(*removed.dropped, f"directory {beside.name}"))
        return UninstallReport(
            (*removed.dropped, *removed.forced),
            time.monotonic() - started,
            database.lock_stats,
            removed.forced,
        )

    def import_history(self, run: Callable[[ImportTarget], ImportReport]) -> ImportReport:
        """`run` an import into the database's host tables (`application.importing`). A
        missing database is created (reference schema only: host tables and index) and
        removed again if the import fails or writes nothing."""
        from chat_recall.adapters.sqlite_host.import_target import sqlite_import_target

        path, schema = self.path, self.schema
        if schema != HostSchema.reference():
            require_existing(path)
        with _new_file(path) as created:
            with _database(path, schema) as database:
                if schema == HostSchema.reference():
                    setup.create_reference_schema(database)
                setup.start(database)
                report = run(sqlite_import_target(database))
            if created and not report.wrote:
                _remove(path)
            return report

    def status(self, *, deep: bool = True) -> StatusReport:
        """Checks first (the engine's audit: schema version, triggers, registry, and with
        `deep` the integrity of the index data), then the engine-neutral figures through
        the facade (with the policy the bootstrap builds, so the stamp compares like with
        like) when the installed version can be read."""
        path = require_existing(self.path)
        with _database(path, self.schema) as database:
            with database.reading() as connection:
                stored = migrations.stored_schema_version(connection)
            # not installed: nothing to audit, and the report says so with the fix
            findings = [NOT_INSTALLED] if stored is None else self.audit(database).check(deep=deep)
        checks = [CheckStatus(f.check, f.subject, f.ok, f.problem, f.fix) for f in findings]
        report = StatusReport.checked(str(path), stored, migrations.SCHEMA_VERSION, checks)
        if stored is None or version_problem(stored, migrations.SCHEMA_VERSION) is not None:
            return report
        with self.open_facade() as recall:
            repo: SqliteMessageRepo = recall.repo  # type: ignore[assignment]
            never = [NotIndexedStatus(reason, count) for reason, count in repo.never_indexed()]
            return attrs.evolve(
                report.with_index(recall, registered_apps(recall)), not_indexed=never
            )

    def repair(self) -> RepairReport:
        """Restore what drifted in place (the engine's audit `repair`): the triggers, the
        app registry. Damaged index data needs `rebuild` instead."""
        started = time.monotonic()
        with _database(require_existing(self.path), self.schema) as database:
            done = self.audit(database).repair()
        return RepairReport(tuple(done), time.monotonic() - started)

    def registered_apps(self, recall: ChatRecall) -> list[int]:
        return registered_apps(recall)


NOT_INSTALLED = Finding(
    "schema_version", "chat-recall", "chat-recall is not installed in this database", "install"
)


def import_file(
    path: Path,
    schema: HostSchema,
    lines: Iterable[str],
    *,
    on_conflict: OnConflict,
    create: bool,
    on_batch: Callable[[LinesReport], None] | None = None,
) -> LinesReport:
    """Import JSON Lines into the host tables (see `importer`). With `create` and the
    reference schema, a missing database is created (host tables and index); it is
    removed again if the import fails or imports nothing."""
    if not create or schema != HostSchema.reference():
        require_existing(path)
    with _new_file(path) as created:
        with _database(path, schema) as database:
            if schema == HostSchema.reference():
                setup.create_reference_schema(database)
            setup.start(database)
            report = import_lines(database, lines, on_conflict=on_conflict, on_batch=on_batch)
        if created and not (report.chats or report.messages):
            _remove(path)
        return report


def registered_apps(recall: ChatRecall) -> list[int]:
    """The apps the index holds, as `status` lists them: apps with an FTS5 table, or
    with documents (the tantivy engine registers none)."""
    database: SqliteDatabase = recall.index.database  # type: ignore[attr-defined]
    with database.reading() as connection:
        return [
            int(row[0])
            for row in connection.execute(
                f"SELECT app_id FROM {migrations.APPS} "
                f"UNION SELECT DISTINCT app_id FROM {migrations.DOCS} ORDER BY 1"
            )
        ]
