"""Which matches a search shows (`domain.search.evidence`), on hand-built documents: the
exact-phrase bonus, the policy's penalties, and the reply a matching question brings in
as answer evidence, whoever asks (issue 14, failure 3)."""

from __future__ import annotations

import attrs
import pytest

from chat_recall.domain.messages import Role
from chat_recall.domain.model import ChatId, DocumentText, MessageId
from chat_recall.domain.search.evidence import asks, questions, rank_matches, with_answers
from chat_recall.domain.search.query_builder import QueryPlan, build_query
from chat_recall.domain.search.ranking import RankedMatch, RecencyScale, SearchPolicy

SHIPPED = SearchPolicy.default()
OTHER = {Role.USER: Role.ASSISTANT, Role.ASSISTANT: Role.USER}


def doc(
    message: int,
    role: Role,
    body: str,
    *,
    title: str = "",
    chat: int = 1,
    at: int = 0,
    summary: bool = False,
) -> DocumentText:
    return DocumentText(
        MessageId(message), title, body, ChatId(chat), role, at or message, summary, False
    )


def texts(*documents: DocumentText) -> dict[MessageId, DocumentText]:
    return {document.message_id: document for document in documents}


def ranked(
    documents: dict[MessageId, DocumentText],
    scores: dict[int, float],
    plan: QueryPlan,
    policy: SearchPolicy = SHIPPED,
) -> dict[int, RankedMatch]:
    """rank_matches over candidates with the given engine scores, by message id."""
    candidates = [documents[MessageId(m)].as_candidate(score) for m, score in scores.items()]
    matches = rank_matches(candidates, documents, plan, policy, RecencyScale.of(candidates))
    return {match.candidate.message_id: match for match in matches}


# --- rank_matches -------------------------------------------------------------------


def test_the_exact_phrase_bonus_raises_a_match_holding_the_whole_query() -> None:
    plan = build_query("refund window")
    documents = texts(
        doc(1, Role.USER, "We settled the refund window at 30 days."),
        doc(2, Role.USER, "The window for a refund is 30 days."),  # both words, apart
        doc(3, Role.USER, "Refund, window: thirty days"),  # only punctuation between
    )
    matches = ranked(documents, {1: 3.0, 2: 3.0, 3: 3.0}, plan)
    assert matches[MessageId(1)].adjusted_score == pytest.approx(3.0 * SHIPPED.phrase_bonus)
    assert matches[MessageId(2)].adjusted_score == pytest.approx(3.0)
    assert matches[MessageId(3)].adjusted_score == pytest.approx(3.0 * SHIPPED.phrase_bonus)
    # Without the bonus the three are level.
    level = ranked(documents, {1: 3.0, 2: 3.0, 3: 3.0}, plan, attrs.evolve(SHIPPED, phrase_bonus=1))
    assert {match.adjusted_score for match in level.values()} == {3.0}


def test_the_phrase_bonus_counts_the_title_too() -> None:
    plan = build_query("refund window")
    documents = texts(doc(1, Role.USER, "thirty days it is", title="Refund window policy"))
    match = ranked(documents, {1: 1.5}, plan)[MessageId(1)]
    factor = SHIPPED.title_only_factor  # only the title holds the words
    assert match.adjusted_score == pytest.approx(1.5 * SHIPPED.phrase_bonus * factor)
    assert match.terms == frozenset({"refund", "window"})
    assert not match.body_evidence
    assert match.excerpt == "[chat title: Refund window policy] thirty days it is"


def test_a_match_found_only_through_its_title_ranks_below_one_holding_the_words() -> None:
    plan = build_query("deploy")
    documents = texts(
        doc(1, Role.ASSISTANT, "Frankfurt (fra).", title="Deploy to Fly.io"),
        doc(2, Role.ASSISTANT, "Use fly deploy from CI.", title="CI"),
    )
    matches = ranked(documents, {1: 2.0, 2: 0.5}, plan)
    assert matches[MessageId(2)].adjusted_score > matches[MessageId(1)].adjusted_score
    assert matches[MessageId(1)].excerpt.startswith("[chat title: Deploy to Fly.io] ")
    plain = ranked(documents, {1: 2.0, 2: 0.5}, plan, SearchPolicy.design_baseline())
    assert plain[MessageId(1)].adjusted_score == pytest.approx(2.0)


def test_a_typographic_possessive_in_a_message_holds_the_ascii_query_phrase() -> None:
    plan = build_query("Caroline's friends")
    documents = texts(
        doc(1, Role.USER, "Caroline\u2019s friends met in 2019."),
        doc(2, Role.USER, "Caroline and her friends met in 2019."),
    )
    matches = ranked(documents, {1: 1.0, 2: 1.0}, plan)
    assert matches[MessageId(1)].adjusted_score == pytest.approx(SHIPPED.phrase_bonus)
    assert matches[MessageId(2)].adjusted_score == pytest.approx(1.0)
    assert matches[MessageId(2)].terms == frozenset({"carolin", "friend"})


