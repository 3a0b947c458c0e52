"""The tantivy engine's integrity check: every app with documents has an index that
opens, reads, and holds as many documents as the database says.

Read-only: each app's index is opened apart from the engine's own (a searcher over the
last published state), so a check never takes a writer's lock nor waits for the
indexer. While messages of an app are staged (not yet published) its count is not
compared: the published index lags them by design. Damage is repaired by `rebuild`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import attrs
import tantivy

from chat_recall.adapters.sqlite_host.audit import HostDatabaseAudit
from chat_recall.adapters.sqlite_host.database import SqliteDatabase, translate
from chat_recall.adapters.sqlite_host.migrations import DOCS, PURGE
from chat_recall.adapters.tantivy.engine import SCHEMA, app_directory, engine_failure
from chat_recall.adapters.tantivy.index_store import STAGED
from chat_recall.domain.model import AppId, Finding
from chat_recall.domain.wording import counted

# Stored documents read back per app by a deep check (spread over the index by score
# order of a match-all query): damaged store files fail on reading.
SAMPLE_DOCUMENTS = 200


def integrity(connection: sqlite3.Connection, root: Path, *, deep: bool) -> list[Finding]:
    """One finding per damaged app (fix: rebuild), or one that all is well."""
    # Documents published at least once (a staged one may not be in tantivy yet: before
    # an app's first publish it has no index at all).
    expected = {
        AppId(app): int(count)
        for app, count in connection.execute(
            f"SELECT app_id, count(*) FROM (SELECT message_id, app_id FROM {DOCS} "
            f"UNION ALL SELECT message_id, app_id FROM {PURGE}) AS x "
            f"WHERE NOT EXISTS (SELECT 1 FROM {STAGED} AS z WHERE z.message_id = x.message_id) "
            "GROUP BY app_id ORDER BY app_id"
        )
    }
    staged = {AppId(row[0]) for row in connection.execute(f"SELECT DISTINCT app_id FROM {STAGED}")}
    findings = []
    for app_id, documents in expected.items():
        problem = _app_problem(app_directory(root, app_id), documents, app_id in staged, deep)
        if problem is not None:
            findings.append(Finding("integrity", f"app {app_id}", problem, "rebuild"))
    return findings or [Finding("integrity", "index")]


def _app_problem(path: Path, documents: int, staged: bool, deep: bool) -> str | None:
    if not (path / "meta.json").exists():
        return f"the tantivy index of {counted(documents, 'document')} is missing ({path.name})"
    try:
        index = tantivy.Index.open(str(path))
        searcher = index.searcher()
        held = searcher.num_docs
        if deep:
            hits = searcher.search(tantivy.Query.all_query(), SAMPLE_DOCUMENTS).hits
            for _, address in hits:
                searcher.doc(address)
            # the lookup every read makes, by message id
            searcher.search(tantivy.Query.term_query(SCHEMA, "message_id", 0), 1)
    except BaseException as error:
        if not engine_failure(error):
            raise
        return f"the tantivy index cannot be read: {str(error)[:200]}"
    if not staged and held != documents:
        return f"{counted(held, 'document')} in the tantivy index for {documents:,} in the database"
    return None


@attrs.define
class TantivyIndexAudit:
    """The SQLite side checked as with FTS5 (schema version, triggers, registry, the
    integrity of chat-recall's tables), and each app's tantivy index (`integrity`)."""

    database: SqliteDatabase
    root: Path

    def _sqlite(self) -> HostDatabaseAudit:
        return HostDatabaseAudit(self.database)

    def check(self, *, deep: bool = True) -> list[Finding]:
        findings = self._sqlite().check(deep=deep)
        if any(finding.check == "schema_version" and not finding.ok for finding in findings):
            return findings
        try:
            with self.database.inspecting() as connection:
                engine = integrity(connection, self.root, deep=deep)
        except sqlite3.Error as error:
            return [*findings, Finding("integrity", "index", str(translate(error)), "rebuild")]
        if all(finding.ok for finding in engine):
            integrity_checked = any(finding.check == "integrity" for finding in findings)
            return findings if integrity_checked else [*findings, *engine]
        return [f for f in findings if not (f.check == "integrity" and f.ok)] + engine

    def repair(self) -> list[str]:
        """What can be restored in place (the SQLite side); damaged tantivy data needs
        `rebuild`."""
        return self._sqlite().repair()
