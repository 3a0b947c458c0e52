"""Start-up of the SQLite adapter: capability and schema checks, install, uninstall."""

from __future__ import annotations

import sqlite3
import time
from typing import TYPE_CHECKING

import attrs

from chat_recall.adapters.import_links import IMPORT_LINKS, IMPORT_LINKS_DDL
from chat_recall.adapters.snowball import chosen_analysis
from chat_recall.adapters.sqlite_host import migrations, registry, vector_tables
from chat_recall.adapters.sqlite_host.database import SqliteDatabase, check_fts5
from chat_recall.adapters.sqlite_host.dirty_queue import SqliteDirtyQueue
from chat_recall.adapters.sqlite_host.schema import REFERENCE_HOST_DDL
from chat_recall.domain.errors import IndexUnavailable, TransactionOverTime
from chat_recall.domain.schema_version import NOT_INSTALLED
from chat_recall.domain.text.analysis import TextAnalysis
from chat_recall.domain.text.language import Language

if TYPE_CHECKING:
    from chat_recall.domain.indexing import BatchSizing


@attrs.frozen
class InstallReport:
    previous_version: int
    version: int
    dirty_messages: int
    rebuilt_for_analysis: bool = False
    registry_repairs: tuple[str, ...] = ()  # what `registry.restore` did
    language: Language = Language.default()  # the install's (`TextAnalysis.language`)


def create_reference_schema(database: SqliteDatabase) -> None:
    """Create the reference host's chats and messages tables (standalone use)."""
    with database.writing() as connection:
        migrations.execute_script(connection, REFERENCE_HOST_DDL)


def analysis_of(
    database: SqliteDatabase, analysis: TextAnalysis | None, language: Language | None = None
) -> TextAnalysis:
    """The analysis a start uses (`snowball.chosen_analysis`): the one named, else the
    one the index records, else English."""
    if analysis is None and language is None:
        with database.reading() as connection:
            return chosen_analysis(None, None, migrations.chosen_analysis(connection))
    return chosen_analysis(analysis, language, None)


def start(
    database: SqliteDatabase,
    analysis: TextAnalysis | None = None,
    language: Language | None = None,
) -> InstallReport:
    """Check FTS5 and the host schema, switch to WAL, install the derived objects (one
    short transaction; the walks over the host's messages follow in chunks), and
    rebuild the index if it was built under another text analysis (one named by
    `analysis` or `language`; none named: the one the index records). The triggers are
    recreated and the app registry restored (`registry`), so drift of either is repaired
    at every start. Idempotent. A schema version this release cannot use (older, newer,
    or no version at all) is an IndexUnavailable naming the fix, never re-stamped."""
    with database.writing() as connection:
        check_fts5(connection)
        database.schema.verify(connection)
    analysis = analysis_of(database, analysis, language)
    database.enable_wal()
    with database.writing() as connection:
        previous = migrations.install(connection, database.schema)
    with database.writing() as connection:
        repairs = registry.restore(connection, database.schema)
        recorded = migrations.recorded_analysis(connection)
    finish(database)
    rebuilt = recorded is not None and recorded != analysis.name
    if rebuilt:
        _rebuild_for(database)
    with database.writing() as connection:
        migrations.record_analysis(connection, analysis)
    with database.writing() as connection:  # one statement: a short transaction
        connection.execute(IMPORT_LINKS_DDL)
    with database.reading() as connection:  # a count of every marker: not under the lock
        dirty = connection.execute(f"SELECT count(*) FROM {migrations.DIRTY_MESSAGES}").fetchone()[
            0
        ]
    return InstallReport(
        previous,
        migrations.SCHEMA_VERSION,
        int(dirty),
        rebuilt,
        tuple(repairs),
        analysis.language,
    )


