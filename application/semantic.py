"""The semantic layer as the tools and the facade use it: the query's nearest
documents for search_chats (`SemanticSearch`), consent before any text leaves the
machine (`require_consent`), and the embedding job the indexer runs.

Off by default: `SemanticSearch.off()` answers nothing, and search_chats ranks by
words alone (its confidence too). A model that cannot run (a service down) never
fails a search: it answers from words and says so (`Meaning.failed`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from chat_recall.application.deferred import Deferred
from chat_recall.domain.errors import ChatRecallError, EmbeddingUnavailable
from chat_recall.domain.model import AppId, ChatId
from chat_recall.domain.ports import Embedder, VectorStore
from chat_recall.domain.search.fusion import FusionPolicy
from chat_recall.domain.semantic import EmbeddingModel, MeaningQuery, Purpose, SimilarChat

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
        """The chats nearest the (redacted) query, above the floor, compared by what
        sets them apart within the app (`VectorStore.nearest_chats(centered=True)`)."""
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
                floor=policy.similarity_floor,
                centered=True,
            )
        except ChatRecallError as error:
            return Meaning(failed=error.kind, asked=True)
        return Meaning(tuple(chats), building, asked=True)
