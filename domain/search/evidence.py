"""Which matches a search shows: each candidate's terms, excerpt and adjusted score, and
the answer evidence a matching question brings in. Pure: the caller fetches the
documents and the message that follows each question through the ports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from chat_recall.domain.messages import Role
from chat_recall.domain.model import Candidate, DocumentText, MessageId
from chat_recall.domain.search.excerpt import highlight, matched_terms
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
    its excerpt, and its score after the policy's boosts and penalties."""
    wanted = plan.wanted
    matches = []
    for candidate in candidates:
        document = texts.get(candidate.message_id)
        if document is None:
            continue
        body_terms, body_excerpt = highlight(
            document.body, wanted, policy.excerpt_chars, plan.analysis
        )
        terms = body_terms | matched_terms(document.title, wanted, plan.analysis)
        matches.append(
            RankedMatch(
                candidate,
                adjust(candidate, policy, recency),
                terms,
                body_excerpt,
                body_evidence=bool(body_terms),
            )
        )
    return matches


def questions(matches: Sequence[RankedMatch], policy: SearchPolicy) -> list[MessageId]:
    """The matching user messages whose reply may hold the answer (none when the
    policy has no answer evidence)."""
    if not policy.answer_evidence:
        return []
    return [m.candidate.message_id for m in matches if m.candidate.role is Role.USER]


def with_answers(
    matches: Sequence[RankedMatch],
    following: Mapping[MessageId, MessageId],
    texts: Mapping[MessageId, DocumentText],
    plan: QueryPlan,
    policy: SearchPolicy,
) -> list[RankedMatch]:
    """Add the assistant reply that follows each matching user message (`following`:
    question id -> next message id), ranked as well as its question (recency then puts
    the reply first), unless it already ranks better; questions restate the query's
    words while answers hold the decision."""
    by_id = {m.candidate.message_id: m for m in matches}
    for question in matches:
        if question.candidate.role is not Role.USER:
            continue
        following_id = following.get(question.candidate.message_id)
        answer = None if following_id is None else texts.get(following_id)
        if answer is None or answer.role is not Role.ASSISTANT or answer.is_compaction_summary:
            continue
        current = by_id.get(answer.message_id)
        if current is not None and current.adjusted_score >= question.adjusted_score:
            continue
        terms, excerpt = highlight(answer.body, plan.wanted, policy.excerpt_chars, plan.analysis)
        by_id[answer.message_id] = RankedMatch(
            answer.as_candidate(question.candidate.score),
            question.adjusted_score,
            terms,
            excerpt,
            body_evidence=question.body_evidence,
        )
    return list(by_id.values())
