"""How search_chats orders chats (`domain.search.ranking.group`): by the best match,
weighed by how much of the query the chat holds, and a later chat that supersedes a
near-equal earlier one first."""

from __future__ import annotations

import attrs

from chat_recall.domain.messages import Role
from chat_recall.domain.model import Candidate, ChatId, MessageId
from chat_recall.domain.search.query_builder import QueryTerm
from chat_recall.domain.search.ranking import RankedMatch, SearchPolicy, group

WORDS = tuple(QueryTerm((t,), (t,)).held for t in ("toma", "compani", "make"))
SHIPPED = SearchPolicy.default()


def match(chat: int, message: int, score: float, terms: set[str], at: int = 100) -> RankedMatch:
    candidate = Candidate(MessageId(message), ChatId(chat), Role.USER, at, False, False, score)
    return RankedMatch(candidate, score, frozenset(terms), f"message {message}")


def order(matches: list[RankedMatch], policy: SearchPolicy = SHIPPED) -> list[int]:
    return [g.chat_id for g in group(matches, policy, 8, WORDS)]


def test_a_chat_holding_more_of_the_query_beats_one_strong_message() -> None:
    matches = [
        match(1, 1, 2.0, {"compani"}),
        match(2, 2, 1.5, {"toma"}),
        match(2, 3, 1.2, {"compani"}),
        match(2, 4, 1.1, {"make"}),
    ]
    assert order(matches) == [2, 1]  # 1.5 x (3/3)^0.5 against 2.0 x (1/3)^0.5
    assert order(matches, attrs.evolve(SHIPPED, coverage_exponent=0.0)) == [1, 2]
    assert order(matches, SearchPolicy.design_baseline()) == [1, 2]


def test_a_later_chat_holding_the_same_words_goes_above_a_near_equal_earlier_one() -> None:
    terms = {"toma", "compani", "make"}
    near = [match(1, 1, 2.0, terms, at=100), match(2, 2, 1.9, terms, at=200)]
    assert order(near) == [2, 1]
    assert order(near, attrs.evolve(SHIPPED, supersede_margin=0.0)) == [1, 2]
    far = [match(1, 1, 2.0, terms, at=100), match(2, 2, 1.7, terms, at=200)]
    assert order(far) == [1, 2]  # beyond the margin: the score decides
    missing = [match(1, 1, 2.0, terms, at=100), match(2, 2, 1.95, terms - {"make"}, at=200)]
    assert order(missing) == [1, 2]  # it does not hold everything the earlier one holds


def test_superseding_moves_a_later_chat_up_past_several_near_equal_ones() -> None:
    terms = {"toma", "compani", "make"}
    matches = [
        match(1, 1, 2.0, terms, at=100),
        match(2, 2, 1.95, terms, at=200),
        match(3, 3, 1.9, terms, at=300),
    ]
    assert order(matches) == [3, 2, 1]
