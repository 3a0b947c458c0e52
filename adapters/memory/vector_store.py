"""`InMemoryVectorStore`: the vectors of the in-memory index, with the SQLite store's
behaviour (`adapters/sqlite_host/vector_rows.py`): queued by the index's put, removed with
the document, visible only as the document is, one model at a time. Exact search in
pure Python (`domain.semantic.cosine`): the twin is for hosts' tests, not for scale."""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

from chat_recall.adapters.memory.database import InMemoryDatabase, VectorRow
from chat_recall.domain.model import AppId, ChatId, MessageId
from chat_recall.domain.semantic import (
    CHAT_CANDIDATES,
    FLOAT_BYTES,
    EmbedTask,
    Similar,
    SimilarChat,
    VectorCoverage,
    away_from,
    centering_share,
    chat_similarity,
    cosine,
    pack_vector,
    unpack_vector,
)
from chat_recall.domain.warming import VectorMemory

SETTINGS = "semantic_settings"


@attrs.define
class InMemoryVectorStore:
    database: InMemoryDatabase

    def vector_model(self) -> str | None:
        return self.database.vector_model

    def use_vector_model(self, identity: str | None) -> None:
        db = self.database
        with db.lock:
            if identity is not None and identity == db.vector_model:
                return
            db.vector_model = identity
            db.vector_model_key += 1
            db.vector_queue.clear()
            db.vector_queue_after = None if identity is None else MessageId(-(2**63))

    def queue_step(self, limit: int) -> int:
        db = self.database
        with db.lock:
            after = db.vector_queue_after
            if after is None or db.vector_model is None:
                return 0
            ids = sorted(m for m in db.docs if m > after)[:limit]
            db.queue_vectors((m, db.docs[m].app_id) for m in ids)
            db.vector_queue_after = ids[-1] if len(ids) == limit else None
            return len(ids)

    def pending_vectors(self, limit: int, *, after: MessageId | None = None) -> list[EmbedTask]:
        db = self.database
        with db.lock:
            if db.vector_model is None:
                return []
            ids = sorted(m for m in db.vector_queue if after is None or m > after)
            return [EmbedTask(m, db.vector_queue[m][0], db.vector_queue[m][1]) for m in ids[:limit]]

    def write_vectors(
        self, identity: str, tasks: Sequence[EmbedTask], vectors: Sequence[bytes | None]
    ) -> int:
        if len(tasks) != len(vectors):
            raise ValueError("one vector (or None) per task")
        db = self.database
        written = 0
        with db.lock:
            if db.vector_model != identity:
                return 0
            for task, vector in zip(tasks, vectors, strict=True):
                if vector is None:
                    continue  # stays queued
                if db.vector_queue.get(task.message_id) != (task.app_id, task.seq):
                    continue  # put again since: its newer marker brings it
                del db.vector_queue[task.message_id]
                meta = db.docs.get(task.message_id)
                if meta is None or meta.app_id != task.app_id:
                    continue
                db.vectors[task.message_id] = VectorRow(task.app_id, db.vector_model_key, vector)
                written += 1
        return written

    def drop_step(self, limit: int) -> int:
        db = self.database
        with db.lock:
            useless = [
                m
                for m, row in sorted(db.vectors.items())
                if db.vector_model is None or row.model_key != db.vector_model_key
            ][:limit]
            for message_id in useless:
                del db.vectors[message_id]
            return len(useless)

    def building(self, app_id: AppId) -> bool:
        db = self.database
        with db.lock:
            if db.vector_model is None:
                return False
            queued = any(a == app_id for a, _ in db.vector_queue.values())
            return queued or db.vector_queue_after is not None

    def semantic_settings(self) -> str | None:
        return self.database.meta.get(SETTINGS)

    def record_semantic_settings(self, settings: str | None) -> None:
        with self.database.lock:
            if settings is None:
                self.database.meta.pop(SETTINGS, None)
            else:
                self.database.meta[SETTINGS] = settings

    def vector_coverage(self, app_id: AppId | None) -> VectorCoverage:
        db = self.database
        with db.lock:
            visible = [
                m
                for m, meta in db.docs.items()
                if (app_id is None or meta.app_id == app_id) and not db.hidden(m, meta)
            ]
            if db.vector_model is None:
                return VectorCoverage(None, len(visible), 0, 0)
            embedded = sum(
                1
                for row in db.vectors.values()
                if row.model_key == db.vector_model_key and (app_id is None or row.app_id == app_id)
            )
            queued = sum(1 for a, _ in db.vector_queue.values() if app_id in (None, a))
            after = db.vector_queue_after
            unqueued = 0
            if after is not None:
                unqueued = sum(
                    1 for m, meta in db.docs.items() if m > after and app_id in (None, meta.app_id)
                )
            return VectorCoverage(db.vector_model, len(visible), embedded, queued + unqueued)

    def _visible(self, app_id: AppId) -> list[tuple[MessageId, ChatId, bytes]]:
        db = self.database
        rows: list[tuple[MessageId, ChatId, bytes]] = []
        for message_id, row in db.vectors.items():
            meta = db.docs.get(message_id)
            if (
                row.model_key != db.vector_model_key
                or row.app_id != app_id
                or meta is None
                or meta.app_id != app_id
                or db.hidden(message_id, meta)
            ):
                continue
            rows.append((message_id, meta.chat_id, row.vector))
        return rows

    @staticmethod
    def _query(vector: bytes, rows: list[tuple[MessageId, ChatId, bytes]], centered: bool) -> bytes:
        if not centered or not rows:
            return vector
        dimension = len(vector) // FLOAT_BYTES
        columns = zip(*(unpack_vector(row[2], dimension) for row in rows), strict=True)
        mean = [math.fsum(c) / len(rows) for c in columns]
        return away_from(vector, mean, centering_share(len(rows)))

    def vector_memory(self) -> VectorMemory:
        """Nothing to warm: the twin searches its vectors where they are kept."""
        return VectorMemory()

    def warm(self, app_id: AppId, limit: int) -> int:
        return 0

    def nearest(
        self,
        app_id: AppId,
        vector: bytes,
        limit: int,
        *,
        exclude_chat_id: ChatId | None = None,
        floor: float = -1.0,
        centered: bool = False,
    ) -> list[Similar]:
        with self.database.lock:
            if self.database.vector_model is None:
                return []
            rows = self._visible(app_id)
            vector = self._query(vector, rows, centered)
            found: list[Similar] = []
            for message_id, chat_id, stored in rows:
                if chat_id == exclude_chat_id:
                    continue
                similarity = cosine(stored, vector)
                if similarity >= floor:
                    found.append(Similar(message_id, chat_id, similarity))
        found.sort(key=lambda s: (-s.similarity, s.message_id))
        return found[:limit]

    def nearest_chats(
        self,
        app_id: AppId,
        vector: bytes,
        limit: int,
        *,
        per_chat: int,
        mean_weight: float,
        exclude_chat_id: ChatId | None = None,
        floor: float = -1.0,
        centered: bool = False,
    ) -> list[SimilarChat]:
        with self.database.lock:
            if self.database.vector_model is None:
                return []
            rows = self._visible(app_id)
            vector = self._query(vector, rows, centered)
            dimension = len(vector) // FLOAT_BYTES
            by_chat: dict[ChatId, list[tuple[MessageId, bytes]]] = {}
            for message_id, chat_id, stored in rows:
                if chat_id != exclude_chat_id:
                    by_chat.setdefault(chat_id, []).append((message_id, stored))
        means: dict[ChatId, float] = {}
        for chat_id, members in by_chat.items():
            columns = zip(*(unpack_vector(v, dimension) for _, v in members), strict=True)
            means[chat_id] = cosine(pack_vector([math.fsum(c) for c in columns]), vector)
        candidates = sorted(by_chat, key=lambda c: (-means[c], c))[:CHAT_CANDIDATES]
        found: list[SimilarChat] = []
        for chat_id in candidates:
            best = sorted(
                (Similar(m, chat_id, cosine(v, vector)) for m, v in by_chat[chat_id]),
                key=lambda s: (-s.similarity, s.message_id),
            )
            similarity = chat_similarity(means[chat_id], best[0].similarity, mean_weight)
            if similarity >= floor:
                found.append(
                    SimilarChat(chat_id, similarity, means[chat_id], tuple(best[:per_chat]))
                )
        found.sort(key=lambda chat: (-chat.similarity, chat.chat_id))
        return found[:limit]
