"""search_chats: keyword search over the app's earlier chats, as ranked pointers with
short excerpts, never whole messages.

Pure read: runs on read-only connections and writes nothing. If the indexer has a batch
in flight for this app it waits a short bounded time, then answers from the current
index with `index_status: "indexing"` and the coverage so far.
"""

from __future__ import annotations

from typing import Any

import attrs

from chat_recall.application.progress import IndexProgress
from chat_recall.application.tools.arguments import parse_arguments
from chat_recall.application.tools.context import CallContext
from chat_recall.application.tools.output import ARCHIVAL_NOTICE, dumps, iso_time, size, unstructure
from chat_recall.domain.messages import Role
from chat_recall.domain.model import Candidate, DocumentText, MessageId
from chat_recall.domain.ports import DirtyQueue, IndexStore, MessageRepo
from chat_recall.domain.projection.text import clip_chars
from chat_recall.domain.query import ScopedQuery
from chat_recall.domain.search.excerpt import highlight, matched_tokens
from chat_recall.domain.search.query_builder import QueryPlan, build_query
from chat_recall.domain.search.ranking import (
    RankedMatch,
    RecencyScale,
    SearchPolicy,
    adjust,
    group,
    shortlist,
)
from chat_recall.domain.text import reading_text
from chat_recall.domain.text.segment import sanitize

OUTPUT_BUDGET_BYTES = 12 * 1024
DEFAULT_WAIT_SECONDS = 0.25
TITLE_CHARS = 200


def _query(value: str) -> str:
    """Trimmed, and safe to echo: lone surrogates (unencodable as UTF-8) and control
    characters never reach the output."""
    return sanitize(value).strip()


def _query_length(instance: object, attribute: object, value: str) -> None:
    if not 1 <= len(value) <= 500:
        raise ValueError("query must be 1-500 characters after trimming (use a few keywords)")


def _limit_range(instance: object, attribute: object, value: int) -> None:
    if not 1 <= value <= 20:
        raise ValueError("limit must be an integer from 1 to 20 (default 8)")


@attrs.frozen
class SearchChatsArguments:
    query: str = attrs.field(converter=_query, validator=_query_length)
    limit: int = attrs.field(default=8, validator=_limit_range)


@attrs.frozen
class MatchOut:
    message_id: int
    role: str
    created_at: str
    excerpt: str
    projection_truncated: bool


@attrs.frozen
class ChatOut:
    chat_id: int
    title: str | None
    last_message_at: str | None
    matches: list[MatchOut]


@attrs.frozen
class CoverageOut:
    indexed_messages: int
    pending_messages: int


@attrs.frozen
class SearchChatsOutput:
    query: str
    index_status: str
    results: list[ChatOut]
    results_truncated: bool
    archival_content: bool
    notice: str
    index_coverage: CoverageOut | None = None


