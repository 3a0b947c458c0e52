"""`PostgresAdministration`: the admin port (`adapters/administration.py`) for
chat-recall inside a PostgreSQL database, as the CLI's `init`, `install`, `uninstall`,
`import` and `status` do it for a `postgresql://` URL: each call connects, does one
job, disconnects, and returns the same reports as the SQLite file's (never prints).

PostgreSQL has no database-wide write lock: the `write_lock` figures report the
transactions that locked the host's tables against writes (creating or dropping the
triggers), the only moments a host writer waits for chat-recall.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import attrs
import psycopg

from chat_recall.adapters.administration import (
    CheckStatus,
    InitReport,
    InstallReport,
    NotIndexedStatus,
    RepairReport,
    StatusReport,
    UninstallReport,
)
from chat_recall.adapters.host_schema import HostSchema
from chat_recall.adapters.postgres import migrations, setup
from chat_recall.adapters.postgres.audit import PostgresIndexAudit, findings
from chat_recall.adapters.postgres.database import PostgresDatabase
from chat_recall.adapters.postgres.importer import import_lines
from chat_recall.adapters.postgres.message_repo import PostgresMessageRepo
from chat_recall.application.importing import (
    ImportReport,
    ImportTarget,
    LinesReport,
    OnConflict,
)
from chat_recall.application.write_lock import WriteLockStats
from chat_recall.domain.schema_version import version_problem
from chat_recall.domain.text.analysis import language_of_name
from chat_recall.domain.text.language import Language

if TYPE_CHECKING:
    from chat_recall.application.service import ChatRecall


@contextlib.contextmanager
def _database(url: str, schema: HostSchema) -> Iterator[PostgresDatabase]:
    database = PostgresDatabase(url, schema, pool_size=1)
    database.probe()
    try:
        yield database
    finally:
        database.close()


def _locked(seconds: float) -> WriteLockStats:
    stats = WriteLockStats()
    stats.record(seconds)
    return stats


def _install(database: PostgresDatabase, language: Language | None = None) -> InstallReport:
    started = time.monotonic()
    report = setup.start(database, language=language)
    return InstallReport(
        report.previous_version,
        report.version,
        report.dirty_messages,
        time.monotonic() - started,
        _locked(report.locked_seconds),
        report.language,
    )


@attrs.define
class PostgresAdministration:
    """`IndexAdministration` of a PostgreSQL database (the facade `status` reads its
    figures through comes from `open_facade`, built by the wiring)."""

    url: str
    schema: HostSchema
    open_facade: Callable[[], ChatRecall]

    def initialise(self, language: Language | None = None) -> InitReport:
        """The reference host tables (unless there) and the index (under `language`, as
        the SQLite file's `initialise`)."""
        with _database(self.url, HostSchema.reference()) as database:
            created = setup.create_reference_schema(database)
            return InitReport(False, created, _install(database, language))

    def install(self, language: Language | None = None) -> InstallReport:
        with _database(self.url, self.schema) as database:
            return _install(database, language)

    def recorded_language(self) -> Language | None:
        """The language the index records (None when nothing is installed)."""
        with _database(self.url, self.schema) as database:
            recorded = database.read(migrations.chosen_analysis)
        return None if recorded is None else language_of_name(recorded)

    def recorded_engine(self) -> None:
        """PostgreSQL has one engine (its own text search); `rebuild` keeps nothing else."""
        return None

    def uninstall(self, *, keep_imports: bool = False) -> UninstallReport:
        """Drop every derived object; host tables and rows are untouched (`keep_imports`:
        as the SQLite file's `uninstall`)."""
        started = time.monotonic()
        with _database(self.url, self.schema) as database:
            dropped = setup.uninstall(database, keep_imports=keep_imports)
        seconds = time.monotonic() - started
        return UninstallReport(tuple(dropped), seconds, _locked(seconds))

    def import_history(self, run: Callable[[ImportTarget], ImportReport]) -> ImportReport:
        """`run` an import into the host tables; with the reference schema they are
        created first (the database itself must exist)."""
        from chat_recall.adapters.postgres.import_target import postgres_import_target

        with _database(self.url, self.schema) as database:
            if self.schema == HostSchema.reference():
                setup.create_reference_schema(database)
            setup.start(database)
            return run(postgres_import_target(database))

    def status(self) -> StatusReport:
        """Everything read in READ ONLY transactions: the schema version and the drift
        checks from the catalog first; then, when the installed version can be read, the
        engine-neutral figures through the facade and the apps."""
        url = self.url
        with _database(url, self.schema) as database:
            stored = database.read(migrations.stored_schema_version)
            checks = database.read(drift_checks, snapshot=True)
        report = StatusReport.checked(
            _without_password(url), stored, migrations.SCHEMA_VERSION, checks
        )
        if stored is None or version_problem(stored, migrations.SCHEMA_VERSION) is not None:
            return report
        with self.open_facade() as recall:
            repo: PostgresMessageRepo = recall.repo  # type: ignore[assignment]
            never = [NotIndexedStatus(reason, count) for reason, count in repo.never_indexed()]
            return attrs.evolve(
                report.with_index(recall, registered_apps(recall)), not_indexed=never
            )

    def repair(self) -> RepairReport:
        """Restore what drifted in place (`PostgresIndexAudit.repair`)."""
        started = time.monotonic()
        with _database(self.url, self.schema) as database:
            done = PostgresIndexAudit(database).repair()
        return RepairReport(tuple(done), time.monotonic() - started)

    def registered_apps(self, recall: ChatRecall) -> list[int]:
        return registered_apps(recall)


def import_file(
    url: str,
    schema: HostSchema,
    lines: Iterable[str],
    *,
    on_conflict: OnConflict,
    create: bool,
    on_batch: Callable[[LinesReport], None] | None = None,
) -> LinesReport:
    """Import JSON Lines into the host tables; with the reference schema and `create`,
    the reference tables are created first (the database itself must exist)."""
    with _database(url, schema) as database:
        if create and schema == HostSchema.reference():
            setup.create_reference_schema(database)
        setup.start(database)
        return import_lines(database, lines, on_conflict=on_conflict, on_batch=on_batch)


def registered_apps(recall: ChatRecall) -> list[int]:
    """The apps the index holds, as `status` lists them: the app registry's rows."""
    database: PostgresDatabase = recall.index.database  # type: ignore[attr-defined]
    return database.read(
        lambda c: [
            int(row[0])
            for row in c.execute(f"SELECT app_id FROM {migrations.APPS} ORDER BY app_id")
        ]
    )


def repair(url: str, schema: HostSchema) -> RepairReport:
    """Restore what drifted in place (`PostgresIndexAudit.repair`)."""
    started = time.monotonic()
    with _database(url, schema) as database:
        done = PostgresIndexAudit(database).repair()
    return RepairReport(tuple(done), time.monotonic() - started)


def drift_checks(connection: psycopg.Connection[Any]) -> list[CheckStatus]:
    return [CheckStatus(f.check, f.subject, f.ok, f.problem, f.fix) for f in findings(connection)]


def _without_password(url: str) -> str:
    info = psycopg.conninfo.conninfo_to_dict(url)
    info.pop("password", None)
    return psycopg.conninfo.make_conninfo(**info)  # type: ignore[arg-type]
