"""`InMemoryIndexAudit`: the in-memory twin of the SQLite audit, for the drift an
in-memory index can have: documents of an app with no index table, index rows that do
not match the documents. It has no triggers, registry rows or schema versions."""

from __future__ import annotations

import attrs

from chat_recall.adapters.memory.database import InMemoryDatabase
from chat_recall.domain.model import AppId, Finding
from chat_recall.domain.wording import counted


@attrs.define
class InMemoryIndexAudit:
    database: InMemoryDatabase

    def check(self, *, deep: bool = True) -> list[Finding]:
        findings = [
            Finding(
                "registry",
                f"app {app}",
                "documents exist but neither an index table nor a registry row",
                "repair",
            )
            for app in self._orphaned()
        ]
        if deep:
            db = self.database
            with db.lock:
                for app, table in sorted(db.fts.items()):
                    expected = sum(1 for m in db.docs.values() if m.app_id == app)
                    expected += sum(
                        1
                        for message_id, owner in db.deleted_messages.items()
                        if owner == app and message_id not in db.docs
                    )
                    if len(table.rows) != expected:
                        findings.append(
                            Finding(
                                "integrity",
                                f"app {app}",
                                f"{counted(len(table.rows), 'index row')} for "
                                f"{counted(expected, 'document')}",
                                "rebuild",
                            )
                        )
        return findings or [Finding("registry", "apps"), Finding("integrity", "index")]

    def repair(self) -> list[str]:
        db = self.database
        done = []
        with db.lock:
            for app in self._orphaned():
                chats = [chat for chat in db.chats.values() if chat.app_id == app]
                for chat in chats:
                    db.mark_chat(chat)
                done.append(
                    f"app {app} has no index table: its {counted(len(chats), 'chat')} "
                    f"{'is' if len(chats) == 1 else 'are'} queued to be indexed"
                )
        return done

    def _orphaned(self) -> list[AppId]:
        db = self.database
        with db.lock:
            recorded = {app for app in db.deleted_messages.values() if app is not None}
            apps = {meta.app_id for meta in db.docs.values()} | recorded
            return sorted(apps - set(db.fts))