def test_a_match_holds_the_terms_of_every_inflection_and_an_excerpt_around_them() -> None:
    plan = build_query("meeting Maria")
    filler = "Nothing about it here. " * 20
    documents = texts(doc(1, Role.ASSISTANT, f"{filler}Jean met Maria after the meetings."))
    match = ranked(documents, {1: 1.0}, plan)[MessageId(1)]
    assert match.terms == frozenset({"meet", "maria"})
    assert match.body_evidence
    assert "Maria after the meetings." in match.excerpt
    assert match.excerpt.startswith("…")  # cut around the hits, not the message's start


def test_a_match_whose_document_is_gone_is_dropped() -> None:
    plan = build_query("refund")
    documents = texts(doc(1, Role.USER, "refund"), doc(2, Role.USER, "refund"))
    candidates = [document.as_candidate(1.0) for document in documents.values()]
    del documents[MessageId(2)]  # deleted between the search and reading the texts
    matches = rank_matches(candidates, documents, plan, SHIPPED, RecencyScale())
    assert [match.candidate.message_id for match in matches] == [1]


def test_a_compaction_summary_ranks_below_the_same_original_message() -> None:
    plan = build_query("refund")
    documents = texts(
        doc(1, Role.USER, "refund in 30 days"),
        doc(2, Role.ASSISTANT, "refund in 30 days", summary=True),
    )
    matches = ranked(documents, {1: 2.0, 2: 2.0}, plan)
    assert matches[MessageId(1)].adjusted_score == pytest.approx(2.0)
    assert matches[MessageId(2)].adjusted_score == pytest.approx(2.0 * SHIPPED.compaction_factor)


# --- questions and with_answers -----------------------------------------------------


def answered(
    documents: dict[MessageId, DocumentText],
    scores: dict[int, float],
    following: dict[int, int],
    query: str,
    policy: SearchPolicy = SHIPPED,
) -> dict[int, RankedMatch]:
    """The matches after answer evidence, by message id, as search_chats runs it: the
    questions it asks the store about, then the replies it brings."""
    plan = build_query(query)
    matches = list(ranked(documents, scores, plan, policy).values())
    asked = questions(matches, documents, policy)
    replies = {MessageId(q): MessageId(a) for q, a in following.items() if MessageId(q) in asked}
    result = with_answers(matches, replies, documents, plan, policy)
    return {match.candidate.message_id: match for match in result}


@pytest.mark.parametrize("asker", [Role.USER, Role.ASSISTANT])
def test_a_question_brings_its_reply_whoever_asks(asker: Role) -> None:
    documents = texts(
        doc(1, asker, "Which refund window should we use?"),
        doc(2, OTHER[asker], "Thirty days, and store credit after that."),
    )
    matches = answered(documents, {1: 4.0}, {1: 2}, "refund window")
    assert set(matches) == {1, 2}
    reply = matches[MessageId(2)]
    assert reply.candidate.role is OTHER[asker]
    assert reply.adjusted_score == matches[MessageId(1)].adjusted_score  # ranked with it
    assert reply.terms == frozenset()  # the answer need not repeat the query's words
    assert reply.excerpt == "Thirty days, and store credit after that."
    assert matches[MessageId(1)].answered  # the question gives its slot to the reply


def test_in_a_peer_conversation_each_question_brings_the_other_persons_reply() -> None:
    # Two people (stored as the two roles) asking each other.
    documents = texts(
        doc(1, Role.USER, "Jean, when did you first meet Maria?"),
        doc(2, Role.ASSISTANT, "In Lyon, 2015. Did Maria ever tell you how we met?"),
        doc(3, Role.USER, "She said it was at a concert."),
    )
    matches = answered(documents, {1: 3.0, 2: 2.0}, {1: 2, 2: 3}, "Maria meeting")
    assert set(matches) == {1, 2, 3}
    # Message 2 answers message 1 and is raised to its score; message 3 answers 2.
    assert matches[MessageId(2)].adjusted_score == pytest.approx(3.0)
    assert matches[MessageId(3)].adjusted_score == pytest.approx(2.0)
    assert matches[MessageId(3)].candidate.role is Role.USER


