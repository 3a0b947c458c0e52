"""The semantic layer as the tools and the facade use it: the query's nearest
documents for search_chats (`SemanticSearch`), consent before any text leaves the
machine (`require_consent`), the embedding job the indexer runs, and the warming of
the vectors a search reads (`Warming`).

Off by default: `SemanticSearch.off()` answers nothing, and search_chats ranks by
words alone (its confidence too). A model that cannot run (a service down) never
fails a search: it answers from words and says so (`Meaning.failed`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs

from chat_recall.application.deferred import Deferred
from chat_recall.domain.errors import ChatRecallError, EmbeddingUnavailable
from chat_recall.domain.model import AppId, ChatId
from chat_recall.domain.ports import Embedder, VectorStore
from chat_recall.domain.search.fusion import FusionPolicy
from chat_recall.domain.semantic import EmbeddingModel, MeaningQuery, Purpose, SimilarChat
from chat_recall.domain.warming import WarmingSteps, warming_order

if TYPE_CHECKING:
    import logging

    from chat_recall.application.planning import Turns

# Chats asked of the vector store per search: as many as a result can show.
NEAREST_CHATS = 20
# Matches asked per chat: as many as a result shows of one chat.
PER_CHAT = 3

Approver = Callable[[str], bool]


def require_consent(
    disclosure: str, destination: str | None, consented_to: str | None, approver: Approver | None
) -> None:
    """Nothing to ask for a model that keeps text on this machine. Text may go to a
    remote destination only when the user's recorded consent names it, or the host's
    approver, shown the disclosure, agrees: EmbeddingUnavailable otherwise, before
    anything is sent."""
    if destination is None or consented_to == destination:
        return
    if approver is not None and approver(disclosure):
        return
    raise EmbeddingUnavailable(
        f"sending text to {destination} needs consent: {disclosure} (approve it with "
        "ToolSettings(semantic_approver=...), or chat-recall install --semantic ... --yes)"
    )


@attrs.define
class LazyEmbedder:
    """An embedder built at its first use (a model loads only when something is
    embedded, and its consent is asked then): a search or an indexer that never gets
    there never loads it. A model that cannot load raises at that use, where the
    caller handles it (`EmbeddingUnavailable`)."""

    _deferred: Deferred[Embedder]

    @property
    def model(self) -> EmbeddingModel:
        return self._deferred.get().model

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[bytes]:
        return self._deferred.get().embed(texts, purpose)

    def embed_query(self, query: MeaningQuery) -> bytes:
        return self._deferred.get().embed_query(query)

    def close(self) -> None:
        if self._deferred.built:
            self._deferred.get().close()


@attrs.frozen
class Meaning:
    """What the semantic layer found for one query: its nearest chats (best first, each
    with its nearest documents), whether the app's vectors are still being built, and
    the error kind when the model could not run."""

    chats: tuple[SimilarChat, ...] = ()
    building: bool = False
    failed: str | None = None
    asked: bool = False  # whether the layer was asked at all (off: it was not)


@attrs.define
class SemanticSearch:
    embedder: Embedder | None = None
    vectors: VectorStore | None = None
    # None: the values chosen for the model's kind (`FusionPolicy.for_model`), known
    # once the model is loaded; a value given here (an evaluation's) is used instead.
    fusion: FusionPolicy | None = None
    nearest: int = NEAREST_CHATS
    per_chat: int = PER_CHAT
    _chosen: FusionPolicy | None = attrs.field(init=False, default=None)

    @classmethod
    def off(cls) -> SemanticSearch:
        return cls()

    @property
    def policy(self) -> FusionPolicy:
        """The fusion policy in force: the one given, else the model's (the default
        while the model cannot be loaded: its search answers by words alone)."""
        if self.fusion is not None:
            return self.fusion
        if self._chosen is not None:
            return self._chosen
        if self.embedder is None:
            return FusionPolicy.default()
        try:
            self._chosen = FusionPolicy.for_model(self.embedder.model)
        except ChatRecallError:
            return FusionPolicy.default()
        return self._chosen

    @property
    def enabled(self) -> bool:
        return self.embedder is not None and self.vectors is not None

    def meaning(
        self, app_id: AppId, query: MeaningQuery, exclude_chat_id: ChatId | None
    ) -> Meaning:
        """The chats nearest the (redacted) query, compared by what sets them apart
        within the app (`VectorStore.nearest_chats(centered=True)`), with no floor:
        the fusion policy decides which of them are candidates (`candidates`) and
        judges confidence by their best documents (`confident`). A chat of many
        topics can hold the one document that answers while its mean points away."""
        if self.embedder is None or self.vectors is None:
            return Meaning()
        try:
            building = self.vectors.building(app_id)
            vector = self.embedder.embed_query(query)
            policy = self.policy
            chats = self.vectors.nearest_chats(
                app_id,
                vector,
                self.nearest,
                per_chat=self.per_chat,
                mean_weight=policy.mean_weight,
                exclude_chat_id=exclude_chat_id,
                centered=True,
            )
        except ChatRecallError as error:
            return Meaning(failed=error.kind, asked=True)
        return Meaning(tuple(chats), building, asked=True)


def _log() -> logging.Logger:
    import logging

    return logging.getLogger("chat_recall.semantic")


@attrs.define
class Warming:
    """Loads the vectors searches read into the store's memory ahead of the first
    search (domain `domain/warming.py` says which, in what order, within what memory):
    a search soon after start finds its app's vectors loaded instead of reading them.

    It runs once, in a short-lived thread of its own (`start`), which ends when every
    app it planned is loaded or `stop` is called (the facade's `stop` and `close` do;
    `stop` waits for the step in flight). Each step only reads, and its work is one
    interpreter slice: between steps the host's threads take the interpreter (`Turns`,
    domain `PacingRule`). A search waits for one step at most: one that comes first
    reads what it needs itself. A step that fails ends the warming (searches then load
    on demand, as without it)."""

    vectors: VectorStore
    turns: Turns
    steps: WarmingSteps = WarmingSteps()
    clock: Callable[[], float] = time.perf_counter
    _thread: threading.Thread | None = attrs.field(init=False, default=None)
    _stopping: threading.Event = attrs.field(init=False, factory=threading.Event)
    _lock: threading.Lock = attrs.field(init=False, factory=threading.Lock)

    def start(self, first: AppId | None = None) -> None:
        """Warm in the background, the app `first` before the others (nothing if it
        is warming already)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stopping.clear()
            self._thread = threading.Thread(
                target=self._work, args=(first,), name="chat-recall-warming", daemon=True
            )
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop after the step in flight; True when the thread has ended."""
        with self._lock:
            self._stopping.set()
            thread = self._thread
            if thread is not None:
                thread.join(timeout)
                if thread.is_alive():
                    return False
            self._thread = None
            return True

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def run(self, first: AppId | None = None) -> int:
        """Warm every app of the plan in the calling thread; the vectors loaded."""
        loaded = 0
        for app_id in warming_order(self.vectors.vector_memory(), first):
            rows = self.steps.first_rows
            while not self._stopping.is_set():
                began = self.clock()
                step = self.vectors.warm(app_id, rows)
                if step == 0:
                    break
                loaded += step
                rows = self.steps.next_rows(rows, self.clock() - began, self.turns.slice_seconds)
                self.turns.take()
            if self._stopping.is_set():
                break
        return loaded

    def _work(self, first: AppId | None) -> None:
        try:
            self.run(first)
        except ChatRecallError as error:
            _log().warning("warming the vectors stopped (%s)", error.kind)
        except Exception:  # an optimisation: its failure must never reach the host
            _log().warning("warming the vectors failed", exc_info=True)
