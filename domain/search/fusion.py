"""How meaning joins words: the order of the fused chats, the similarity floor, how
each chat was found, and whether search_chats can say it is confident.

Keyword search is strong where the query's words are the chat's words: its best chat
is rarely wrong when it holds the words, and a near vector is no match for an exact
name, date or identifier. But a lexical result cannot tell a near miss from an answer:
a chat that uses the question's own words without answering it (the usual failure of a
vague question) looks as strong as the answer would. So no test of the lexical result
decides whether meaning may help; instead the places are shared (`fuse`):

- the best keyword chat keeps the first place (`words_first`), and so does each keyword
  chat up to `complete_first` that holds every word of the query;
- the next places alternate: the chat nearest the query's meaning not yet placed (above
  the similarity floor), then the best keyword chat not yet placed, and so on; a chat
  found both ways is placed once and says "both".

So the keyword ranking's first chats are always shown (conversations full of names and
dates lose nothing that words find), and so are the chats nearest in meaning (a near
miss no longer fills every place).

Confidence is a separate question. Words alone (the layer off, or its model failing):
confident when the best keyword chat holds enough of the query, each word weighed by
how rare it is in the app (`lexical_bar` on `LexicalChat.weighted`: a common word
matched says little, a rare one unmatched says much), so an honest "nothing fits" needs
no model. With meaning, words are trusted only when, besides, hardly any of the query's
words occurs nowhere in the app (`unmatched_bar`: a question about something never
discussed names it in words the app never used), and meaning is trusted when its best
match is near enough (`semantic_bar`); a question whose words fail that test may still
be answered in other words, which meaning is there to judge. When nothing passes,
search_chats returns at most `weak_results` candidates, each marked weak, and tells the
agent to say the history holds no answer.
ARCHITECTURE.md ("The semantic layer") says how the values were chosen.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence

import attrs

from chat_recall.domain.model import ChatId
from chat_recall.domain.semantic import EmbeddingModel, ModelKind, SimilarChat


class MatchedBy(enum.Enum):
    """How a chat or match was found: by the query's words, by meaning, or both."""

    WORDS = "words"
    MEANING = "meaning"
    BOTH = "both"

    @classmethod
    def of(cls, *, words: bool, meaning: bool) -> MatchedBy:
        if words and meaning:
            return cls.BOTH
        return cls.MEANING if meaning else cls.WORDS


def rarity(holding: int, documents: int) -> float:
    """How much a word says about which documents fit (an inverse document frequency):
    high for a word few of the app's documents hold, highest for one none holds, near
    zero for one every document holds."""
    return math.log((max(documents, 0) + 1) / (min(max(holding, 0), documents) + 1))


@attrs.frozen
class LexicalChat:
    """A chat the keyword search returned, in its order: the share of the query's
    words it holds (0..1), and the same share with each word weighed by its rarity."""

    chat_id: ChatId
    coverage: float
    weighted: float | None = None  # None: no weights known (the plain share counts)

    @property
    def weighted_coverage(self) -> float:
        return self.coverage if self.weighted is None else self.weighted


@attrs.frozen
class LexicalEvidence:
    """What the keyword search found, as the fusion and the confidence bar read it."""

    words: int  # the query's words (after stopwords)
    unmatched: int  # of them, found in no chat of the app
    chats: tuple[LexicalChat, ...] = ()

    @property
    def best_weighted(self) -> float:
        return max((chat.weighted_coverage for chat in self.chats), default=0.0)


