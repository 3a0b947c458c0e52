"""`InMemoryIndexStore`: per-app inverted indexes that rank exactly as SQLite FTS5."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from chat_recall.adapters.index_layout import RECLAIM_PER_STEP, chat_ref
from chat_recall.adapters.memory.database import DocMeta, InMemoryDatabase
from chat_recall.adapters.memory.fts import FtsTable
from chat_recall.domain.model import (
    AppId,
    Candidate,
    DocumentText,
    IndexDocument,
    IndexStats,
    Maintenance,
    MessageId,
    Quarantine,
    QuarantinedRow,
)
from chat_recall.domain.query import ScopedQuery
from chat_recall.domain.text.analysis import TextAnalysis

ANALYSIS_KEY = "analysis"


def prepare_analysis(database: InMemoryDatabase, analysis: TextAnalysis) -> bool:
    """As the SQLite adapter at start: documents built under another analysis are
    dropped and every message is marked for indexing again. True when it did so."""
    with database.lock:
        recorded = database.meta.get(ANALYSIS_KEY)
        database.meta[ANALYSIS_KEY] = analysis.name
        if recorded in (None, analysis.name):
            return False
        database.fts.clear()
        database.docs.clear()
        database.purge.clear()
        for message in sorted(database.messages.values(), key=lambda m: m.id):
            database.mark_message(message)
        return True


@attrs.define
class InMemoryIndexStore:
    database: InMemoryDatabase
    analysis: TextAnalysis = TextAnalysis.default()

    def _remove(self, message_id: MessageId) -> None:
        db = self.database
        apps = {db.purge.get(message_id), getattr(db.docs.get(message_id), "app_id", None)}
        for app_id in apps - {None}:
            table = db.fts.get(app_id)  # type: ignore[arg-type]
            if table is not None:
                table.delete(message_id)
        db.docs.pop(message_id, None)
        db.purge.pop(message_id, None)

    def put(self, documents: Sequence[IndexDocument]) -> None:
        """Under the database lock (see `InMemoryIndexUnitOfWork`)."""
        db = self.database
        self.remove([document.message_id for document in documents])
        for document in documents:
            table = db.fts.setdefault(document.app_id, FtsTable(self.analysis))
            table.insert(
                document.message_id, document.title, document.body, chat_ref(document.chat_id)
            )
            db.docs[document.message_id] = DocMeta(
                document.app_id,
                document.chat_id,
                document.role,
                document.created_at,
                document.is_compaction_summary,
                document.projection_truncated,
            )

    def remove(self, message_ids: Sequence[MessageId]) -> None:
        """Remove documents; a message put or removed is out of quarantine too."""
        for message_id in message_ids:
            self._remove(message_id)
            self.database.quarantine.pop(message_id, None)

    def set_aside(self, rows: Sequence[QuarantinedRow]) -> None:
        """As the SQLite adapter: their documents go, their reason stays."""
        self.remove([row.message_id for row in rows])
        for row in rows:
            self.database.quarantine[row.message_id] = row

    def maintain(self) -> Maintenance:
        """Reclaims deleted documents like the SQLite adapter (the same step size, so
        term statistics move in lockstep); an inverted index has nothing to compact."""
        with self.database.lock:
            pending = sorted(self.database.purge)
            for message_id in pending[:RECLAIM_PER_STEP]:
                self._remove(message_id)
            reclaimed = min(len(pending), RECLAIM_PER_STEP)
            return Maintenance(reclaimed=reclaimed, more=len(pending) > RECLAIM_PER_STEP)

    def remove_orphans(self) -> int:
        db = self.database
        with db.lock:
            orphans = [
                message_id
                for message_id in db.docs
                if message_id not in db.messages or db.messages[message_id].chat_id not in db.chats
            ]
            for message_id in orphans:
                self._remove(message_id)
            stray = 0
            for app_id, table in db.fts.items():
                for rowid in list(table.rows):
                    meta = db.docs.get(rowid)
                    if (meta is None or meta.app_id != app_id) and db.purge.get(rowid) != app_id:
                        table.delete(rowid)
                        stray += 1
            for message_id in [m for m in db.quarantine if m not in db.messages]:
                del db.quarantine[message_id]
            return len(orphans) + stray

    def search(self, query: ScopedQuery) -> list[Candidate]:
        db = self.database
        with db.lock:
            table = db.fts.get(query.app_id)
            if table is None or query.match.is_empty:
                return []
            exclude = None if query.exclude_chat_id is None else chat_ref(query.exclude_chat_id)
            ranked = table.ranked(query.match.phrases, query.weights, exclude, query.window)
            candidates = []
            for score, rowid in ranked:  # FTS5's bm25 sign: lower is better
                meta = db.docs.get(rowid)
                if meta is None or meta.app_id != query.app_id:
                    continue
                row = table.rows[rowid]
                document = meta.document(rowid, row.title_text, row.body_text)
                candidates.append(document.as_candidate(-score))
            return candidates

    def documents(self, app_id: AppId, message_ids: Sequence[MessageId]) -> list[DocumentText]:
        db = self.database
        with db.lock:
            found = []
            for message_id in sorted(set(message_ids)):
                meta = db.docs.get(message_id)
                table = db.fts.get(app_id)
                if meta is not None and meta.app_id == app_id and table is not None:
                    row = table.rows[message_id]
                    found.append(meta.document(message_id, row.title_text, row.body_text))
            return found

    def document_ids(self, app_id: AppId) -> list[MessageId]:
        with self.database.lock:
            return sorted(mid for mid, meta in self.database.docs.items() if meta.app_id == app_id)

    def stats(self, app_id: AppId) -> IndexStats:
        with self.database.lock:
            documents = sum(1 for meta in self.database.docs.values() if meta.app_id == app_id)
            unreclaimed = sum(1 for owner in self.database.purge.values() if owner == app_id)
            return IndexStats(documents=documents, unreclaimed=unreclaimed)

    def quarantine(self, limit: int) -> Quarantine:
        db = self.database
        with db.lock:
            live = [db.quarantine[m] for m in sorted(db.quarantine) if m in db.messages]
        return Quarantine(len(live), tuple(live[:limit]))

    def projection_stamp(self) -> str | None:
        with self.database.lock:
            return self.database.meta.get("projection")

    def set_projection_stamp(self, stamp: str) -> None:
        with self.database.lock:
            self.database.meta["projection"] = stamp
