"""Compile a domain `MatchQuery` into a tantivy query.

Every phrase becomes, in each of `title` and `body`, a term query (one term) or a phrase
query (several), all of them SHOULD clauses of one flat boolean query: tantivy sums
their bm25 scores, as FTS5 sums its phrases'. A query made of single terms only is a
pure disjunction of term scorers, which tantivy answers with block-max WAND: it skips
the blocks of postings that cannot reach the current top-k, so a common word does not
cost a score per match. Queries are built from terms, never parsed: no input can inject
query syntax.

A vocabulary term (`MatchQuery.terms`) is already the engine's term: a term query as it
is. What the query excludes, and the current chat, are MUST_NOT clauses.

Field weights: FTS5 multiplies a column's term frequency by its weight inside one bm25
saturation, so a title weight of 10 makes a title match count about twice a body match,
not ten times. Tantivy scores each field on its own, so each field's score is boosted by
the same saturation, `w (k1 + 1) / (w + k1)` relative to a weight of 1.
"""

from __future__ import annotations

import tantivy

from chat_recall.adapters.tantivy.engine import _ESCAPED_TERM, SCHEMA, engine_term
from chat_recall.domain.model import ChatId
from chat_recall.domain.query import FieldWeights, MatchQuery, Phrase
from chat_recall.domain.text.analysis import TextAnalysis

BM25_K1 = 1.2  # tantivy's and FTS5's


def saturated(weight: float) -> float:
    """A field weight as bm25 saturates a term frequency multiplied by it, relative to a
    weight of 1."""

    def saturation(w: float) -> float:
        return w * (BM25_K1 + 1) / (w + BM25_K1)

    return saturation(weight) / saturation(1.0)


def _field_query(field: str, terms: list[str], boost: float) -> tantivy.Query:
    if len(terms) == 1:
        query = tantivy.Query.term_query(SCHEMA, field, terms[0])
    else:
        words: list[str | tuple[int, str]] = list(terms)
        query = tantivy.Query.phrase_query(SCHEMA, field, words)
    return query if boost == 1.0 else tantivy.Query.boost_query(query, boost)


def terms_of(phrase: Phrase, analysis: TextAnalysis) -> list[str]:
    """A query phrase (index tokens) as the engine's terms."""
    return [engine_term(term) for term in analysis.phrase(phrase)]


def domain_term(term: str) -> str:
    """A term of this engine's dictionary as the domain's analysis spells it (the
    inverse of `engine_term`)."""
    if not term.startswith(_ESCAPED_TERM):
        return term
    return bytes.fromhex(term[len(_ESCAPED_TERM) :]).decode("utf-8", "surrogateescape")


def _clauses(
    phrases: tuple[Phrase, ...],
    terms: tuple[str, ...],
    boosts: tuple[tuple[str, float], ...],
    analysis: TextAnalysis,
) -> list[tantivy.Query]:
    wanted = [terms_of(phrase, analysis) for phrase in phrases]
    wanted += [[engine_term(term)] for term in terms]
    return [
        _field_query(field, words, boost)
        for words in wanted
        for field, boost in boosts
        if boost > 0.0
    ]


def compile_match(
    query: MatchQuery,
    weights: FieldWeights,
    analysis: TextAnalysis,
    exclude_chat_id: ChatId | None = None,
) -> tantivy.Query:
    if query.is_empty:
        raise ValueError("an empty query has no tantivy form")
    boosts = (("title", saturated(weights.title)), ("body", saturated(weights.body)))
    should = _clauses(query.phrases, query.terms, boosts, analysis)
    match = tantivy.Query.boolean_query([(tantivy.Occur.Should, clause) for clause in should])
    unwanted = _clauses(
        query.excluded, query.excluded_terms, (("title", 1.0), ("body", 1.0)), analysis
    )
    if exclude_chat_id is not None:
        unwanted.append(tantivy.Query.term_query(SCHEMA, "chat_id", exclude_chat_id))
    if not unwanted:
        return match
    return tantivy.Query.boolean_query(
        [(tantivy.Occur.Must, match), *((tantivy.Occur.MustNot, clause) for clause in unwanted)]
    )