@attrs.frozen
class FusionPolicy:
    """The knobs of the semantic layer's fusion and confidence (module docstring)."""

    # The best keyword chats that keep the first places: this many whatever they hold,
    # and those up to `complete_first` that hold every word of the query.
    words_first: int = 1
    complete_first: int = 2
    # A chat by meaning below this similarity is no candidate (similarities are of the
    # centered query: at or below zero is no nearer than the app's average document).
    similarity_floor: float = 0.0
    # A chat's similarity: this share from its documents' mean vector, the rest from its
    # best document (`domain.semantic.chat_similarity`).
    mean_weight: float = 0.5
    # Confidence by words alone: the best keyword chat holds this weighted share of the
    # query. With meaning at hand: this weighted share, and at most `unmatched_bar` of
    # the query's words occurring nowhere (a quarter: a question of four words or more
    # may name one thing in a word of its own that the answer says otherwise) ...
    lexical_bar: float = 0.15
    lexical_bar_with_meaning: float = 0.15
    unmatched_bar: float = 0.25
    # ... or by meaning: a semantic match at least this near.
    semantic_bar: float = 0.15
    # Not confident: at most this many candidates, each marked weak.
    weak_results: int = 3

    @classmethod
    def default(cls) -> FusionPolicy:
        """The values chosen for a static table (the default local model)."""
        return cls()

    @classmethod
    def sentence_model(cls) -> FusionPolicy:
        """The values chosen for a sentence encoder: its similarities run higher for
        unrelated texts, so its bar is higher, and words are trusted beside it only
        when they cover more of the query."""
        return cls(lexical_bar_with_meaning=0.6, unmatched_bar=0.34, semantic_bar=0.275)

    @classmethod
    def for_model(cls, model: EmbeddingModel) -> FusionPolicy:
        if model.kind is ModelKind.STATIC:
            return cls.default()
        return cls.sentence_model()

    def wants_meaning(self, lexical: LexicalEvidence) -> bool:
        """Whether search asks the semantic layer: whenever the query has a word (a
        near miss looks like an answer to words alone, so their result cannot say
        when meaning is not needed)."""
        return lexical.words > 0

    def lexically_confident(self, lexical: LexicalEvidence, *, with_meaning: bool) -> bool:
        bar = self.lexical_bar_with_meaning if with_meaning else self.lexical_bar
        if lexical.words <= 0 or lexical.best_weighted < bar:
            return False
        return not with_meaning or lexical.unmatched <= self.unmatched_bar * lexical.words

    def confident(self, lexical: LexicalEvidence, semantic: Sequence[SimilarChat] | None) -> bool:
        """Whether any result passes the lexical or the semantic bar (the best
        document of any chat the layer found, at least `semantic_bar` near, whether or
        not its chat is a candidate above the floor); `semantic` None: no meaning to
        judge by (the layer off, or its model failing)."""
        if semantic is None:
            return self.lexically_confident(lexical, with_meaning=False)
        if self.lexically_confident(lexical, with_meaning=True):
            return True
        return any(m.similarity >= self.semantic_bar for chat in semantic for m in chat.best)

    def candidates(self, semantic: Sequence[SimilarChat]) -> tuple[SimilarChat, ...]:
        """The chats by meaning above the floor, best first (ties by chat id)."""
        kept = [c for c in semantic if c.similarity >= self.similarity_floor]
        return tuple(sorted(kept, key=lambda c: (-c.similarity, c.chat_id)))

    def first_places(self, lexical: LexicalEvidence) -> list[ChatId]:
        """The keyword chats that keep the first places, in their order."""
        return [
            chat.chat_id
            for rank, chat in enumerate(lexical.chats[: max(self.words_first, self.complete_first)])
            if rank < self.words_first or chat.coverage >= 1.0
        ]


@attrs.frozen
class FusedChat:
    """A chat of the fused ranking: how it was found, its place in the keyword
    ranking (None: not there) and its best semantic similarity (None: not above the
    floor)."""

    chat_id: ChatId
    matched_by: MatchedBy
    lexical_rank: int | None
    similarity: float | None


def fuse(
    lexical: LexicalEvidence,
    semantic: Sequence[SimilarChat],
    policy: FusionPolicy,
    limit: int,
) -> tuple[FusedChat, ...]:
    """The chats to show, in order, at most `limit`: the keyword chats that keep the
    first places, then in turn the next chat by meaning and the next by words (see
    the module docstring). A chat found both ways says `both`."""
    best = {chat.chat_id: chat.similarity for chat in policy.candidates(semantic)}
    ranks = {chat.chat_id: rank for rank, chat in enumerate(lexical.chats)}
    order = policy.first_places(lexical)
    placed = set(order)
    by_meaning = [c for c in best if c not in placed]  # in order of similarity
    by_words = [c for c in ranks if c not in placed]  # in order of rank
    while by_meaning or by_words:
        for queue in (by_meaning, by_words):
            while queue and queue[0] in placed:
                queue.pop(0)
            if queue:
                placed.add(queue[0])
                order.append(queue.pop(0))
    return tuple(
        FusedChat(
            chat_id,
            MatchedBy.of(words=chat_id in ranks, meaning=chat_id in best),
            ranks.get(chat_id),
            best.get(chat_id),
        )
        for chat_id in order[:limit]
    )
