"""From a model's free-text query to a `QueryPlan`.

- Words are split on whitespace; each word becomes the phrase of its index tokens (the
  same tokenisation the index uses), so `login.ts`, `user_id` and `v2.1` match as
  phrases of their parts and a Japanese word matches as the phrase of its characters.
- Stopwords are dropped only when other terms remain: a non-empty query never becomes
  an empty search by accident. A query with no token at all (punctuation only) is empty
  and the index is not touched.
- Terms are de-duplicated and capped at MAX_TERMS; with two or more words the whole
  normalised query is added as one more phrase, so a document holding the exact phrase
  gains its bm25 weight (the exact-phrase bonus).
- Optional English morphology adds the singular/plural twin of a plain ASCII word
  (`jwts` -> `jwt`), as one more OR phrase.
"""

from __future__ import annotations

import attrs

from domain.query import MatchQuery, Phrase
from domain.text import index_text, tokenize

MAX_TERMS = 12
MAX_PHRASE_TOKENS = 16

STOPWORDS = frozenset(
    """
    a about above after again all also am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each
    few for from further had has have having he her here hers him his how i if in into
    is it its itself just me more most my no nor not now of off on once only or other
    our ours out over own same she should so some such than that the their theirs them
    then there these they this those through to too under until up very was we were what
    when where which while who whom why will with would you your yours
    der die das und ist nicht ein eine zu mit von wir ich le la les et est un une des du
    de en pour que qui dans nous je il и в не на что я с мы как
    """.split()
)


@attrs.frozen
class QueryPlan:
    """What the domain asks of the index, and what ranking and excerpts need to know."""

    text: str
    terms: tuple[Phrase, ...]
    match: MatchQuery

    @property
    def is_empty(self) -> bool:
        return self.match.is_empty

    @property
    def term_tokens(self) -> frozenset[str]:
        return frozenset(token for term in self.terms for token in term)


def _english_twin(token: str) -> str | None:
    if not token.isascii() or not token.isalpha() or len(token) < 4:
        return None
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith("ss"):
        return None
    if token.endswith("s"):
        return token[:-1]
    return token + "s"


def build_query(text: str, *, morphology: bool = True) -> QueryPlan:
    words = [tuple(tokenize(index_text(word)))[:MAX_PHRASE_TOKENS] for word in text.split()]
    words = [word for word in words if word]
    meaningful = [w for w in words if not (len(w) == 1 and w[0] in STOPWORDS)]
    chosen = meaningful or words
    terms: list[Phrase] = []
    for word in chosen:
        if word not in terms:
            terms.append(word)
    terms = terms[:MAX_TERMS]
    phrases = list(terms)
    if morphology:
        for term in terms:
            twin = _english_twin(term[0]) if len(term) == 1 else None
            if twin is not None and (twin,) not in phrases:
                phrases.append((twin,))
    whole = tuple(token for word in words for token in word)[:MAX_PHRASE_TOKENS]
    if len(words) >= 2 and whole not in phrases:
        phrases.append(whole)
    return QueryPlan(text=text, terms=tuple(terms), match=MatchQuery(tuple(phrases)))
