"""Compile a domain `MatchQuery` into an FTS5 MATCH expression.

Every phrase is double-quoted with inner quotes doubled, so no input can inject FTS5
syntax or raise a syntax error; the model never supplies raw query syntax. The match is
restricted to the `title` and `body` columns; what the query excludes, and the current
chat, are removed with `NOT`, evaluated inside FTS5 (the current chat on its short
`chat_ref` posting list).

A term of the vocabulary (`MatchQuery.terms`) reaches FTS5 as a token: FTS5's `porter`
tokenizer stems every query token, and does not give every stem back unchanged, so the
token is one that stems to the term (`TextAnalysis.token_for`). A term no such token
stands for is left out.

Under an analysis that writes its stems (a Snowball language) the table holds the
stems as text, so a phrase is given as its written stems (`TextAnalysis.written_phrase`).
"""

from __future__ import annotations

from chat_recall.adapters.index_layout import chat_ref
from chat_recall.domain.model import ChatId
from chat_recall.domain.query import MatchQuery, Phrase
from chat_recall.domain.text.analysis import TextAnalysis


def quote_phrase(tokens: tuple[str, ...]) -> str:
    return '"' + " ".join(tokens).replace('"', '""') + '"'


def _phrases(
    phrases: tuple[Phrase, ...], terms: tuple[str, ...], analysis: TextAnalysis
) -> list[str]:
    tokens = (analysis.token_for(term) for term in terms)
    written = [quote_phrase(analysis.written_phrase(p)) for p in phrases]
    return written + [quote_phrase((t,)) for t in tokens if t]


def compile_match(
    query: MatchQuery, exclude_chat_id: ChatId | None, analysis: TextAnalysis
) -> str | None:
    """The MATCH expression, or None when nothing of the query can match."""
    if query.is_empty:
        raise ValueError("an empty query has no FTS5 form")
    wanted = _phrases(query.phrases, query.terms, analysis)
    if not wanted:
        return None
    expression = f"{{title body}} : ({' OR '.join(wanted)})"
    unwanted = _phrases(query.excluded, query.excluded_terms, analysis)
    if unwanted:
        expression = f"({expression}) NOT {{title body}} : ({' OR '.join(unwanted)})"
    if exclude_chat_id is None:
        return expression
    return f"({expression}) NOT chat_ref : {quote_phrase((chat_ref(exclude_chat_id),))}"