@attrs.define
class SearchChats:
    repo: MessageRepo
    index: IndexStore
    dirty: DirtyQueue
    progress: IndexProgress
    policy: SearchPolicy = attrs.field(factory=SearchPolicy.default)
    wait_seconds: float = DEFAULT_WAIT_SECONDS

    def run(self, context: CallContext, raw_arguments: object) -> Any:
        """The result payload; raises ChatRecallError for bad arguments or storage."""
        return self.search(context, parse_arguments(raw_arguments, SearchChatsArguments))

    def search(self, context: CallContext, arguments: SearchChatsArguments) -> Any:
        plan = build_query(arguments.query, morphology=self.policy.morphology)
        self.progress.wait_for(context.app_id, self.wait_seconds)
        pending = self.dirty.pending_in_app(context.app_id, context.chat_id)
        results = [] if plan.is_empty else self._results(context, plan, arguments.limit)
        coverage = None
        if pending:
            indexed = self.index.stats(context.app_id).documents
            coverage = CoverageOut(indexed_messages=indexed, pending_messages=pending)
        output = SearchChatsOutput(
            query=arguments.query,
            index_status="indexing" if pending else "ready",
            results=results,
            results_truncated=False,
            archival_content=True,
            notice=ARCHIVAL_NOTICE,
            index_coverage=coverage,
        )
        return _within_budget(output)

    def _results(self, context: CallContext, plan: QueryPlan, limit: int) -> list[ChatOut]:
        query = ScopedQuery(
            plan.match,
            context.app_id,
            context.chat_id,
            self.policy.window,
            self.policy.weights,
        )
        window = self.index.search(query)
        recency = RecencyScale.of(window)
        candidates = shortlist(window, self.policy, limit, recency)
        if not candidates:
            return []
        texts = {
            d.message_id: d
            for d in self.index.documents(context.app_id, [c.message_id for c in candidates])
        }
        wanted = plan.term_tokens
        matches = []
        for candidate in candidates:
            document = texts.get(candidate.message_id)
            if document is None:
                continue
            body_terms, body_excerpt = highlight(document.body, wanted, self.policy.excerpt_chars)
            terms = body_terms | matched_tokens(document.title, wanted)
            coverage = plan.coverage(terms)
            matches.append(
                RankedMatch(
                    candidate,
                    adjust(candidate, coverage, self.policy, recency),
                    terms,
                    body_excerpt,
                    body_evidence=bool(body_terms),
                )
            )
        if self.policy.answer_evidence:
            matches = self._with_answers(context, plan, matches, texts)
        groups = group(matches, self.policy, limit)
        chat_ids = [g.chat_id for g in groups]
        latest = self.repo.last_message_at(context.app_id, chat_ids)
        titles = {g.chat_id: _title(texts[g.matches[0].candidate.message_id].title) for g in groups}
        return [
            ChatOut(
                chat_id=g.chat_id,
                title=titles[g.chat_id],
                last_message_at=iso_time(latest[g.chat_id]) if g.chat_id in latest else None,
                matches=[_match_out(m.candidate, m.excerpt) for m in g.matches],
            )
            for g in groups
        ]

    def _with_answers(
        self,
        context: CallContext,
        plan: QueryPlan,
        matches: list[RankedMatch],
        texts: dict[MessageId, DocumentText],
    ) -> list[RankedMatch]:
        """Add the reply that follows each matching user message, ranked as well as its
        question (recency puts the reply first), unless it already ranks better."""
        questions = [m for m in matches if m.candidate.role is Role.USER]
        following = self.repo.next_message_ids(
            context.app_id, [m.candidate.message_id for m in questions]
        )
        missing = [i for i in following.values() if i not in texts]
        texts.update((d.message_id, d) for d in self.index.documents(context.app_id, missing))
        by_id = {m.candidate.message_id: m for m in matches}
        wanted = plan.term_tokens
        for question in questions:
            answer = texts.get(following.get(question.candidate.message_id, -1))
            if answer is None or answer.role is not Role.ASSISTANT or answer.is_compaction_summary:
                continue
            current = by_id.get(answer.message_id)
            if current is not None and current.adjusted_score >= question.adjusted_score:
                continue
            answer_terms, answer_excerpt = highlight(answer.body, wanted, self.policy.excerpt_chars)
            by_id[answer.message_id] = RankedMatch(
                answer.as_candidate(question.candidate.score),
                question.adjusted_score,
                answer_terms,
                answer_excerpt,
                body_evidence=question.body_evidence,
            )
        return list(by_id.values())


def _title(index_title: str) -> str | None:
    return clip_chars(reading_text(index_title), TITLE_CHARS) or None


def _match_out(candidate: Candidate, text: str) -> MatchOut:
    return MatchOut(
        message_id=candidate.message_id,
        role=candidate.role.value,
        created_at=iso_time(candidate.created_at),
        excerpt=text,
        projection_truncated=candidate.projection_truncated,
    )


def _within_budget(output: SearchChatsOutput) -> Any:
    """Drop trailing results (then second matches) until the JSON fits the budget."""
    payload = _payload(output)
    while size(dumps(payload)) > OUTPUT_BUDGET_BYTES and output.results:
        results = list(output.results)
        last = results[-1]
        if len(last.matches) > 1:
            results[-1] = attrs.evolve(last, matches=last.matches[:1])
        else:
            results.pop()
        output = attrs.evolve(output, results=results, results_truncated=True)
        payload = _payload(output)
    return payload


def _payload(output: SearchChatsOutput) -> Any:
    payload = unstructure(output)
    if output.index_coverage is None:
        del payload["index_coverage"]
    return payload
