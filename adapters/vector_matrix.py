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

Memory is bounded: matrices beyond `budget_bytes` (all apps together) are dropped,
least recently searched first; the app being searched is always held.

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
    Similar,
    SimilarChat,
    centering_share,
    chat_similarity,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

# The matrices of every app together, at most (the app being searched is always kept).
BUDGET_BYTES = 512 * 1024 * 1024
# Rows read from the database per statement while a matrix is loaded or brought up to date.
READ_CHUNK = 20_000
# Candidates checked against the database per round: the best `limit` times this (the
# excluded chat's rows and rows gone since are skipped, and the next round takes more).
OVERFETCH = 3
# A matrix with more rows found gone than this share of it is read again.
STALE_SHARE = 0.25


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
        import numpy as np

        count = len(rows)
        if self.size + count > len(self.seqs):
            capacity = max(self.size + count, 2 * len(self.seqs), 1024)
            self.seqs = np.resize(self.seqs, capacity)
            self.ids = np.resize(self.ids, capacity)
            self.slots = np.resize(self.slots, capacity)
            dead = np.zeros(capacity, np.bool_)
            dead[: self.size] = self.dead[: self.size]
            self.dead = dead
            values = np.zeros((capacity, self.dimension), np.float32)
            values[: self.size] = self.values[: self.size]
            self.values = values
        end = self.size + count
        self.seqs[self.size : end] = [row[0] for row in rows]
        self.ids[self.size : end] = [row[1] for row in rows]
        for _, _, chat, _ in rows:
            if chat not in self.slot_of_chat:
                self.slot_of_chat[chat] = len(self.chat_of_slot)
                self.chat_of_slot.append(chat)
        slots = np.fromiter((self.slot_of_chat[row[2]] for row in rows), np.int64, count)
        self.slots[self.size : end] = slots
        self.dead[self.size : end] = False
        block = np.frombuffer(b"".join(row[3] for row in rows), dtype="<f4")
        self.values[self.size : end] = block.reshape(count, self.dimension)
        added = self.values[self.size : end].sum(axis=0, dtype=np.float64)
        self.total = added if self.total is None else self.total + added
        chats = len(self.chat_of_slot)
        if self.sums is None or self.counts is None or len(self.sums) < chats:
            capacity = max(chats, 2 * (0 if self.sums is None else len(self.sums)), 64)
            sums = np.zeros((capacity, self.dimension), np.float64)
            counts = np.zeros(capacity, np.int64)
            if self.sums is not None and self.counts is not None:
                sums[: len(self.sums)] = self.sums
                counts[: len(self.counts)] = self.counts
            self.sums, self.counts = sums, counts
        np.add.at(self.sums, slots, self.values[self.size : end])
        np.add.at(self.counts, slots, 1)
        self.size = end
        self.last_seq = int(rows[-1][0])
        self._means = None


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
        import numpy as np

        key = (app_id, model_key)
        for other in [k for k in self._matrices if k[0] == app_id and k != key]:
            del self._matrices[other]  # an earlier model's: never searched again
        matrix = self._matrices.get(key)
        if matrix is None or matrix.dimension != dimension:
            matrix = _Matrix(
                dimension,
                np.zeros(0, np.int64),
                np.zeros(0, np.int64),
                np.zeros(0, np.int64),
                np.zeros(0, np.bool_),
                np.zeros((0, dimension), np.float32),
            )
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

    def _within_budget(self, keep: tuple[AppId, int]) -> None:
        total = sum(m.nbytes for m in self._matrices.values())
        for key in list(self._matrices):
            if total <= self.budget_bytes:
                break
            if key != keep:
                total -= self._matrices.pop(key).nbytes

    def held_bytes(self) -> int:
        """The memory the matrices hold now."""
        with self._lock:
            return sum(m.nbytes for m in self._matrices.values())

    def clear(self) -> None:
        with self._lock:
            self._matrices.clear()
