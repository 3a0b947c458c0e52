"""The confidence-bar tuning tool keeps its own rule: no chosen candidate flags more
answerable questions than allowed on any tuning half, and the held-out half plays no
part in the choice."""

from __future__ import annotations

from chat_recall.domain.model import ChatId, MessageId
from chat_recall.domain.search.fusion import LexicalChat, LexicalEvidence
from chat_recall.domain.semantic import Similar, SimilarChat
from tests.evaluation.confidence import Judged, choose, flagged


def judged(benchmark: str, half: str, answerable: bool, coverage: float, near: float) -> Judged:
    lexical = LexicalEvidence(words=4, unmatched=1, chats=(LexicalChat(ChatId(1), coverage),))
    best = (Similar(MessageId(1), ChatId(2), near),)
    return Judged(benchmark, half, answerable, lexical, (SimilarChat(ChatId(2), near, near, best),))


def test_chosen_bars_keep_answerable_questions_within_the_bound_on_every_tuning_half() -> None:
    rows = [
        *(judged("ours", "tuning", True, 0.6, 0.3) for _ in range(20)),
        judged("locomo", "tuning", True, 0.1, 0.2),  # one in twenty may be flagged
        *(judged("locomo", "tuning", True, 0.6, 0.3) for _ in range(19)),
        judged("ours", "tuning", False, 0.3, 0.14),
        judged("ours", "tuning", False, 0.1, 0.12),
        # held out: would favour other bars, and must not count
        *(judged("ours", "held_out", False, 0.6, 0.3) for _ in range(5)),
    ]
    chosen = choose(rows, most=0.05, keep=3)
    assert chosen
    tuning = [r for r in rows if r.half == "tuning"]
    for policy in chosen:
        for name in ("ours", "locomo"):
            answerable = [r for r in tuning if r.benchmark == name and r.answerable]
            assert flagged(answerable, policy)[0] <= 0.05
    never = [r for r in tuning if not r.answerable]
    assert flagged(never, chosen[0])[0] == 1.0  # both never-discussed flagged
