"""The app registry (`chat_recall_apps`) against the FTS5 tables and the documents:
what drifted, and restoring it. Readers find an app's table through the registry, so a
lost row makes the app silently empty, and a row naming a table that is gone makes
its searches fail.

Restoring is cheap and bounded: a missing row is inserted; for an app whose table is
gone, the row goes and the app's chats are marked dirty, so the indexer rebuilds the
app in its usual bounded batches (documents left behind are replaced as it goes).
"""

from __future__ import annotations

import re
import sqlite3

import attrs

from chat_recall.adapters.sqlite_host.engines import ENGINE_KEY, Engine
from chat_recall.adapters.sqlite_host.migrations import (
    APPS,
    DIRTY_CHATS,
    DOCS,
    META,
    PURGE,
    derived_objects,
    fts_table_name,
    is_virtual,
)
from chat_recall.adapters.sqlite_host.schema import HostSchema
from chat_recall.domain.wording import counted

_FTS_NAME = re.compile(r"chat_recall_fts_(n?)(\d+)")


def app_of(table: str) -> int | None:
    """The app id an FTS table name stands for (None for another name)."""
    match = _FTS_NAME.fullmatch(table)
    if match is None:
        return None
    app_id = int(match.group(2))
    return -app_id if match.group(1) else app_id


@attrs.frozen
class RegistryDrift:
    """`unregistered`: app -> its existing table with no registry row; `misnamed`: app ->
    the wrong table name its row holds while its table exists; `vanished`: apps whose
    row names a missing table; `orphaned`: apps with documents but no table nor row."""

    unregistered: dict[int, str]
    misnamed: dict[int, str]
    vanished: tuple[int, ...]
    orphaned: tuple[int, ...]

    @property
    def is_empty(self) -> bool:
        return not (self.unregistered or self.misnamed or self.vanished or self.orphaned)

    def problems(self) -> list[tuple[int, str]]:
        found = [
            (app, f"index table {table} has no registry row: the app's searches find nothing")
            for app, table in self.unregistered.items()
        ]
        found += [
            (app, f"the registry row names {name!r} instead of {fts_table_name(app)}")
            for app, name in self.misnamed.items()
        ]
        found += [
            (app, "the registry names an index table that does not exist: searches fail")
            for app in self.vanished
        ]
        found += [
            (app, "documents exist but neither an index table nor a registry row")
            for app in self.orphaned
        ]
        return sorted(found)


def drift(connection: sqlite3.Connection) -> RegistryDrift:
    """Compare the registry with the FTS tables present and the documents (read-only).
    An index whose text another engine holds (`adapters/sqlite_host/engines.py`) has no FTS tables
    by design: nothing to compare."""
    if _engine(connection) not in (None, Engine.SQLITE.value):
        return RegistryDrift({}, {}, (), ())
    tables = {
        name
        for kind, name, sql in derived_objects(connection)
        if kind == "table" and is_virtual(sql) and app_of(name) is not None
    }
    by_app = {app_of(name): name for name in tables}
    registry = {
        int(app): str(table)
        for app, table in connection.execute(f"SELECT app_id, fts_table FROM {APPS}")
    }
    unregistered = {
        app: table for app, table in by_app.items() if app is not None and app not in registry
    }
    misnamed = {
        app: name
        for app, name in registry.items()
        if name != fts_table_name(app) and fts_table_name(app) in tables
    }
    vanished = tuple(
        sorted(app for app in registry if app not in misnamed and fts_table_name(app) not in tables)
    )
    documented = _distinct_apps(connection, DOCS) | _distinct_apps(connection, PURGE)
    orphaned = tuple(sorted(documented - set(registry) - set(unregistered)))
    return RegistryDrift(unregistered, misnamed, vanished, orphaned)


def _engine(connection: sqlite3.Connection) -> str | None:
    row = connection.execute(f"SELECT value FROM {META} WHERE key = ?", (ENGINE_KEY,)).fetchone()
    return None if row is None else str(row[0])


def _distinct_apps(connection: sqlite3.Connection, table: str) -> set[int]:
    """The app ids of a table, one index seek per app (no full scan for DOCS)."""
    apps: set[int] = set()
    row = connection.execute(f"SELECT min(app_id) FROM {table}").fetchone()
    while row[0] is not None:
        apps.add(int(row[0]))
        row = connection.execute(
            f"SELECT min(app_id) FROM {table} WHERE app_id > ?", (row[0],)
        ).fetchone()
    return apps


def restore(connection: sqlite3.Connection, schema: HostSchema) -> list[str]:
    """Restore the registry inside the caller's (short) transaction: register existing
    tables, correct misnamed rows, and for an app whose table is gone (or that has
    documents and no table) drop its row and mark its chats dirty, so the indexer
    builds the app again. Returns what was done."""
    found = drift(connection)
    done = []
    for app, table in sorted(found.unregistered.items()):
        connection.execute(
            f"INSERT OR REPLACE INTO {APPS}(app_id, fts_table) VALUES (?, ?)", (app, table)
        )
        done.append(f"registered the index table of app {app}")
    for app in sorted(found.misnamed):
        connection.execute(
            f"UPDATE {APPS} SET fts_table = ? WHERE app_id = ?", (fts_table_name(app), app)
        )
        done.append(f"corrected the registry row of app {app}")
    for app in sorted({*found.vanished, *found.orphaned}):
        connection.execute(f"DELETE FROM {APPS} WHERE app_id = ?", (app,))
        s = schema
        marked = connection.execute(
            f"INSERT OR REPLACE INTO {DIRTY_CHATS}(chat_id, app_id, seq) "
            f"SELECT {s.q('chat_id')}, {s.q('chat_app_id')}, random() FROM {s.q('chats')} "
            f"WHERE {s.q('chat_app_id')} = ?",
            (app,),
        ).rowcount
        done.append(
            f"app {app} has no index table: its {counted(marked, 'chat')} "
            f"{'is' if marked == 1 else 'are'} queued to be indexed"
        )
    return done
