"""Maintenance of chat-recall inside one SQLite database file, as the CLI's `init`,
`install`, `uninstall`, `import` and `status` do it: each function opens the file,
does one job, closes it, and returns a report (never prints).

No function here creates a file it was not asked to create: every one but
`initialise` and `import_file` refuses a path that does not exist, and those two remove
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

from chat_recall.adapters.sqlite import migrations, setup
from chat_recall.adapters.sqlite.audit import SqliteIndexAudit
from chat_recall.adapters.sqlite.database import SqliteDatabase, require_existing
from chat_recall.adapters.sqlite.importer import LinesReport, OnConflict, import_lines
from chat_recall.adapters.sqlite.index_store import SqliteFts5IndexStore
from chat_recall.adapters.sqlite.message_repo import SqliteMessageRepo
from chat_recall.adapters.sqlite.schema import HostSchema
from chat_recall.application.write_lock import WriteLockStats
from chat_recall.domain.indexing import index_stamp
from chat_recall.domain.model import AppId, Finding
from chat_recall.domain.schema_version import reported_version, version_problem
from chat_recall.domain.text.analysis import language_of_name
from chat_recall.domain.text.language import Language

if TYPE_CHECKING:
    from chat_recall.adapters.engines import Engine
    from chat_recall.adapters.tantivy.audit import TantivyIndexAudit
    from chat_recall.application.importing import ImportReport, ImportTarget
    from chat_recall.application.service import ChatRecall

QUARANTINE_SHOWN = 20

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


@attrs.frozen
class InstallReport:
    previous_version: int  # 0: chat-recall was not installed before
    version: int
    messages_to_index: int
    seconds: float
    write_lock: WriteLockStats  # how long host writers had to wait for this
    language: Language = Language.default()  # whose word families the index joins


@attrs.frozen
class InitReport:
    created_file: bool
    created_host_tables: bool
    install: InstallReport


@attrs.frozen
class UninstallReport:
    dropped: tuple[str, ...]
    seconds: float
    write_lock: WriteLockStats
    # Damaged objects removed from the schema because DROP failed on them: their pages
    # stay allocated in the file until the host runs VACUUM.
    forced: tuple[str, ...] = ()


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


def initialise(path: Path, language: Language | None = None) -> InitReport:
    """A standalone database: the reference host tables (unless there) and the index
    (under `language`; None: the one it records, else English)."""
    with _new_file(path) as created, _database(path, HostSchema.reference()) as database:
        with database.writing() as connection:
            had_tables = connection.execute(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)",
                ("chats", "messages"),
            ).fetchone()[0]
        setup.create_reference_schema(database)
        return InitReport(created, had_tables < 2, _install(database, language))


def install(path: Path, schema: HostSchema, language: Language | None = None) -> InstallReport:
    """Install or upgrade the index (under `language`; None: the one it records, else
    English: a change re-indexes in the background)."""
    with _database(require_existing(path), schema) as database:
        return _install(database, language)


def recorded_language(path: Path, schema: HostSchema) -> Language | None:
    """The language the index records (None when nothing is installed or recorded)."""
    with _database(require_existing(path), schema) as database, database.reading() as connection:
        recorded = migrations.chosen_analysis(connection)
    return None if recorded is None else language_of_name(recorded)


def recorded_engine(path: Path, schema: HostSchema) -> Engine | None:
    """The engine that built the index (None when nothing is installed or recorded)."""
    from chat_recall.adapters import engines

    with _database(require_existing(path), schema) as database:
        with database.reading() as connection:
            if migrations.stored_schema_version(connection) is None:
                return None
        return engines.recorded_engine(database)


def uninstall(path: Path, schema: HostSchema, *, keep_imports: bool = False) -> UninstallReport:
    """Drop every derived object (and the tantivy engine's indexes beside the file);
    host tables and rows are untouched. `keep_imports` (a rebuild) keeps the links of
    imported history, so importing it again still updates rather than duplicates."""
    from chat_recall.adapters import engines

    started = time.monotonic()
    with _database(require_existing(path), schema) as database:
        removed = setup.uninstall(database, keep_imports=keep_imports)
    beside = engines.tantivy_directory(path)
    if beside.is_dir():
        shutil.rmtree(beside)
        removed = attrs.evolve(removed, dropped=(*removed.dropped, f"directory {beside.name}"))
    return UninstallReport(
        (*removed.dropped, *removed.forced),
        time.monotonic() - started,
        database.lock_stats,
        removed.forced,
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


def import_history(
    path: Path, schema: HostSchema, run: Callable[[ImportTarget], ImportReport]
) -> ImportReport:
    """`run` an import into the database's host tables (`application.importing`). A
    missing database is created (reference schema only: host tables and index) and
    removed again if the import fails or writes nothing."""
    from chat_recall.adapters.sqlite.import_target import sqlite_import_target

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


# -- status ------------------------------------------------------------------------------


@attrs.frozen
class StampStatus:
    """The index stamp (projection, value reader, host mapping): a change re-indexes."""

    stored: str | None
    current: str
    rebuild_pending: bool


@attrs.frozen
class BacklogStatus:
    messages: int
    chats: int
    purges: int


@attrs.frozen
class AppStatus:
    app_id: int
    documents: int
    deleted_awaiting_maintenance: int


@attrs.frozen
class QuarantinedStatus:
    message_id: int
    app_id: int | None
    reason: str


@attrs.frozen
class NotIndexedStatus:
    """Host messages no index holds by design, and why (`SqliteMessageRepo.never_indexed`)."""

    reason: str
    messages: int


@attrs.frozen
class CheckStatus:
    """One check of the derived index (`domain.model.Finding`): what it covered, and
    when it failed, the problem and its fix (`repair`: `chat-recall repair` or `index`;
    `rebuild`; `upgrade`)."""

    check: str
    subject: str
    ok: bool
    problem: str | None
    fix: str | None


@attrs.frozen
class SemanticStatus:
    """The semantic layer's model, how far its vectors cover the visible messages, how
    many wait for one (`backlog`), and where text goes (None: nowhere, it is local)."""

    model: str | None
    embedded: int
    backlog: int
    coverage: float
    sends_text_to: str | None

    @classmethod
    def of(cls, recall: ChatRecall) -> SemanticStatus | None:
        settings = recall.vectors.semantic_settings()
        if settings is None and recall.vectors.vector_model() is None:
            return None
        from chat_recall.adapters.semantic import Semantic

        destination = None if settings is None else Semantic.from_record(settings).destination
        coverage = recall.vectors.vector_coverage(None)
        return cls(
            coverage.model,
            coverage.embedded,
            coverage.pending,
            round(coverage.fraction, 4),
            destination,
        )


@attrs.frozen
class StatusReport:
    """What `chat-recall status` shows. Data only: the CLI renders it as JSON or text,
    generically, so a new field shows up in every format without touching the CLI.

    Gathered on read-only connections: status never takes the write lock and works on
    a database this process cannot write. When the schema version cannot be used (a
    newer release, or no version at all) the figures that depend on it are None and
    `checks` says why."""

    database: str
    schema_version: int | str | None  # as stored: None when not installed
    release_schema_version: int
    index_stamp: StampStatus | None
    backlog: BacklogStatus | None
    apps: list[AppStatus]
    quarantined: int | None  # host rows set aside as unreadable (the first ones below)
    quarantined_rows: list[QuarantinedStatus]
    # host messages chat-recall never indexes: other roles, no chat (not a problem)
    not_indexed: list[NotIndexedStatus]
    checks: list[CheckStatus]
    problems: list[str]
    # whose word families the index joins (`Language`; None: not installed)
    language: str | None = None
    # The semantic layer (None while it is off and was never on).
    semantic: SemanticStatus | None = None

    @classmethod
    def checked(
        cls, database: str, stored: object, release: int, checks: list[CheckStatus]
    ) -> StatusReport:
        """The stored version and the drift checks; the index figures follow
        (`with_index`) when the version can be used."""
        return cls(
            database=database,
            schema_version=reported_version(stored),
            release_schema_version=release,
            index_stamp=None,
            backlog=None,
            apps=[],
            quarantined=None,
            quarantined_rows=[],
            not_indexed=[],
            checks=checks,
            problems=[f"{c.subject}: {c.problem}" for c in checks if not c.ok],
        )

    def with_index(self, recall: ChatRecall, app_ids: Iterable[int]) -> StatusReport:
        """The engine-neutral figures, read through the facade (with the policy the
        bootstrap builds, so the stamp compares like with like)."""
        index = recall.index
        backlog = recall.dirty.backlog()
        stored_stamp = index.projection_stamp()
        current = index_stamp(recall.policy, recall.repo.source_fingerprint())
        quarantine = index.quarantine(QUARANTINE_SHOWN)
        apps = []
        for app_id in app_ids:
            stats = index.stats(AppId(app_id))
            apps.append(AppStatus(app_id, stats.documents, stats.unreclaimed))
        return attrs.evolve(
            self,
            language=index.analysis.language.value,
            semantic=SemanticStatus.of(recall),
            index_stamp=StampStatus(stored_stamp, current, stored_stamp != current),
            backlog=BacklogStatus(backlog.messages, backlog.chats, backlog.purges),
            apps=apps,
            quarantined=quarantine.total,
            quarantined_rows=[
                QuarantinedStatus(row.message_id, row.app_id, row.reason.value)
                for row in quarantine.rows
            ],
        )

    @property
    def healthy(self) -> bool:
        return not self.problems


def status(path: Path, schema: HostSchema, *, deep: bool = True) -> StatusReport:
    """Checks first (`SqliteIndexAudit`: schema version, triggers, registry, and with
    `deep` the integrity of the index data), then the engine-neutral figures through
    the facade (with the policy the bootstrap builds, so the stamp compares like with
    like) when the installed version can be read."""
    from chat_recall.adapters import bootstrap

    require_existing(path)
    with _database(path, schema) as database:
        with database.reading() as connection:
            stored = migrations.stored_schema_version(connection)
        # not installed: nothing to audit, and the report says so with the fix
        findings = [NOT_INSTALLED] if stored is None else _audit(database).check(deep=deep)
    checks = [CheckStatus(f.check, f.subject, f.ok, f.problem, f.fix) for f in findings]
    report = StatusReport.checked(str(path), stored, migrations.SCHEMA_VERSION, checks)
    if stored is None or version_problem(stored, migrations.SCHEMA_VERSION) is not None:
        return report
    with bootstrap.sqlite(path, schema=schema, install=False, engine=None) as recall:
        repo: SqliteMessageRepo = recall.repo  # type: ignore[assignment]
        never = [NotIndexedStatus(reason, count) for reason, count in repo.never_indexed()]
        return attrs.evolve(report.with_index(recall, registered_apps(recall)), not_indexed=never)


NOT_INSTALLED = Finding(
    "schema_version", "chat-recall", "chat-recall is not installed in this database", "install"
)


def _audit(database: SqliteDatabase) -> SqliteIndexAudit | TantivyIndexAudit:
    """The audit of the engine that built the index (`SqliteIndexAudit` for FTS5)."""
    from chat_recall.adapters import engines

    if database.path is not None and engines.recorded_engine(database) is engines.Engine.TANTIVY:
        from chat_recall.adapters.tantivy.audit import TantivyIndexAudit

        return TantivyIndexAudit(database, engines.tantivy_directory(database.path))
    return SqliteIndexAudit(database, SqliteFts5IndexStore(database))


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


def repair(path: Path, schema: HostSchema) -> RepairReport:
    """Restore what drifted in place (`SqliteIndexAudit.repair`): the schema upgrade,
    the triggers, the app registry. Damaged index data needs `rebuild` instead."""
    started = time.monotonic()
    with _database(require_existing(path), schema) as database:
        done = _audit(database).repair()
    return RepairReport(tuple(done), time.monotonic() - started)


@attrs.frozen
class RepairReport:
    done: tuple[str, ...]
    seconds: float
