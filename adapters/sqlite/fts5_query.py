"""Compile a domain `MatchQuery` into an FTS5 MATCH expression.

Every phrase is double-quoted with inner quotes doubled, so no input can inject FTS5
syntax or raise a syntax error; the model never supplies raw query syntax. The match is
restricted to the `title` and `body` columns; an excluded chat is removed with
`NOT chat_ref : "c<id>"`, evaluated inside FTS5 on that chat's short posting list.
"""

from __future__ import annotations

from chat_recall.adapters.index_layout import chat_ref
from chat_recall.domain.model import ChatId
from chat_recall.domain.query import MatchQuery


def quote_phrase(tokens: tuple[str, ...]) -> str:
    return '"' + " ".join(tokens).replace('"', '""') + '"'


def compile_match(query: MatchQuery, exclude_chat_id: ChatId | None) -> str:
    if query.is_empty:
        raise ValueError("an empty query has no FTS5 form")
    phrases = " OR ".join(quote_phrase(phrase) for phrase in query.phrases)
    expression = f"{{title body}} : ({phrases})"
    if exclude_chat_id is None:
        return expression
    return f"({expression}) NOT chat_ref : {quote_phrase((chat_ref(exclude_chat_id),))}"