def finish(
    database: SqliteDatabase,
    sizing: BatchSizing | None = None,
    limit_seconds: float | None = None,
) -> None:
    """The part of an install that grows with the database, in chunks, each its own
    short transaction (host writes go on in between): mark every message of a fresh
    install dirty, and fill the message order (`migrations.MESSAGE_ORDER`). The walk's
    chunks follow `sizing` and run under the indexer's time limit: one still open at it
    is rolled back and taken again halved (one of `sizing.minimum` rows runs without a
    limit). `sizing` and `limit_seconds` default to `BatchSizing.host_walk` and the
    pacer's limit. A crash in between is picked up at the next start."""
    # Here, not at the top: `search` and `read` import this module and start faster
    # without the indexing policies.
    from chat_recall.domain.indexing import BatchSizing

    sizing = sizing or BatchSizing.host_walk()
    walk_limit = database.pacer.rule.limit_seconds if limit_seconds is None else limit_seconds
    size = sizing.initial
    while True:
        started = time.perf_counter()
        # The smallest chunk runs without a limit, so the walk always moves on.
        limit = walk_limit if size > sizing.minimum else None
        try:
            with database.writing(time_limit_seconds=limit) as connection:
                done = _walk_chunk(connection, database, size)
        except TransactionOverTime:
            size = max(sizing.minimum, size // 2)
            continue
        if done:
            return
        size = sizing.next_size(size, time.perf_counter() - started, full=True)


# The walks over the host's messages, by meta key: each key holds the last id walked
# (NULL: none yet) while its walk is unfinished.
WALKS = (migrations.MARKING_AFTER, migrations.ORDER_FILLED_AFTER)


def _walk_chunk(connection: sqlite3.Connection, database: SqliteDatabase, chunk: int) -> bool:
    """One chunk of the unfinished walks (marking every message dirty, filling the
    message order): the one furthest behind, and any other at the same id, share the
    chunk, so a fresh install reads each message once. Returns True when none is left."""
    marks = ", ".join("?" for _ in WALKS)
    rows = connection.execute(
        f"SELECT key, value FROM {migrations.META} WHERE key IN ({marks})", WALKS
    ).fetchall()
    if not rows:
        return True
    positions = {str(key): None if value is None else int(value) for key, value in rows}
    after = min(positions.values(), key=lambda value: -1 if value is None else value)
    keys = [key for key, value in positions.items() if value == after]
    schema = database.schema
    last = migrations.chunk_end(connection, schema, after=after, limit=chunk)
    if migrations.ORDER_FILLED_AFTER in keys:
        migrations.fill_order_range(connection, schema, after, last)
    if last is None:
        connection.execute(
            f"DELETE FROM {migrations.META} WHERE key IN ({', '.join('?' for _ in keys)})", keys
        )
        return len(keys) == len(positions)
    if migrations.MARKING_AFTER in keys:
        filled = migrations.ORDER_FILLED_AFTER in keys
        migrations.mark_range(connection, schema, after, last, from_order=filled)
    connection.executemany(
        f"UPDATE {migrations.META} SET value = ? WHERE key = ?", [(last, key) for key in keys]
    )
    return False


def _rebuild_for(database: SqliteDatabase) -> None:
    """The index was built under another analysis (an upgrade from unstemmed tables, or
    a host that changed it): drop each app's FTS5 table and documents, one app per
    transaction, then mark every message for indexing in the dirty queue's short
    chunks; the background indexer rebuilds, and search reports `indexing` meanwhile.
    Interrupted, it starts over at the next start (the new analysis is recorded last)."""
    with database.reading() as connection:
        tables = connection.execute(f"SELECT app_id, fts_table FROM {migrations.APPS}").fetchall()
    for app_id, table in tables:
        with database.writing() as connection:
            migrations.drop_app_index(connection, app_id, table)
            vector_tables.forget_app_vectors(connection, app_id)
    SqliteDirtyQueue(database).mark_all_messages()


def verify(database: SqliteDatabase, analysis: TextAnalysis) -> int:
    """Read-only start: FTS5, the schema mapping, and an installed derived index built
    under `analysis`. Returns the installed schema version."""
    with database.reading() as connection:
        check_fts5_readonly(connection)
        database.schema.verify(connection)
        version = migrations.schema_version(connection)
        recorded = migrations.recorded_analysis(connection) if version else None
    if version == 0:
        raise IndexUnavailable(NOT_INSTALLED)
    if recorded not in (None, analysis.name):
        raise IndexUnavailable(
            f"the index was built with {recorded} text analysis, not {analysis.name}: "
            "start chat-recall with install to rebuild it"
        )
    return version


def check_fts5_readonly(connection: sqlite3.Connection) -> None:
    """The FTS5 check without creating anything: the compile options name it."""
    options = {row[0] for row in connection.execute("PRAGMA compile_options")}
    if "ENABLE_FTS5" not in options:
        check_fts5(connection)


def uninstall(database: SqliteDatabase, *, keep_imports: bool = False) -> migrations.Uninstalled:
    """Remove every derived object, even a damaged one; no host row is touched. A DROP
    that fails on damage rolls the transaction back, and the next attempt removes that
    object from the schema instead (at most one attempt per derived object). With
    `keep_imports` (a rebuild) the import links stay: they describe host rows, not the
    index."""
    damaged: set[str] = set()
    kept = frozenset({IMPORT_LINKS}) if keep_imports else frozenset()
    while True:
        try:
            with database.writing() as connection:
                return migrations.uninstall(connection, frozenset(damaged), kept)
        except migrations.DropFailed as failed:
            if failed.name in damaged:  # cannot happen: a damaged name is never dropped
                raise
            damaged.add(failed.name)
