"""`SqliteIndexAudit`: the FTS5 engine's audit, the host database's checks and repairs
(`HostDatabaseAudit`: schema version, triggers, the app registry, the integrity of
chat-recall's tables and of each app's FTS5 postings)."""

from __future__ import annotations

import attrs

from chat_recall.adapters.sqlite.index_store import SqliteFts5IndexStore
from chat_recall.adapters.sqlite_host.audit import HostDatabaseAudit


@attrs.define
class SqliteIndexAudit(HostDatabaseAudit):
    index: SqliteFts5IndexStore

    def repair(self) -> list[str]:
        """As the host database's repair; the index store then forgets the app tables
        it knew, so a registry row restored or dropped is read anew."""
        done = super().repair()
        self.index.forget_tables()
        return done
