"""Exact nearest-vector search over one app's vectors, for the engines that keep their
vectors in a database (SQLite for FTS5 and tantivy, PostgreSQL): neutral, so engines
share it without importing each other.

Each app's vectors of the current model are held in memory as one float32 matrix, read
from the database once and then brought up to date at every search by the rows written
since (each vector row has a sequence number that grows with every write). A search is
one matrix-vector product, then a check *in the database* of the best rows: only rows
that still exist there, of a visible document of that app, outside the excluded chat,
are returned. So the matrix may lag behind a delete or a replaced vector without ever
returning one; a row the check finds gone is zeroed in the matrix (it can never reach
a floor above zero again), and a matrix with many such rows is read again.

Each matrix keeps the sum of its live rows as they are added and zeroed, so a centered
search (`VectorStore.nearest(centered=True)`) costs one subtraction, not a pass over
the rows: the mean is of the rows held, which may include a few not yet found gone.

Memory is bounded: matrices beyond `budget_bytes` (all apps together, domain
`BUDGET_BYTES`) are dropped, least recently searched first (a matrix warmed but never
searched counts as searched before all others); the app being searched is always held.
A matrix is made as large as the app's vectors counted when it is made, so it is not
copied as it fills, and holds no more than a little room to grow.

Warming (`warm`, domain `domain/warming.py`) fills an app's matrix a step at a time
before any search asks for it, each step under the same lock as a search: a search
waits at most one step, and a search reading an app holds the lock, so warming waits
rather than competing with it. There is never a second copy of an app's matrix, and a
search never finds a partial one: it reads whatever rows are missing before it computes,
as without warming.

numpy is imported at the first search: a process with the semantic layer off never
loads it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import attrs

from chat_recall.domain.model import AppId, ChatId, MessageId
from chat_recall.domain.semantic import (
    CHAT_CANDIDATES,
    FLOAT_BYTES,
    Similar,
    SimilarChat,
    centering_share,
    chat_similarity,
)
from chat_recall.domain.warming import BUDGET_BYTES, AppVectors, VectorMemory, fits

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["BUDGET_BYTES", "VectorMatrices", "VectorRows"]

# Rows read from the database per statement while a matrix is loaded or brought up to date.
READ_CHUNK = 20_000
# Candidates checked against the database per round: the best `limit` times this (the
# excluded chat's rows and rows gone since are skipped, and the next round takes more).
OVERFETCH = 3
# A matrix with more rows found gone than this share of it is read again.
STALE_SHARE = 0.25
# Room a new matrix keeps beyond the rows counted (vectors written while it is read,
# and the next few after): a share of them, and a few rows at least.
ROOM_SHARE = 32
ROOM_ROWS = 64
# The bytes a held row takes beside its values: its seq, message id, chat slot, flag.
ROW_OVERHEAD_BYTES = 8 + 8 + 8 + 1


class VectorRows(Protocol):
    """What a storage gives the matrix: its vector rows and the check of a few."""

    def rows_after(
        self, app_id: AppId, model_key: int, after_seq: int, limit: int
    ) -> list[tuple[int, int, int, bytes]]:
        """(seq, message_id, chat_id, vector) of the app's rows of the model with seq
        above `after_seq` whose document exists, by seq, at most `limit`."""
        ...

    def live(
        self, app_id: AppId, model_key: int, seqs: Sequence[int]
    ) -> dict[int, tuple[MessageId, ChatId]]:
        """Of these rows, those that still exist, of the model, for a visible document
        of the app: their message and chat, by seq."""
        ...

    def count(self, app_id: AppId, model_key: int) -> int:
        """How many rows of the model the app has (whether their document exists or
        not: an estimate of what `rows_after` will give)."""
        ...

    def apps(self, model_key: int) -> list[tuple[int, int, int, int]]:
        """(app_id, rows, seq of the newest row, bytes of a vector) of every app with
        rows of the model."""
        ...


@attrs.define
class _Matrix:
    """One app's rows of one model, and per chat the sum and count of its live rows
    (its mean vector, `VectorStore.nearest_chats`)."""

    dimension: int
    seqs: npt.NDArray[np.int64]
    ids: npt.NDArray[np.int64]
    slots: npt.NDArray[np.int64]  # each row's chat, as a slot of the sums below
    dead: npt.NDArray[np.bool_]  # rows found gone
    values: npt.NDArray[np.float32]
    size: int = 0
    last_seq: int = 0
    gone: int = 0
    total: npt.NDArray[np.float64] | None = None  # the sum of the live rows
    chat_of_slot: list[int] = attrs.Factory(list)
    slot_of_chat: dict[int, int] = attrs.Factory(dict)
    sums: npt.NDArray[np.float64] | None = None  # per slot: the sum of its live rows
    counts: npt.NDArray[np.int64] | None = None  # per slot: its live rows
    _means: npt.NDArray[np.float32] | None = None  # per slot, normalised; None: stale

    @classmethod
    def reserved(cls, dimension: int, rows: int) -> _Matrix:
        """An empty matrix with room for `rows` and a little more (`ROOM_SHARE`)."""
        import numpy as np

        capacity = cls.capacity_for(rows)
        return cls(
            dimension,
            np.zeros(capacity, np.int64),
            np.zeros(capacity, np.int64),
            np.zeros(capacity, np.int64),
            np.zeros(capacity, np.bool_),
            np.zeros((capacity, dimension), np.float32),
        )

    @staticmethod
    def capacity_for(rows: int) -> int:
        return rows + rows // ROOM_SHARE + ROOM_ROWS

    @classmethod
    def bytes_for(cls, rows: int, dimension: int) -> int:
        """What a matrix made for `rows` holds (its chats' sums aside)."""
        return cls.capacity_for(rows) * (dimension * FLOAT_BYTES + ROW_OVERHEAD_BYTES)

    def mean(self) -> npt.NDArray[np.float32] | None:
        """The mean of the live rows, weighed by `centering_share` of their number."""
        live = self.size - self.gone
        if self.total is None or live <= 0:
            return None
        return (self.total / live * centering_share(live)).astype("float32")

    def zero(self, index: int) -> None:
        """Row `index` is gone: never returned again, out of every mean."""
        if self.dead[index]:
            return
        row = self.values[index]
        if self.total is not None:
            self.total -= row
        if self.sums is not None and self.counts is not None:
            slot = int(self.slots[index])
            self.sums[slot] -= row
            self.counts[slot] -= 1
        self.values[index] = 0.0
        self.dead[index] = True
        self.gone += 1
        self._means = None

    def chat_means(self) -> npt.NDArray[np.float32]:
        """Each slot's mean vector, normalised (zero for a chat with no live row)."""
        import numpy as np

        if self._means is None:
            assert self.sums is not None
            sums = self.sums[: len(self.chat_of_slot)]
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            means = np.divide(sums, norms, out=np.zeros_like(sums), where=norms > 0)
            self._means = means.astype(np.float32)
        return self._means

    @property
    def nbytes(self) -> int:
        held = self.values.nbytes + self.seqs.nbytes + self.ids.nbytes + self.slots.nbytes
        if self.sums is not None:
            held += self.sums.nbytes
        return int(held + self.dead.nbytes)

    def append(self, rows: list[tuple[int, int, int, bytes]]) -> None:
        """Rows in seq order, after every row held. Chats get their slots in the order
        they first appear (however the rows are split into appends), and the sums
        take each chat's new rows at once (a slot-sorted reduction, not a pass per
        row)."""
        import numpy as np

        count = len(rows)
        if self.size + count > len(self.seqs):
            self._grow(self.size + count)
        begin, end = self.size, self.size + count
        seqs, ids, chats, blobs = zip(*rows, strict=True)
        self.seqs[begin:end] = seqs
        self.ids[begin:end] = ids
        slot_of_chat = self.slot_of_chat
        for chat in chats:
            if chat not in slot_of_chat:
                slot_of_chat[chat] = len(self.chat_of_slot)
                self.chat_of_slot.append(chat)
        slots = np.fromiter((slot_of_chat[chat] for chat in chats), np.int64, count)
        self.slots[begin:end] = slots
        self.dead[begin:end] = False
        block = np.frombuffer(b"".join(blobs), dtype="<f4")
        self.values[begin:end] = block.reshape(count, self.dimension)
        added_rows = self.values[begin:end]
        added = added_rows.sum(axis=0, dtype=np.float64)
        self.total = added if self.total is None else self.total + added
        chats_held = len(self.chat_of_slot)
        if self.sums is None or self.counts is None or len(self.sums) < chats_held:
            old = 0 if self.sums is None else len(self.sums)
            capacity = max(chats_held, 2 * old, 64)
            sums = np.zeros((capacity, self.dimension), np.float64)
            counts = np.zeros(capacity, np.int64)
            if self.sums is not None and self.counts is not None:
                sums[:old] = self.sums
                counts[:old] = self.counts
            self.sums, self.counts = sums, counts
        self._add_to_sums(slots, added_rows)
        self.counts += np.bincount(slots, minlength=len(self.counts))
        self.size = end
        self.last_seq = int(seqs[-1])
        self._means = None

    def _add_to_sums(self, slots: npt.NDArray[np.int64], rows: npt.NDArray[np.float32]) -> None:
        """Each slot's rows added to its sum, in their order: the rows grouped by slot
        (they mostly come so: a chat's messages are embedded together), the chats with
        one row added at once, and a chat's run of rows summed in one call (numpy's
        per-row `add.at` is far slower)."""
        import numpy as np

        assert self.sums is not None
        grouped, block = slots, rows
        starts = np.flatnonzero(np.concatenate(([True], grouped[1:] != grouped[:-1])))
        if len(np.unique(grouped[starts])) < len(starts):  # a chat's rows in two runs
            order = np.argsort(slots, kind="stable")
            grouped, block = slots[order], rows[order]
            starts = np.flatnonzero(np.concatenate(([True], grouped[1:] != grouped[:-1])))
        ends = np.append(starts[1:], len(grouped))
        alone = ends - starts == 1
        self.sums[grouped[starts[alone]]] += block[starts[alone]]
        for start, end in zip(starts[~alone].tolist(), ends[~alone].tolist(), strict=True):
            self.sums[grouped[start]] += block[start:end].sum(axis=0, dtype=np.float64)

    def _grow(self, rows: int) -> None:
        """Room for at least `rows`: a quarter more than now, copied once."""
        import numpy as np

        held = len(self.seqs)
        capacity = max(rows, held + held // 4, 1024)
        self.seqs = np.resize(self.seqs, capacity)
        self.ids = np.resize(self.ids, capacity)
        self.slots = np.resize(self.slots, capacity)
        dead = np.zeros(capacity, np.bool_)
        dead[: self.size] = self.dead[: self.size]
        self.dead = dead
        values = np.zeros((capacity, self.dimension), np.float32)
        values[: self.size] = self.values[: self.size]
        self.values = values


@attrs.define
class VectorMatrices:
    """The in-memory matrices of one storage's vectors (one per app and model)."""

    budget_bytes: int = BUDGET_BYTES
    _matrices: OrderedDict[tuple[AppId, int], _Matrix] = attrs.field(
        factory=OrderedDict, init=False
    )
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)

    def nearest(
        self,
        rows: VectorRows,
        app_id: AppId,
        model_key: int,
        vector: bytes,
        limit: int,
        *,
        exclude_chat_id: ChatId | None,
        floor: float,
        centered: bool = False,
    ) -> list[Similar]:
        import numpy as np

        query = np.frombuffer(vector, dtype="<f4").astype(np.float32)
        with self._lock:
            matrix = self._current(rows, app_id, model_key, query.shape[0])
            if matrix.size == 0 or limit <= 0:
                return []
            mean = matrix.mean() if centered else None
            if mean is not None:
                query = query - mean
                norm = float(np.linalg.norm(query))
                query = query / norm if norm > 0 else query
            scores = matrix.values[: matrix.size] @ query
            scores[matrix.dead[: matrix.size]] = -np.inf
            seqs = matrix.seqs[: matrix.size]
            ids = matrix.ids[: matrix.size]
            found: list[Similar] = []
            taken = 0
            want = limit * OVERFETCH
            while len(found) < limit and taken < matrix.size:
                take = min(matrix.size, taken + want)
                # The `take` best by score (ties by message id), of which the first
                # `taken` were checked in an earlier round.
                best = np.argpartition(-scores, take - 1)[:take] if take < matrix.size else None
                pool = np.arange(matrix.size) if best is None else best
                order = pool[np.lexsort((ids[pool], -scores[pool]))][taken:take]
                order = order[scores[order] >= floor]
                if order.size == 0:
                    break
                live = rows.live(app_id, model_key, [int(s) for s in seqs[order]])
                for index in order:
                    message_id, chat = live.get(int(seqs[index]), (None, None))
                    if chat is None or message_id != int(ids[index]):
                        matrix.zero(int(index))
                        scores[index] = -np.inf
                        continue
                    if chat == exclude_chat_id:
                        continue
                    found.append(Similar(MessageId(int(ids[index])), chat, float(scores[index])))
                    if len(found) == limit:
                        break
                taken = take
                want *= 2
            if matrix.gone > STALE_SHARE * matrix.size:
                self._matrices.pop((app_id, model_key), None)
            return found

    def nearest_chats(
        self,
        rows: VectorRows,
        app_id: AppId,
        model_key: int,
        vector: bytes,
        limit: int,
        *,
        per_chat: int,
        mean_weight: float,
        exclude_chat_id: ChatId | None,
        floor: float,
        centered: bool = False,
    ) -> list[SimilarChat]:
        """`VectorStore.nearest_chats`: the candidates by their chats' mean vectors, one
        product over them; then, until the best `limit` are all checked, every row of
        each unchecked one is checked in the database (a gone row leaves its chat's
        mean and best), and its similarity taken again."""
        import numpy as np

        query = np.frombuffer(vector, dtype="<f4").astype(np.float32)
        with self._lock:
            matrix = self._current(rows, app_id, model_key, query.shape[0])
            if matrix.size == 0 or limit <= 0 or matrix.counts is None:
                return []
            mean = matrix.mean() if centered else None
            if mean is not None:
                query = query - mean
                norm = float(np.linalg.norm(query))
                query = query / norm if norm > 0 else query
            chats = len(matrix.chat_of_slot)
            by_mean = matrix.chat_means() @ query
            by_mean[matrix.counts[:chats] <= 0] = -np.inf
            excluded = matrix.slot_of_chat.get(int(exclude_chat_id or 0))
            if exclude_chat_id is not None and excluded is not None:
                by_mean[excluded] = -np.inf
            take = min(chats, CHAT_CANDIDATES)
            candidates = np.argpartition(-by_mean, take - 1)[:take] if take < chats else None
            pool = np.arange(chats) if candidates is None else candidates
            pool = pool[np.isfinite(by_mean[pool])]
            size = matrix.size
            in_pool = np.isin(matrix.slots[:size], pool) & ~matrix.dead[:size]
            indexes = np.flatnonzero(in_pool)
            row_scores = matrix.values[indexes] @ query
            checked: set[int] = set()
            while True:
                best: dict[int, float] = {}
                for index, score in zip(indexes.tolist(), row_scores.tolist(), strict=True):
                    if matrix.dead[index]:
                        continue
                    slot = int(matrix.slots[index])
                    if score > best.get(slot, -np.inf):
                        best[slot] = score
                ranked = sorted(
                    (
                        (chat_similarity(float(by_mean[slot]), top, mean_weight), slot)
                        for slot, top in best.items()
                    ),
                    key=lambda pair: (-pair[0], matrix.chat_of_slot[pair[1]]),
                )
                shown = [slot for score, slot in ranked if score >= floor][:limit]
                unchecked = [slot for slot in shown if slot not in checked]
                if not unchecked:
                    break
                chosen = indexes[np.isin(matrix.slots[indexes], unchecked)]
                chosen = chosen[~matrix.dead[chosen]]
                alive = rows.live(app_id, model_key, [int(s) for s in matrix.seqs[chosen]])
                for index in chosen.tolist():
                    message_id, chat = alive.get(int(matrix.seqs[index]), (None, None))
                    slot_chat = matrix.chat_of_slot[int(matrix.slots[index])]
                    if message_id != int(matrix.ids[index]) or chat != slot_chat:
                        matrix.zero(index)
                checked.update(unchecked)
                means = matrix.chat_means()
                for slot in unchecked:
                    live_rows = matrix.counts[slot] > 0
                    by_mean[slot] = float(means[slot] @ query) if live_rows else -np.inf
            found: list[SimilarChat] = []
            for slot in shown:
                mine = [
                    (score, int(matrix.ids[index]))
                    for index, score in zip(indexes.tolist(), row_scores.tolist(), strict=True)
                    if int(matrix.slots[index]) == slot and not matrix.dead[index]
                ]
                mine.sort(key=lambda pair: (-pair[0], pair[1]))
                chat = ChatId(matrix.chat_of_slot[slot])
                top = mine[0][0]
                found.append(
                    SimilarChat(
                        chat,
                        chat_similarity(float(by_mean[slot]), top, mean_weight),
                        float(by_mean[slot]),
                        tuple(Similar(MessageId(m), chat, score) for score, m in mine[:per_chat]),
                    )
                )
            if matrix.gone > STALE_SHARE * matrix.size:
                self._matrices.pop((app_id, model_key), None)
            return found

    def _current(self, rows: VectorRows, app_id: AppId, model_key: int, dimension: int) -> _Matrix:
        key = (app_id, model_key)
        self._forget_other_models(key)
        matrix = self._matrices.get(key)
        if matrix is None or matrix.dimension != dimension:
            matrix = _Matrix.reserved(dimension, rows.count(app_id, model_key))
            self._matrices[key] = matrix
        self._matrices.move_to_end(key)
        while True:
            fresh = rows.rows_after(app_id, model_key, matrix.last_seq, READ_CHUNK)
            if fresh:
                matrix.append(fresh)
            if len(fresh) < READ_CHUNK:
                break
        self._within_budget(key)
        return matrix

    def _forget_other_models(self, key: tuple[AppId, int]) -> None:
        for other in [k for k in self._matrices if k[0] == key[0] and k != key]:
            del self._matrices[other]  # an earlier model's: never searched again

    def memory(self, rows: VectorRows, model_key: int) -> VectorMemory:
        """What is held, and each app's vectors of the model as they would be held."""
        listed = rows.apps(model_key)
        with self._lock:
            held = {app for app, key in self._matrices if key == model_key}
            held_bytes = sum(m.nbytes for m in self._matrices.values())
        apps = tuple(
            AppVectors(
                AppId(app),
                count,
                _Matrix.bytes_for(count, size // FLOAT_BYTES),
                newest,
                AppId(app) in held,
            )
            for app, count, newest, size in listed
        )
        return VectorMemory(apps, held_bytes, self.budget_bytes)

    def warm(self, rows: VectorRows, app_id: AppId, model_key: int, limit: int) -> int:
        """One warming step: read up to `limit` more of the app's rows and append them,
        under the matrices' lock (a search waits at most one step; one that is reading
        an app holds the lock, and warming waits for it rather than competing). Returns
        how many were appended; 0 when the app is loaded (by warming or a search), or
        when a new matrix would not fit in the budget beside what is held: warming that
        app is over."""
        key = (app_id, model_key)
        with self._lock:
            matrix = self._matrices.get(key)
            if matrix is None:
                expected = rows.count(app_id, model_key)
                fresh = rows.rows_after(app_id, model_key, 0, limit)
                if not fresh:
                    return 0
                dimension = len(fresh[0][3]) // FLOAT_BYTES
                matrix = _Matrix.reserved(dimension, max(expected, len(fresh)))
                if not fits(self._held(), matrix.nbytes, self.budget_bytes):
                    return 0
                self._forget_other_models(key)
                self._matrices[key] = matrix
                # Unsearched: the first the search's eviction drops.
                self._matrices.move_to_end(key, last=False)
            else:
                fresh = rows.rows_after(app_id, model_key, matrix.last_seq, limit)
                if not fresh:
                    return 0
            grows = matrix.size + len(fresh) > len(matrix.seqs)
            matrix.append(fresh)
            if grows and self._held() > self.budget_bytes:
                del self._matrices[key]  # grew past the budget: a search reads it if asked
                return 0
            return len(fresh)

    def _held(self) -> int:
        return sum(m.nbytes for m in self._matrices.values())

    def _within_budget(self, keep: tuple[AppId, int]) -> None:
        total = self._held()
        for key in list(self._matrices):
            if total <= self.budget_bytes:
                break
            if key != keep:
                total -= self._matrices.pop(key).nbytes

    def held_bytes(self) -> int:
        """The memory the matrices hold now."""
        with self._lock:
            return self._held()

    def clear(self) -> None:
        with self._lock:
            self._matrices.clear()
