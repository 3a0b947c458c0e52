"""From a model's free-text query to a `QueryPlan`.

- Words are split on whitespace; each word becomes the phrase of its index tokens (the
  same tokenisation the index uses), so `login.ts`, `user_id` and `v2.1` match as
  phrases of their parts and a Japanese word matches as the phrase of its characters.
- The index's `TextAnalysis` decides what counts as the same term: with stemming a word
  and its inflections are one term (`meet`, `meets`, `meeting`), scored once by the
  index; two query words with the same terms are one query term.
- Possessives and clitics (with `clitics`): `Caroline's`, `Caroline’s` -> `caroline`;
  `don't`, `we'll`, `it's` -> `do`, `we`, `it` (which are then stopwords). Otherwise
  `Caroline's` would be the phrase `caroline s`, which a message saying `Caroline` does
  not hold.
- Stopwords are dropped only when other terms remain: a non-empty query never becomes
  an empty search by accident. With `question_words`, the words that frame a question or
  a request (`please`, `tell`, `remember`, `happened`, ...) are stopwords too: they
  dilute a full question and match the messages that restate it. A query with no token
  at all (punctuation only) is empty and the index is not touched.
- Terms are de-duplicated and capped at MAX_TERMS. With two or more words the whole
  normalised query is the plan's `phrase`: the design's exact-phrase bonus is applied to
  the window's matches that hold it (`evidence.rank_matches`), not sent to the index as
  one more OR phrase. As an OR phrase it never changed a result of the evaluation (334
  queries, both halves, both engines: every metric identical) but made FTS5 read the
  position lists of every document holding all the words (+15-40% per multi-word query
  at 1M messages) and turned off tantivy's top-k pruning (12.9 vs 1.3 ms for `can you
  fix`).
"""

from __future__ import annotations

import re

import attrs

from chat_recall.domain.query import MatchQuery, Phrase
from chat_recall.domain.text import index_text, tokenize
from chat_recall.domain.text.analysis import DEFAULT_ANALYSIS, TextAnalysis

MAX_TERMS = 12
MAX_PHRASE_TOKENS = 16
MAX_WORD_CHARS = 64

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

# Words that frame a question or a request rather than name its subject.
QUESTION_WORDS = frozenset(
    """
    please pls thanks thank tell remind remember recall know explain describe summarise
    summarize happen happened happens ever anything everything something again still
    actually really exactly hey hi ok okay
    """.split()
)

# The endings an apostrophe attaches to a word: the possessive and the contractions.
CLITICS = frozenset({"s", "t", "ll", "re", "ve", "d", "m"})
# `n't` contractions whose base is not the word before the apostrophe minus its `n`.
_NOT_CONTRACTIONS = {"can": "can", "won": "will", "shan": "shall", "ain": "is"}
_APOSTROPHES = re.compile("['\u2019\u02bc\uff07\u2018`]")


def _without_clitic(word: str) -> str:
    """`Caroline's` -> `Caroline`, `don't` -> `do`, `we'll` -> `we`; other words (and
    names like `O'Brien`) unchanged."""
    parts = _APOSTROPHES.split(word)
    if len(parts) < 2 or not parts[-2] or parts[-1].lower() not in CLITICS:
        return word
    base = "".join(parts[:-2]) + parts[-2] if len(parts) > 2 else parts[-2]
    if parts[-1].lower() == "t" and base.lower().endswith("n"):
        base = _NOT_CONTRACTIONS.get(base.lower(), base[:-1])
    return base


def _display(word: str) -> str:
    """A query word as the output names it: without the punctuation around it."""
    return word.strip(".,;:!?\"'()[]{}<>«»“”‘’`")[:MAX_WORD_CHARS] or word[:MAX_WORD_CHARS]


@attrs.frozen
class QueryTerm:
    """One query word: the phrase of its tokens, the terms the index scores for it (the
    analysis of each token), and the word as the query wrote it (for the output)."""

    phrase: Phrase
    terms: Phrase
    word: str = ""


@attrs.frozen
class QueryPlan:
    """What the domain asks of the index, and what ranking and excerpts need to know."""

    text: str
    terms: tuple[QueryTerm, ...]
    match: MatchQuery
    analysis: TextAnalysis = DEFAULT_ANALYSIS
    # The whole normalised query (index tokens) when it has two or more words and is not
    # one of the terms: what the exact-phrase bonus looks for.
    phrase: Phrase = ()

    @property
    def is_empty(self) -> bool:
        return self.match.is_empty

    @property
    def wanted(self) -> frozenset[str]:
        """Every term of every query word: what excerpts look for."""
        return frozenset(term for query_term in self.terms for term in query_term.terms)

    def matched(self, found: frozenset[str]) -> tuple[QueryTerm, ...]:
        """The query terms all of whose terms are among `found`."""
        return tuple(term for term in self.terms if all(t in found for t in term.terms))


def build_query(
    text: str,
    analysis: TextAnalysis = DEFAULT_ANALYSIS,
    *,
    clitics: bool = True,
    question_words: bool = True,
) -> QueryPlan:
    raw_words = text.split()
    words = [_without_clitic(word) for word in raw_words] if clitics else raw_words
    found = [
        (tuple(tokenize(index_text(word)))[:MAX_PHRASE_TOKENS], _display(word)) for word in words
    ]
    found = [(phrase, word) for phrase, word in found if phrase]
    phrases = [phrase for phrase, _ in found]
    ignored = STOPWORDS | QUESTION_WORDS if question_words else STOPWORDS
    meaningful = [(p, w) for p, w in found if not (len(p) == 1 and p[0] in ignored)]
    terms: list[QueryTerm] = []
    for phrase, word in meaningful or found:
        term = QueryTerm(phrase, analysis.phrase(phrase), word)
        if all(term.terms != kept.terms for kept in terms):
            terms.append(term)
    terms = terms[:MAX_TERMS]
    match = tuple(term.phrase for term in terms)
    original = [tuple(tokenize(index_text(word))) for word in raw_words]
    whole = tuple(token for word in original for token in word)[:MAX_PHRASE_TOKENS]
    exact = len(phrases) >= 2 and all(analysis.phrase(whole) != analysis.phrase(p) for p in match)
    return QueryPlan(text, tuple(terms), MatchQuery(match), analysis, whole if exact else ())
