"""From a model's free-text query to a `QueryPlan`.

- Words are split on whitespace; each word becomes the phrase of its index tokens (the
  same tokenisation the index uses), so `login.ts`, `user_id` and `v2.1` match as
  phrases of their parts and a Japanese word matches as the phrase of its characters.
- A word that is an unbroken run of Japanese or Chinese (a question written without
  spaces) is cut into words (`_segmented`): at script changes, katakana runs whole,
  ideograph runs as overlapping pairs, hiragana weak like a stopword; the word whole
  gets the exact-phrase bonus. As one long phrase it would match almost nothing.
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
from chat_recall.domain.text.segment import Script, script_runs

MAX_TERMS = 12
MAX_PHRASE_TOKENS = 16
# At most this many words cut into parts (unspaced scripts) get the exact-phrase bonus.
MAX_EXACT_PHRASES = 4
MAX_WORD_CHARS = 64

STOPWORDS = frozenset(
    """
    a about above after again all also am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each
    few for from further had has have having he her here hers him his how i if in into
    is it its itself just me more most my no nor not now of off on once only or other
    our ours out over own same she should so some such than that the their theirs them
    then there these they this those through to too under until up us very was we were what
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
    # Each word of an unspaced script that was cut into parts (`_segmented`), whole: the
    # exact-phrase bonus looks for these too.
    cut_words: tuple[Phrase, ...] = ()

    @property
    def exact_phrases(self) -> tuple[Phrase, ...]:
        """What the exact-phrase bonus looks for."""
        return ((self.phrase,) if self.phrase else ()) + self.cut_words

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


@attrs.frozen
class _Part:
    """A query word, or one word of an unbroken run of an unspaced script."""

    phrase: Phrase
    word: str
    weak: bool = False  # a stopword (or Japanese particles): dropped if others remain


def _segmented(tokens: tuple[str, ...], word: str) -> list[_Part] | None:
    """The words of an unbroken run of an unspaced script (Japanese or Chinese written
    without spaces, as a question often is), or None when `tokens` are one word.

    Cut where the script changes (kanji, hiragana, katakana, anything else); a run of
    katakana is one word (a loanword or a name); a run of ideographs longer than two is
    its overlapping pairs (the usual CJK bigrams: most words are two ideographs, and a
    pair inside a longer word still matches it); a run of hiragana is mostly particles
    and inflections, weak like a stopword."""
    runs = script_runs(tokens)
    if len(runs) == 1 and not (runs[0][0] is Script.HAN and len(tokens) > 2):
        return None
    parts: list[_Part] = []
    for script, run in runs:
        if script is Script.HAN and len(run) > 2:
            parts.extend(
                _Part(run[i : i + 2], "".join(run[i : i + 2])) for i in range(len(run) - 1)
            )
        elif script is Script.SPACED:
            parts.append(
                _Part(run[:MAX_PHRASE_TOKENS], _display(word) if len(runs) == 1 else " ".join(run))
            )
        else:
            parts.append(_Part(run[:MAX_PHRASE_TOKENS], "".join(run), script is Script.HIRAGANA))
    return parts


def build_query(
    text: str,
    analysis: TextAnalysis = DEFAULT_ANALYSIS,
    *,
    clitics: bool = True,
    question_words: bool = True,
    segment_unspaced: bool = True,
) -> QueryPlan:
    raw_words = text.split()
    words = [_without_clitic(word) for word in raw_words] if clitics else raw_words
    ignored = STOPWORDS | QUESTION_WORDS if question_words else STOPWORDS
    parts: list[_Part] = []
    cut_words: list[Phrase] = []  # words cut into several parts: each also matched whole
    for word in words:
        tokens = tuple(tokenize(index_text(word)))
        if not tokens:
            continue
        segmented = _segmented(tokens, word) if segment_unspaced else None
        if segmented is None:
            phrase = tokens[:MAX_PHRASE_TOKENS]
            parts.append(_Part(phrase, _display(word), len(phrase) == 1 and phrase[0] in ignored))
        else:
            parts.extend(segmented)
            cut_words.append(tokens[:MAX_PHRASE_TOKENS])
    meaningful = [part for part in parts if not part.weak]
    terms: list[QueryTerm] = []
    for part in meaningful or parts:
        term = QueryTerm(part.phrase, analysis.phrase(part.phrase), part.word)
        if all(term.terms != kept.terms for kept in terms):
            terms.append(term)
    terms = terms[:MAX_TERMS]
    match = tuple(term.phrase for term in terms)
    original = [tuple(tokenize(index_text(word))) for word in raw_words]
    whole = tuple(token for word in original for token in word)[:MAX_PHRASE_TOKENS]
    exact = len(parts) >= 2 and all(analysis.phrase(whole) != analysis.phrase(p) for p in match)
    cut = tuple(
        phrase
        for phrase in dict.fromkeys(cut_words)
        if phrase != whole and all(analysis.phrase(phrase) != analysis.phrase(p) for p in match)
    )[:MAX_EXACT_PHRASES]
    return QueryPlan(text, tuple(terms), MatchQuery(match), analysis, whole if exact else (), cut)