def test_questions_names_every_asking_match_of_either_role() -> None:
    documents = texts(
        doc(1, Role.USER, "Which refund window?"),
        doc(2, Role.ASSISTANT, "Shall I set the refund window to 30 days?"),
        doc(3, Role.USER, "Set the refund window to 30 days."),
    )
    plan = build_query("refund window")
    matches = list(ranked(documents, {1: 1.0, 2: 1.0, 3: 1.0}, plan).values())
    assert questions(matches, documents, SHIPPED) == [1, 2]
    assert questions(matches, documents, SearchPolicy.design_baseline()) == []
    assert questions(matches, documents, attrs.evolve(SHIPPED, answer_evidence=False)) == []
    statements = attrs.evolve(SHIPPED, answers_both_ways=False, user_replies=True)
    assert questions(matches, documents, statements) == [1, 3]  # the user's messages
    assert [asks(document) for document in documents.values()] == [True, True, False]


def test_a_statement_does_not_bring_its_reply() -> None:
    documents = texts(
        doc(1, Role.USER, "Set the refund window to 30 days."),
        doc(2, Role.ASSISTANT, "Done: thirty days."),
    )
    plan = build_query("refund window")
    matches = list(ranked(documents, {1: 4.0}, plan).values())
    assert questions(matches, documents, SHIPPED) == []
    # Even when told which message follows, a statement's reply is not answer evidence.
    result = with_answers(matches, {MessageId(1): MessageId(2)}, documents, plan, SHIPPED)
    assert [match.candidate.message_id for match in result] == [1]
    assert not result[0].answered


def test_with_user_replies_a_user_statement_brings_the_reply_below_it() -> None:
    policy = attrs.evolve(SHIPPED, user_replies=True, statement_reply_factor=0.5)
    documents = texts(
        doc(1, Role.USER, "Set the refund window to 30 days."),
        doc(2, Role.ASSISTANT, "Done: thirty days."),
    )
    matches = answered(documents, {1: 4.0}, {1: 2}, "refund window", policy)
    statement = matches[MessageId(1)].adjusted_score
    assert matches[MessageId(2)].adjusted_score == pytest.approx(0.5 * statement)
    assert not matches[MessageId(1)].answered  # a statement keeps its slot


def test_a_reply_of_the_same_role_or_a_summary_is_no_answer() -> None:
    question = doc(1, Role.USER, "Which refund window?")
    same_role = doc(2, Role.USER, "Also: which currency?")
    summary = doc(2, Role.ASSISTANT, "Summary: refund window discussed.", summary=True)
    for reply in (same_role, summary):
        documents = texts(question, reply)
        matches = answered(documents, {1: 4.0}, {1: 2}, "refund window")
        assert set(matches) == {1}
        assert not matches[MessageId(1)].answered


def test_a_reply_that_already_ranks_better_keeps_its_own_match() -> None:
    documents = texts(
        doc(1, Role.USER, "Which refund window?"),
        doc(2, Role.ASSISTANT, "The refund window is thirty days: refund window set."),
    )
    matches = answered(documents, {1: 1.0, 2: 5.0}, {1: 2}, "refund window")
    assert matches[MessageId(2)].adjusted_score == pytest.approx(5.0 * SHIPPED.phrase_bonus)
    assert matches[MessageId(2)].candidate.score == 5.0
    assert matches[MessageId(1)].answered


def test_a_reply_that_ranks_worse_is_raised_to_its_question() -> None:
    documents = texts(
        doc(1, Role.USER, "Which refund window should we pick?"),
        doc(2, Role.ASSISTANT, "Thirty days; a refund after that is store credit."),
    )
    matches = answered(documents, {1: 6.0, 2: 1.0}, {1: 2}, "refund window")
    question = matches[MessageId(1)]
    assert matches[MessageId(2)].adjusted_score == question.adjusted_score
    assert matches[MessageId(2)].terms == frozenset({"refund"})
    assert matches[MessageId(2)].candidate.score == question.candidate.score


def test_without_answers_first_the_question_keeps_its_slot() -> None:
    documents = texts(
        doc(1, Role.ASSISTANT, "Which refund window do you want?"),
        doc(2, Role.USER, "Thirty days."),
    )
    policy = attrs.evolve(SHIPPED, answers_first=False)
    matches = answered(documents, {1: 4.0}, {1: 2}, "refund window", policy)
    assert set(matches) == {1, 2}
    assert not matches[MessageId(1)].answered


def test_the_reply_inherits_whether_the_question_matched_in_its_body() -> None:
    documents = texts(
        doc(1, Role.USER, "What did we pick?", title="Refund window"),
        doc(2, Role.ASSISTANT, "Thirty days.", title="Refund window"),
    )
    matches = answered(documents, {1: 4.0}, {1: 2}, "refund window")
    assert not matches[MessageId(1)].body_evidence
    assert not matches[MessageId(2)].body_evidence
