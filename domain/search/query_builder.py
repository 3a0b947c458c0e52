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
- With `morphology`, a plain English word also matches its inflections (`hosted` ->
  `host`, `hosting`, `hosts`; `payments` -> `payment`), each one more OR phrase.
"""

from __future__ import annotations

import attrs

from chat_recall.domain.query import MatchQuery, Phrase
from chat_recall.domain.text import index_text, tokenize

MAX_TERMS = 12
MAX_PHRASE_TOKENS = 16
MAX_VARIANTS = 6

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
class QueryTerm:
    """One query word: its phrase and the inflections that count as the same term."""

    phrase: Phrase
    variants: tuple[Phrase, ...] = ()

    @property
    def alternatives(self) -> tuple[Phrase, ...]:
        return (self.phrase, *self.variants)


@attrs.frozen
class QueryPlan:
    """What the domain asks of the index, and what ranking and excerpts need to know."""

    text: str
    terms: tuple[QueryTerm, ...]
    match: MatchQuery

    @property
    def is_empty(self) -> bool:
        return self.match.is_empty

    @property
    def term_tokens(self) -> frozenset[str]:
        return frozenset(
            token for term in self.terms for phrase in term.alternatives for token in phrase
        )


def _inflections(stem: str) -> set[str]:
    if stem.endswith("e"):
        return {stem, stem + "s", stem[:-1] + "ing", stem + "d"}
    return {stem, stem + "s", stem + "ing", stem + "ed"}


def english_variants(token: str) -> tuple[str, ...]:
    """Inflections of a plain English word, by a few suffix rules (no dictionary)."""
    if not token.isascii() or not token.isalpha() or len(token) < 4 or token in STOPWORDS:
        return ()
    stems = {token}
    if token.endswith("ies") and len(token) > 4:
        stems.add(token[:-3] + "y")
    elif token.endswith(("ches", "shes", "sses", "xes", "zes")):
        stems.add(token[:-2])
    elif token.endswith("s") and not token.endswith("ss"):
        stems.add(token[:-1])
    if token.endswith("ing") and len(token) > 5:
        stems |= {token[:-3], token[:-3] + "e"}
    if token.endswith("ed") and len(token) > 4:
        stems |= {token[:-2], token[:-1]}
    family: set[str] = set()
    for stem in stems:
        family |= _inflections(stem)
    family.discard(token)
    return tuple(sorted(family))[:MAX_VARIANTS]


def build_query(text: str, *, morphology: bool = True) -> QueryPlan:
    words = [tuple(tokenize(index_text(word)))[:MAX_PHRASE_TOKENS] for word in text.split()]
    words = [word for word in words if word]
    meaningful = [w for w in words if not (len(w) == 1 and w[0] in STOPWORDS)]
    chosen: list[Phrase] = []
    for word in meaningful or words:
        if word not in chosen:
            chosen.append(word)
    terms = []
    for phrase in chosen[:MAX_TERMS]:
        variants = english_variants(phrase[0]) if morphology and len(phrase) == 1 else ()
        terms.append(QueryTerm(phrase, tuple((variant,) for variant in variants)))
    phrases: list[Phrase] = []
    for term in terms:
        phrases += [p for p in term.alternatives if p not in phrases]
    whole = tuple(token for word in words for token in word)[:MAX_PHRASE_TOKENS]
    if len(words) >= 2 and whole not in phrases:
        phrases.append(whole)
    return QueryPlan(text=text, terms=tuple(terms), match=MatchQuery(tuple(phrases)))
