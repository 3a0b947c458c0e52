"""The fusion policy: the shared places, the floor, `matched_by`, rarity, confidence."""

from __future__ import annotations

import math

from chat_recall.domain.model import ChatId, MessageId
from chat_recall.domain.search.fusion import (
    FusionPolicy,
    LexicalChat,
    LexicalEvidence,
    MatchedBy,
    fuse,
    rarity,
)
from chat_recall.domain.semantic import EmbeddingModel, ModelKind, Similar, SimilarChat

POLICY = FusionPolicy(
    words_first=1,
    complete_first=2,
    similarity_floor=0.3,
    lexical_bar=0.5,
    unmatched_bar=0.25,
    semantic_bar=0.6,
)


def lexical(*coverages: float, words: int = 2, unmatched: int = 0) -> LexicalEvidence:
    chats = tuple(LexicalChat(ChatId(10 + n), c) for n, c in enumerate(coverages))
    return LexicalEvidence(words=words, unmatched=unmatched, chats=chats)


def similar(chat: int, similarity: float, message: int | None = None) -> SimilarChat:
    best = Similar(MessageId(message or chat * 100), ChatId(chat), similarity)
    return SimilarChat(ChatId(chat), similarity, similarity, (best,))


def test_the_best_keyword_chat_keeps_the_first_place_and_meaning_and_words_alternate() -> None:
    words = lexical(0.5, 0.5, 0.5, 0.5)
    semantic = [similar(50, 0.9), similar(12, 0.8), similar(51, 0.7), similar(98, 0.1)]
    fused = fuse(words, semantic, POLICY, 8)
    # 10 first (the best by words); then 50 (meaning), 11 (words), 12 (meaning, found
    # both ways), 13 (words: 12 is placed), 51 (meaning); 98 is under the floor
    assert [f.chat_id for f in fused] == [10, 50, 11, 12, 13, 51]
    assert [f.matched_by for f in fused] == [
        MatchedBy.WORDS,
        MatchedBy.MEANING,
        MatchedBy.WORDS,
        MatchedBy.BOTH,
        MatchedBy.WORDS,
        MatchedBy.MEANING,
    ]
    assert (fused[1].lexical_rank, fused[1].similarity) == (None, 0.9)
    assert (fused[3].lexical_rank, fused[3].similarity) == (2, 0.8)


def test_a_keyword_chat_holding_every_word_keeps_its_place_too() -> None:
    fused = fuse(lexical(1.0, 1.0, 1.0), [similar(50, 0.9), similar(51, 0.8)], POLICY, 8)
    # 10 and 11 (every word, within complete_first); 12 holds them too but alternates
    assert [f.chat_id for f in fused] == [10, 11, 50, 12, 51]
    partial = fuse(lexical(0.5, 1.0), [similar(50, 0.9)], POLICY, 8)
    assert [f.chat_id for f in partial] == [10, 11, 50]


def test_without_meaning_the_keyword_order_is_unchanged() -> None:
    words = lexical(1.0, 0.5, 0.5, 0.5)
    assert [f.chat_id for f in fuse(words, [], POLICY, 8)] == [10, 11, 12, 13]
    assert [f.chat_id for f in fuse(words, [similar(50, 0.2)], POLICY, 8)] == [10, 11, 12, 13]


def test_fusion_is_deterministic_and_limited() -> None:
    words = lexical(0.5, 0.5, unmatched=1)
    semantic = [similar(n, 0.5) for n in range(30, 40)]
    first = fuse(words, semantic, POLICY, 5)
    assert first == fuse(words, list(reversed(semantic)), POLICY, 5)
    assert len(first) == 5
    assert [f.chat_id for f in first] == [10, 30, 11, 31, 32]  # ties by chat id


def test_rarity_is_high_for_words_few_documents_hold() -> None:
    assert rarity(0, 99) == math.log(100)  # held by none: the rarest
    assert rarity(1, 99) > rarity(10, 99) > rarity(99, 99) == 0.0
    assert rarity(120, 99) == 0.0  # a count above the total (a stale one) is all of them
    assert rarity(0, 0) == 0.0


def test_words_only_confidence_weighs_each_word_by_its_rarity() -> None:
    def chat(weighted: float) -> LexicalEvidence:
        return LexicalEvidence(2, 0, (LexicalChat(ChatId(1), 0.5, weighted),))

    # half the words, but the rare half: confident; the common half: not
    assert POLICY.confident(chat(0.9), None)
    assert not POLICY.confident(chat(0.1), None)
    # without weights the plain share counts
    assert POLICY.confident(lexical(0.5, words=2), None)
    assert not POLICY.confident(lexical(0.25, words=4), None)
    assert not POLICY.confident(LexicalEvidence(words=3, unmatched=3), None)


def test_with_meaning_words_found_nowhere_leave_it_to_meaning() -> None:
    # one word of two occurs nowhere in the app: words alone are trusted, words with
    # meaning at hand are not, and meaning decides
    half_unknown = lexical(0.5, words=2, unmatched=1)
    assert POLICY.confident(half_unknown, None)
    assert not POLICY.confident(half_unknown, [similar(20, 0.59)])
    assert POLICY.confident(half_unknown, [similar(20, 0.6)])
    # one of four (within unmatched_bar): the words still count
    assert POLICY.confident(lexical(0.75, words=4, unmatched=1), [])


def test_search_asks_for_meaning_whenever_the_query_has_words() -> None:
    assert POLICY.wants_meaning(lexical(1.0, 1.0, 1.0))
    assert POLICY.wants_meaning(LexicalEvidence(words=2, unmatched=2))
    assert not POLICY.wants_meaning(LexicalEvidence(words=0, unmatched=0))


def test_each_kind_of_model_has_its_own_bars() -> None:
    static = FusionPolicy.for_model(EmbeddingModel("t", 8, kind=ModelKind.STATIC))
    sentence = FusionPolicy.for_model(EmbeddingModel("s", 8))
    assert static == FusionPolicy.default()
    assert sentence == FusionPolicy.sentence_model()
    # a sentence encoder's similarity must be higher to be trusted
    near = [similar(20, (static.semantic_bar + sentence.semantic_bar) / 2)]
    unknown = LexicalEvidence(words=2, unmatched=2)
    assert static.confident(unknown, near)
    assert not sentence.confident(unknown, near)
