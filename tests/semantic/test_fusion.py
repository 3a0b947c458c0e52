"""The fusion policy: the gate, the floor, the order, `matched_by`, confidence."""

from __future__ import annotations

from chat_recall.domain.model import ChatId, MessageId
from chat_recall.domain.search.fusion import (
    FusionPolicy,
    LexicalChat,
    LexicalEvidence,
    MatchedBy,
    fuse,
)
from chat_recall.domain.semantic import Similar

POLICY = FusionPolicy(
    coverage_bar=1.0, min_chats=2, similarity_floor=0.3, lexical_bar=0.75, semantic_bar=0.6
)


def lexical(*coverages: float, words: int = 2, unmatched: int = 0) -> LexicalEvidence:
    chats = tuple(LexicalChat(ChatId(10 + n), c) for n, c in enumerate(coverages))
    return LexicalEvidence(words=words, unmatched=unmatched, chats=chats)


def similar(chat: int, similarity: float, message: int | None = None) -> Similar:
    return Similar(MessageId(message or chat * 100), ChatId(chat), similarity)


def test_a_strong_lexical_result_keeps_its_order_and_meaning_only_fills_the_tail() -> None:
    words = lexical(1.0, 1.0, 0.5)
    assert not POLICY.opens(words)
    fused = fuse(words, [similar(12, 0.9), similar(99, 0.8), similar(98, 0.1)], POLICY, 8)
    assert [f.chat_id for f in fused] == [10, 11, 12, 99]  # 98 is under the floor
    assert [f.matched_by for f in fused] == [
        MatchedBy.WORDS,
        MatchedBy.WORDS,
        MatchedBy.BOTH,
        MatchedBy.MEANING,
    ]
    no_fill = FusionPolicy(min_chats=2, fill_tail=False)
    assert [f.chat_id for f in fuse(words, [similar(99, 0.8)], no_fill, 8)] == [10, 11, 12]


def test_unmatched_words_few_chats_or_low_coverage_open_the_gate() -> None:
    assert POLICY.opens(lexical(1.0, 1.0, unmatched=1))
    assert POLICY.opens(lexical(1.0))  # fewer chats than min_chats
    assert POLICY.opens(lexical(0.5, 0.5))
    assert POLICY.opens(LexicalEvidence(words=2, unmatched=2))


def test_an_open_gate_keeps_strong_chats_first_and_fuses_the_rest() -> None:
    words = lexical(1.0, 0.5, 0.5, unmatched=1)
    fused = fuse(words, [similar(50, 0.9), similar(12, 0.7), similar(10, 0.65)], POLICY, 8)
    assert fused[0].chat_id == 10  # strong: first, whatever meaning says
    assert fused[0].matched_by is MatchedBy.BOTH
    # 12 is weak lexically but second by meaning: found both ways, it beats 11 (first
    # of the weak) and 50 (first by meaning), which tie and go by chat id
    assert [f.chat_id for f in fused[1:]] == [12, 11, 50]
    assert fused[1].matched_by is MatchedBy.BOTH
    assert fused[3].matched_by is MatchedBy.MEANING
    assert fused[3].lexical_rank is None
    assert fused[3].similarity == 0.9


def test_fusion_is_deterministic_and_limited() -> None:
    words = lexical(0.5, 0.5, unmatched=1)
    semantic = [similar(n, 0.5) for n in range(30, 40)]
    first = fuse(words, semantic, POLICY, 5)
    assert first == fuse(words, list(reversed(semantic)), POLICY, 5)
    assert len(first) == 5


def test_words_only_confidence_needs_enough_of_the_query() -> None:
    assert POLICY.lexically_confident(lexical(1.0, words=3))
    assert POLICY.lexically_confident(lexical(0.75, words=4))
    assert not POLICY.lexically_confident(lexical(0.5, words=4))
    assert not POLICY.lexically_confident(LexicalEvidence(words=3, unmatched=3))
    # one word of a one-word query is enough; one of two is not
    assert POLICY.lexically_confident(lexical(1.0, words=1))
    assert not POLICY.lexically_confident(lexical(0.5, words=2))
    assert POLICY.confident(lexical(1.0, words=2), [])  # the semantic layer off


def test_a_near_enough_meaning_makes_a_weak_lexical_result_confident() -> None:
    weak = lexical(0.5, words=4, unmatched=2)
    assert not POLICY.confident(weak, [similar(20, 0.59)])
    assert POLICY.confident(weak, [similar(20, 0.6)])


def test_search_wants_meaning_only_when_it_can_change_the_answer() -> None:
    assert not POLICY.wants_meaning(lexical(1.0, 1.0, 1.0), limit=3)
    assert POLICY.wants_meaning(lexical(1.0, 1.0, 1.0), limit=8)  # places to fill
    assert POLICY.wants_meaning(lexical(1.0, 1.0, unmatched=1), limit=2)
