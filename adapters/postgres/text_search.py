"""Documents and queries in PostgreSQL's text search types, built from the domain's
own tokens.

PostgreSQL's parsers and dictionaries split, fold and stem text their own way;
chat-recall needs the same terms in every engine (diacritics folded as FTS5's
`unicode61 remove_diacritics 2`, file names split at punctuation, scripts written
without spaces one character per token, a word and its inflections one Porter stem).
So the terms come from the index's `TextAnalysis` (`domain.text.analysis`) and reach
PostgreSQL as `tsvector` / `tsquery` literals, never through `to_tsvector`: the text
search configuration plays no part, and no extension (unaccent, a CJK parser) is
needed on the server.

- Title terms carry weight A at positions 1..n, body terms weight D after a gap of one
  position (a phrase never spans the two); `ts_rank` weighs A and D as the query's
  `FieldWeights` say.
- One more lexeme, `APP_LEXEME` + the app id, holds the document's app: the GIN index
  answers "this term in this app" by intersecting two posting lists.
- PostgreSQL limits: a lexeme of at most 2046 bytes (longer tokens are left out),
  positions up to 16383 (later ones share the last), at most 256 positions per lexeme.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from chat_recall.domain.model import AppId
from chat_recall.domain.query import FieldWeights, Phrase
from chat_recall.domain.text import tokenize
from chat_recall.domain.text.analysis import TextAnalysis

MAX_LEXEME_BYTES = 2046
MAX_POSITION = 16383
MAX_POSITIONS_PER_LEXEME = 255
# A space never occurs in a token, so no word can collide with the app lexeme.
APP_LEXEME = "app "


def quote_lexeme(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def _fits(token: str) -> bool:
    return len(token.encode("utf-8")) <= MAX_LEXEME_BYTES


@functools.lru_cache(maxsize=200_000)
def _term(analysis: TextAnalysis, token: str) -> str:
    """A token's term, remembered: a history's vocabulary repeats, and stemming in
    Python is most of the cost of building a document."""
    return analysis.term(token)


def _terms(analysis: TextAnalysis, text: str) -> list[str]:
    return [_term(analysis, token) for token in tokenize(text)]


def document_vector(
    analysis: TextAnalysis, app_id: AppId, title: str, body: str
) -> tuple[str, int]:
    """The tsvector literal of a document and its length in terms (the same terms as
    `analysis.terms`)."""
    title_terms, body_terms = _terms(analysis, title), _terms(analysis, body)
    positions: dict[str, list[str]] = {}

    def add(tokens: Iterable[str], first: int, weight: str) -> None:
        for offset, token in enumerate(tokens):
            if not _fits(token):
                continue
            slots = positions.setdefault(token, [])
            if len(slots) < MAX_POSITIONS_PER_LEXEME:
                slots.append(f"{min(first + offset, MAX_POSITION)}{weight}")

    add(title_terms, 1, "A")
    add(body_terms, len(title_terms) + 2, "")
    parts = [f"{quote_lexeme(lexeme)}:{','.join(slots)}" for lexeme, slots in positions.items()]
    parts.append(quote_lexeme(app_lexeme(app_id)))
    return " ".join(parts), len(title_terms) + len(body_terms)


def app_lexeme(app_id: AppId) -> str:
    return f"{APP_LEXEME}{int(app_id)}"


def phrase_query(analysis: TextAnalysis, phrase: Phrase) -> str | None:
    """A phrase (of index tokens) as a tsquery: its terms next to each other, in order.
    None when a term cannot be a lexeme (nothing can match it)."""
    tokens = list(analysis.phrase(phrase))
    if not tokens or not all(_fits(token) for token in tokens):
        return None
    return " <-> ".join(quote_lexeme(token) for token in tokens)


def term_query(term: str) -> str | None:
    """A term of the index's analysis (what the vocabulary holds) as a tsquery; None
    when it cannot be a lexeme."""
    return quote_lexeme(term) if term and _fits(term) else None


def prefix_query(prefix: str) -> str | None:
    """Every lexeme that begins with `prefix` (a folded token)."""
    return f"{quote_lexeme(prefix)}:*" if prefix and _fits(prefix) else None


def any_of(queries: Sequence[str]) -> str:
    return " | ".join(f"({query})" for query in queries)


def in_app(app_id: AppId, query: str) -> str:
    return f"{quote_lexeme(app_lexeme(app_id))} & ({query})"


def none_of(query: str, excluded: Sequence[str]) -> str:
    """`query`, without the documents that match any of `excluded`."""
    return f"({query}) & !({any_of(excluded)})" if excluded else query


def rank_weights(weights: FieldWeights) -> list[float]:
    """ts_rank's weights {D, C, B, A}, each at most 1: body on D, title on A."""
    top = max(weights.title, weights.body)
    return [weights.body / top, 0.0, 0.0, weights.title / top]
