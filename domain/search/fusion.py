"""How meaning joins words: the gate, the similarity floor, the order of the fused
chats, how each was found, and whether search_chats can say it is confident.

Keyword search is strong where the query's words are the chat's words, and fusing
meaning into every query costs it there (names, dates, identifiers: a near vector is
no match for the exact word). So the lexical ranking stays first wherever its words
match (`FusionPolicy.strong`), and meaning-based candidates join when the lexical
result is weak: a query word found in no chat, the best chat holding too little of the
query, or too few chats (`FusionPolicy.opens`). A semantic candidate counts only above
the similarity floor. The policy is pure; search_chats applies it (see
ARCHITECTURE.md, "The semantic layer", for how the values were chosen).

Confidence: a result set is confident when its best lexical chat holds enough of the
query (`lexical_bar`) or its best semantic match is near enough (`semantic_bar`). With
the semantic layer off only the first applies, so an honest "nothing fits" needs no
model. When nothing passes either bar, search_chats returns at most `weak_results`
candidates, each marked weak, and tells the agent to say the history holds no answer.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import attrs

from chat_recall.domain.model import ChatId
from chat_recall.domain.semantic import Similar


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


@attrs.frozen
class LexicalChat:
    """A chat the keyword search returned, in its order: the share of the query's
    words it holds (0..1)."""

    chat_id: ChatId
    coverage: float


@attrs.frozen
class LexicalEvidence:
    """What the keyword search found, as the gate and the confidence bar read it."""

    words: int  # the query's words (after stopwords)
    unmatched: int  # of them, found in no chat of the app
    chats: tuple[LexicalChat, ...] = ()

    @property
    def best_coverage(self) -> float:
        return max((chat.coverage for chat in self.chats), default=0.0)

    @property
    def best_matched_words(self) -> float:
        return self.best_coverage * self.words


@attrs.frozen
class FusionPolicy:
    """The knobs of the semantic layer's fusion (see the module docstring)."""

    # The gate: a lexical chat holding at least this share of the query's words is
    # "strong" and keeps its place; below it (for the best chat), meaning joins.
    coverage_bar: float = 0.75
    # Fewer lexical chats than this: meaning joins (the keyword result is thin).
    min_chats: int = 3
    # A semantic candidate below this cosine similarity is no candidate.
    similarity_floor: float = 0.3
    # Reciprocal rank fusion of the weak lexical chats and the semantic ones:
    # 1 / (rank_constant + rank), each list weighed.
    rank_constant: float = 10.0
    lexical_weight: float = 1.0
    semantic_weight: float = 0.5
    # With the gate closed, meaning still fills the places the keyword result leaves
    # empty (after every lexical chat), never moving one.
    fill_tail: bool = True
    # Confidence: a lexical chat holding this share of the query's words, and at least
    # `lexical_min_words` of them (all of them when the query has fewer) ...
    lexical_bar: float = 0.3
    lexical_min_words: int = 1
    # ... or a semantic match at least this near.
    semantic_bar: float = 0.6
    # Not confident: at most this many candidates, each marked weak.
    weak_results: int = 3

    @classmethod
    def default(cls) -> FusionPolicy:
        return cls()

    def strong(self, chat: LexicalChat) -> bool:
        return chat.coverage >= self.coverage_bar

    def opens(self, lexical: LexicalEvidence) -> bool:
        """Whether meaning-based candidates join the ranking (the lexical result is
        weak). With the gate closed they only fill empty places (`fill_tail`)."""
        if lexical.unmatched > 0 or len(lexical.chats) < self.min_chats:
            return True
        return lexical.best_coverage < self.coverage_bar

    def wants_meaning(self, lexical: LexicalEvidence, limit: int) -> bool:
        """Whether search needs the semantic candidates at all: the gate is open, or
        there are places to fill, or confidence rests on them."""
        return (
            self.opens(lexical)
            or (self.fill_tail and len(lexical.chats) < limit)
            or not self.lexically_confident(lexical)
        )

    def lexically_confident(self, lexical: LexicalEvidence) -> bool:
        if not lexical.chats or lexical.words <= 0:
            return False
        needed = min(self.lexical_min_words, lexical.words)
        return (
            lexical.best_coverage >= self.lexical_bar
            and lexical.best_matched_words >= needed - 1e-9
        )

    def confident(self, lexical: LexicalEvidence, semantic: Sequence[Similar]) -> bool:
        """Whether any result passes the lexical or the semantic bar."""
        if self.lexically_confident(lexical):
            return True
        return any(s.similarity >= self.semantic_bar for s in semantic)

    def candidates(self, semantic: Sequence[Similar]) -> tuple[Similar, ...]:
        """The semantic matches above the floor, best first (ties by message id)."""
        kept = [s for s in semantic if s.similarity >= self.similarity_floor]
        return tuple(sorted(kept, key=lambda s: (-s.similarity, s.message_id)))


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
    semantic: Sequence[Similar],
    policy: FusionPolicy,
    limit: int,
) -> tuple[FusedChat, ...]:
    """The chats to show, in order, at most `limit`.

    Gate closed: the keyword ranking as it is, then (`fill_tail`) semantic-only chats
    in the places left. Gate open: the strong lexical chats first in their order, then
    the weak lexical chats and the semantic ones by reciprocal rank fusion (ties by
    chat id). A chat found both ways says `both`."""
    above = policy.candidates(semantic)
    best: dict[ChatId, float] = {}
    semantic_order: list[ChatId] = []
    for match in above:
        if match.chat_id not in best:
            best[match.chat_id] = match.similarity
            semantic_order.append(match.chat_id)
    ranks = {chat.chat_id: rank for rank, chat in enumerate(lexical.chats)}

    def fused(chat_id: ChatId) -> FusedChat:
        return FusedChat(
            chat_id,
            MatchedBy.of(words=chat_id in ranks, meaning=chat_id in best),
            ranks.get(chat_id),
            best.get(chat_id),
        )

    if not policy.opens(lexical):
        order = [chat.chat_id for chat in lexical.chats]
        if policy.fill_tail:
            order += [chat_id for chat_id in semantic_order if chat_id not in ranks]
        return tuple(fused(chat_id) for chat_id in order[:limit])
    strong = [chat.chat_id for chat in lexical.chats if policy.strong(chat)]
    weak = [chat.chat_id for chat in lexical.chats if not policy.strong(chat)]
    scores: dict[ChatId, float] = {}
    for rank, chat_id in enumerate(weak):
        scores[chat_id] = policy.lexical_weight / (policy.rank_constant + rank + 1)
    placed = set(strong)
    for rank, chat_id in enumerate(semantic_order):
        if chat_id in placed:
            continue
        scores[chat_id] = scores.get(chat_id, 0.0) + policy.semantic_weight / (
            policy.rank_constant + rank + 1
        )
    rest = sorted(scores, key=lambda chat_id: (-scores[chat_id], chat_id))
    return tuple(fused(chat_id) for chat_id in [*strong, *rest][:limit])
