"""`InMemoryIndexStore`: per-app inverted indexes that rank exactly as SQLite FTS5."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from chat_recall.adapters.index_layout import HIDDEN_READ_PAST, RECLAIM_PER_STEP, chat_ref
from chat_recall.adapters.memory.database import DocMeta, InMemoryDatabase
from chat_recall.adapters.memory.fts import FtsTable
from chat_recall.adapters.snowball import chosen_analysis
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
from chat_recall.domain.query import ScopedQuery, TermCount, VocabularyProbe
from chat_recall.domain.text.analysis import TextAnalysis
from chat_recall.domain.text.language import Language

ANALYSIS_KEY = "analysis"


def prepare_analysis(
    database: InMemoryDatabase,
    analysis: TextAnalysis | None = None,
    language: Language | None = None,
) -> TextAnalysis:
    """As the SQLite adapter at start: the analysis named (`analysis`, else
    `language`'s), else the one recorded, else English; documents built under another
    analysis are dropped and every message is marked for indexing again. Returns the
    analysis in use."""
    with database.lock:
        recorded = database.meta.get(ANALYSIS_KEY)
        analysis = chosen_analysis(analysis, language, recorded)
        database.meta[ANALYSIS_KEY] = analysis.name
        if recorded in (None, analysis.name):
            return analysis
        database.fts.clear()
        database.docs.clear()
        database.deleted_messages.clear()
        database.deleted_chats.clear()
        for message in sorted(database.messages.values(), key=lambda m: m.id):
            database.mark_message(message)
        return analysis


@attrs.define
class InMemoryIndexStore:
    database: InMemoryDatabase
    analysis: TextAnalysis = TextAnalysis.default()

    def _remove(self, message_id: MessageId) -> None:
        """As the SQLite adapter: the document wherever it is, and its deletion record."""
        db = self.database
        apps = {
            db.deleted_messages.get(message_id),
            getattr(db.docs.get(message_id), "app_id", None),
        }
        for app_id in apps - {None}:
            table = db.fts.get(app_id)  # type: ignore[arg-type]
            if table is not None:
                table.delete(message_id)
        db.docs.pop(message_id, None)
        db.deleted_messages.pop(message_id, None)
        db.forget_vectors(message_id)

    def put(self, documents: Sequence[IndexDocument]) -> None:
        """Under the database lock (see `InMemoryIndexUnitOfWork`). As the SQLite
        adapter, only documents whose message still exists in that chat and app."""
        db = self.database
        documents = [d for d in documents if db.sourced(d.message_id, d.chat_id, d.app_id)]
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
        db.queue_vectors((d.message_id, d.app_id) for d in documents)

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
        """Reclaims deleted documents in the SQLite adapter's order (deleted messages by
        id, then deleted chats by id), up to the same step size; a deletion record
        whose host row exists again marks it dirty. An inverted index has nothing to
        compact."""
        db = self.database
        with db.lock:
            reclaimed = 0
            while reclaimed < RECLAIM_PER_STEP:
                ids = sorted(db.deleted_messages)[: RECLAIM_PER_STEP - reclaimed]
                if ids:
                    for message_id in ids:
                        self._remove(message_id)
                        if message_id in db.messages:
                            db.mark_message(db.messages[message_id])
                    reclaimed += len(ids)
                    continue
                if not db.deleted_chats:
                    break
                chat_id = min(db.deleted_chats)
                take = RECLAIM_PER_STEP - reclaimed
                documents = sorted(m for m, meta in db.docs.items() if meta.chat_id == chat_id)
                for message_id in documents[:take]:
                    self._remove(message_id)
                reclaimed += min(len(documents), take)
                if len(documents) < take:
                    db.deleted_chats.discard(chat_id)
                    if chat_id in db.chats:
                        db.mark_chat(db.chats[chat_id])
            more = bool(db.deleted_messages or db.deleted_chats)
            return Maintenance(reclaimed=reclaimed, more=more)

    def remove_orphans(self) -> int:
        db = self.database
        with db.lock:
            orphans = [
                message_id
                for message_id, meta in db.docs.items()
                if not db.sourced(message_id, meta.chat_id, meta.app_id)
            ]
            for message_id in orphans:
                self._remove(message_id)
            stray = 0
            for app_id, table in db.fts.items():
                for rowid in list(table.rows):
                    meta = db.docs.get(rowid)
                    if (meta is None or meta.app_id != app_id) and db.deleted_messages.get(
                        rowid
                    ) != app_id:
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
            hidden = sum(  # read past them, as the SQL adapters do (`HIDDEN_READ_PAST`)
                1
                for message_id, meta in db.docs.items()
                if meta.app_id == query.app_id and db.hidden(message_id, meta)
            )
            limit = query.window + min(hidden, HIDDEN_READ_PAST)
            within = query.within
            keep = (
                (lambda rowid: rowid in db.docs and within.holds(db.docs[rowid].created_at))
                if within.bounded
                else None
            )
            ranked = table.ranked(query.match, query.weights, exclude, limit, keep)
            candidates = []
            for score, rowid in ranked:  # FTS5's bm25 sign: lower is better
                meta = db.docs.get(rowid)
                if meta is None or meta.app_id != query.app_id or db.hidden(rowid, meta):
                    continue
                row = table.rows[rowid]
                document = meta.document(rowid, row.title_text, row.body_text)
                candidates.append(document.as_candidate(-score))
            return candidates[: query.window]

    def vocabulary(self, probe: VocabularyProbe) -> list[TermCount]:
        """As the FTS5 store: the app's own table's terms, as `fts5vocab` counts them."""
        with self.database.lock:
            table = self.database.fts.get(probe.app_id)
            if table is None:
                return []
            found = table.vocabulary(probe.terms, probe.prefix, probe.limit)
        return [TermCount(term, found[term]) for term in sorted(found)]

    def documents(self, app_id: AppId, message_ids: Sequence[MessageId]) -> list[DocumentText]:
        db = self.database
        with db.lock:
            found = []
            for message_id in sorted(set(message_ids)):
                meta = db.docs.get(message_id)
                table = db.fts.get(app_id)
                if (
                    meta is not None
                    and meta.app_id == app_id
                    and table is not None
                    and not db.hidden(message_id, meta)
                ):
                    row = table.rows[message_id]
                    found.append(meta.document(message_id, row.title_text, row.body_text))
            return found

    def document_ids(self, app_id: AppId) -> list[MessageId]:
        db = self.database
        with db.lock:
            return sorted(
                mid
                for mid, meta in db.docs.items()
                if meta.app_id == app_id and not db.hidden(mid, meta)
            )

    def stats(self, app_id: AppId) -> IndexStats:
        db = self.database
        with db.lock:
            mine = [(mid, meta) for mid, meta in db.docs.items() if meta.app_id == app_id]
            hidden = sum(1 for mid, meta in mine if db.hidden(mid, meta))
            records = sum(
                1
                for mid, owner in db.deleted_messages.items()
                if owner == app_id and mid not in db.docs
            )
            return IndexStats(documents=len(mine) - hidden, unreclaimed=hidden + records)

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
