"""Which matches a search shows: each candidate's terms, excerpt and adjusted score, and
the answer evidence a matching question brings in. Pure: the caller fetches the
documents and the message that follows each question through the ports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from chat_recall.domain.messages import Role
from chat_recall.domain.model import Candidate, DocumentText, MessageId
from chat_recall.domain.search.excerpt import (
    highlight,
    holds_phrase,
    matched_terms,
    title_excerpt,
)
from chat_recall.domain.search.query_builder import QueryPlan
from chat_recall.domain.search.ranking import RankedMatch, RecencyScale, SearchPolicy, adjust


def rank_matches(
    candidates: Sequence[Candidate],
    texts: Mapping[MessageId, DocumentText],
    plan: QueryPlan,
    policy: SearchPolicy,
    recency: RecencyScale,
) -> list[RankedMatch]:
    """Each candidate whose document is still visible, with the query terms it holds,
    its excerpt, and its score after the policy's boosts and penalties. A match whose
    body holds none of the query's words (found through its chat's title) ranks at
    `policy.title_only_factor`, and its excerpt starts with the title that matched."""
    wanted = plan.wanted
    matches = []
    for candidate in candidates:
        document = texts.get(candidate.message_id)
        if document is None:
            continue
        body_terms, excerpt = highlight(document.body, wanted, policy.excerpt_chars, plan.analysis)
        terms = body_terms | matched_terms(document.title, wanted, plan.analysis)
        terms |= plan.phrases_held(document.body, document.title)
        score = adjust(candidate, policy, recency)
        if not body_terms:  # found through its chat's title: the excerpt says so
            score *= policy.title_only_factor
            excerpt = title_excerpt(document.title, document.body, policy.excerpt_chars)
        if any(
            holds_phrase(document.body, phrase) or holds_phrase(document.title, phrase)
            for phrase in plan.exact_phrases
        ):
            score *= policy.phrase_bonus
        matches.append(
            RankedMatch(
                candidate,
                score,
                terms,
                excerpt,
                body_evidence=bool(body_terms),
            )
        )
    return matches


def asks(document: DocumentText) -> bool:
    """The message asks something: whoever replies may hold the answer."""
    return "?" in document.body


def questions(
    matches: Sequence[RankedMatch], texts: Mapping[MessageId, DocumentText], policy: SearchPolicy
) -> list[MessageId]:
    """The matching messages whose reply may hold the answer: every message that asks
    (any role: the user asks the assistant, the assistant asks and the user decides, one
    person asks the other), and with `policy.user_replies` every user message (in an
    app-building chat the assistant's reply carries out what the user said). None when
    the policy has no answer evidence."""
    if not policy.answer_evidence:
        return []
    chosen = []
    for match in matches:
        document = texts.get(match.candidate.message_id)
        if document is None:
            continue
        if (policy.answers_both_ways and asks(document)) or (
            match.candidate.role is Role.USER and policy.user_replies
        ):
            chosen.append(match.candidate.message_id)
    return chosen


def with_answers(
    matches: Sequence[RankedMatch],
    following: Mapping[MessageId, MessageId],
    texts: Mapping[MessageId, DocumentText],
    plan: QueryPlan,
    policy: SearchPolicy,
) -> list[RankedMatch]:
    """Add the reply that follows each matching question (`following`: question id ->
    next message id; a reply is a message of the other role, never a summary), ranked
    as well as its question unless it already ranks better: questions restate the
    query's words while replies hold the answer. With `policy.answers_first` a question
    whose reply is shown gives its slot in the chat to other matches (reading around the
    reply shows the question); a user statement's reply ranks just below the statement."""
    by_id = {m.candidate.message_id: m for m in matches}
    for question in matches:
        question_id = question.candidate.message_id
        following_id = following.get(question_id)
        document = texts.get(question_id)
        answer = None if following_id is None else texts.get(following_id)
        if answer is None or document is None or answer.is_compaction_summary:
            continue
        if answer.role is question.candidate.role:
            continue
        asked = policy.answers_both_ways and asks(document)
        if not asked and not (policy.user_replies and question.candidate.role is Role.USER):
            continue
        score = question.adjusted_score * (1.0 if asked else policy.statement_reply_factor)
        current = by_id.get(answer.message_id)
        if asked and policy.answers_first:
            by_id[question_id] = attrs.evolve(by_id[question_id], answered=True)
        if current is not None and current.adjusted_score >= score:
            continue
        terms, excerpt = highlight(answer.body, plan.wanted, policy.excerpt_chars, plan.analysis)
        terms |= plan.phrases_held(answer.body)
        if not terms and not question.body_evidence:  # both found through the title
            excerpt = title_excerpt(answer.title, answer.body, policy.excerpt_chars)
        by_id[answer.message_id] = RankedMatch(
            answer.as_candidate(question.candidate.score),
            score,
            terms,
            excerpt,
            body_evidence=question.body_evidence,
        )
    return list(by_id.values())
