"""Maintenance of chat-recall inside one SQLite database file, as the CLI's `init`,
`install`, `uninstall`, `import` and `status` do it: each function opens the file,
does one job, closes it, and returns a report (never prints).

No function here creates a file it was not asked to create: every one but
`initialise` and `import_file` refuses a path that does not exist, and those two remove
the file again when they created it and then failed.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import attrs

from chat_recall.adapters.sqlite import migrations, setup
from chat_recall.adapters.sqlite.database import SqliteDatabase, WriteLockStats, require_existing
from chat_recall.adapters.sqlite.importer import ImportReport, OnConflict, import_lines
from chat_recall.adapters.sqlite.schema import HostSchema, quote
from chat_recall.domain.indexing import index_stamp
from chat_recall.domain.model import AppId

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


def _install(database: SqliteDatabase) -> InstallReport:
    started = time.monotonic()
    report = setup.start(database)
    return InstallReport(
        report.previous_version,
        report.version,
        report.dirty_messages,
        time.monotonic() - started,
        database.lock_stats,
    )


def initialise(path: Path) -> InitReport:
    """A standalone database: the reference host tables (unless there) and the index."""
    with _new_file(path) as created, _database(path, HostSchema.reference()) as database:
        with database.writing() as connection:
            had_tables = connection.execute(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)",
                ("chats", "messages"),
            ).fetchone()[0]
        setup.create_reference_schema(database)
        return InitReport(created, had_tables < 2, _install(database))


def install(path: Path, schema: HostSchema) -> InstallReport:
    with _database(require_existing(path), schema) as database:
        return _install(database)


def uninstall(path: Path, schema: HostSchema) -> UninstallReport:
    """Drop every derived object; host tables and rows are untouched."""
    started = time.monotonic()
    with _database(require_existing(path), schema) as database:
        dropped = setup.uninstall(database)
    return UninstallReport(tuple(dropped), time.monotonic() - started, database.lock_stats)


def import_file(
    path: Path,
    schema: HostSchema,
    lines: Iterable[str],
    *,
    on_conflict: OnConflict,
    create: bool,
    on_batch: Callable[[ImportReport], None] | None = None,
) -> ImportReport:
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
class StatusReport:
    """What `chat-recall status` shows. Data only: the CLI renders it as JSON or text,
    generically, so a new field shows up in every format without touching the CLI."""

    database: str
    schema_version: int
    release_schema_version: int
    index_stamp: StampStatus
    backlog: BacklogStatus
    apps: list[AppStatus]
    quarantined: int  # host rows set aside as unreadable (the first QUARANTINE_SHOWN below)
    quarantined_rows: list[QuarantinedStatus]
    problems: list[str]

    @property
    def healthy(self) -> bool:
        return not self.problems


def status(path: Path, schema: HostSchema) -> StatusReport:
    """The engine-neutral figures come through the facade (with the policy the
    bootstrap builds, so the stamp compares like with like); schema version, app
    registry and integrity from the database itself."""
    from chat_recall.adapters import bootstrap

    require_existing(path)
    with (
        bootstrap.sqlite(path, schema=schema, install=False) as recall,
        _database(path, schema) as database,
    ):
        with database.reading() as connection:
            version = migrations.schema_version(connection)
        index = recall.index
        backlog = recall.dirty.backlog()
        stored = index.projection_stamp()
        current = index_stamp(recall.policy, recall.repo.source_fingerprint())
        quarantine = index.quarantine(QUARANTINE_SHOWN)
        with database.reading() as connection:
            app_ids = [
                int(row[0])
                for row in connection.execute(
                    f"SELECT app_id FROM {migrations.APPS} ORDER BY app_id"
                )
            ]
        apps = []
        for app_id in app_ids:
            stats = index.stats(AppId(app_id))
            apps.append(AppStatus(app_id, stats.documents, stats.unreclaimed))
        return StatusReport(
            database=str(path),
            schema_version=version,
            release_schema_version=migrations.SCHEMA_VERSION,
            index_stamp=StampStatus(stored, current, stored != current),
            backlog=BacklogStatus(backlog.messages, backlog.chats, backlog.purges),
            apps=apps,
            quarantined=quarantine.total,
            quarantined_rows=[
                QuarantinedStatus(row.message_id, row.app_id, row.reason.value)
                for row in quarantine.rows
            ],
            problems=integrity_problems(database),
        )


def integrity_problems(database: SqliteDatabase) -> list[str]:
    """FTS5's integrity check per app table, and index rows against documents."""
    problems = []
    with database.writing() as connection:
        for app_id, table in connection.execute(
            f"SELECT app_id, fts_table FROM {migrations.APPS}"
        ).fetchall():
            try:
                connection.execute(
                    f"INSERT INTO {quote(table)}({quote(table)}) VALUES ('integrity-check')"
                )
            except Exception as error:  # the check reports corruption as an error
                problems.append(f"app {app_id}: {error}")
            rows = connection.execute(f"SELECT count(*) FROM {quote(table)}").fetchone()[0]
            expected = connection.execute(
                f"SELECT (SELECT count(*) FROM {migrations.DOCS} WHERE app_id = ?) + "
                f"(SELECT count(*) FROM {migrations.PURGE} WHERE app_id = ?)",
                (app_id, app_id),
            ).fetchone()[0]
            if rows != expected:
                problems.append(f"app {app_id}: {rows} index rows for {expected} documents")
    return problems
