"""From a model's free-text query to a `QueryPlan`.

The grammar, one for both tools, the CLI and the README's "Query syntax" (anything
else is words, never an error):

- `"exact phrase"` (straight or typographic quotes): the words next to each other, in
  this order (each as the index analyses it: with stemming, `"cookie sessions"` finds
  "cookie session"). A message holding the exact words gets the exact-phrase bonus.
- `prefix*`: every word that begins with the prefix (one word of at least
  `MIN_PREFIX_CHARS` characters), expanded from the app's own vocabulary
  (`QueryPlan.prefixes`, `with_vocabulary`) to at most `MAX_PREFIX_TERMS` terms.
- `-word`, `-"a phrase"`, `-prefix*`: leave out the messages that hold it. A word that
  starts with two dashes (`--force`) is a plain word.
- Plain words: a message holding any of them is found; holding more ranks higher.

Plain words:

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
  one more OR phrase: as an OR phrase it changed no result of the evaluation, but made
  FTS5 read the position lists of every document holding all the words and turned off
  tantivy's top-k pruning (the figures: docs/results.md).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence

import attrs

from chat_recall.domain.model import AppId
from chat_recall.domain.query import MatchQuery, Phrase, TermCount, VocabularyProbe
from chat_recall.domain.text import index_text, tokenize
from chat_recall.domain.text.analysis import DEFAULT_ANALYSIS, TextAnalysis
from chat_recall.domain.text.segment import Script, script_runs

MAX_TERMS = 12
MAX_PHRASE_TOKENS = 16
# At most this many words cut into parts (unspaced scripts) get the exact-phrase bonus.
MAX_EXACT_PHRASES = 4
MAX_WORD_CHARS = 64
# `prefix*` needs this many characters: shorter prefixes match too much to mean much.
MIN_PREFIX_CHARS = 3
# A prefix stands for at most this many terms of the vocabulary, the most common ones:
# each is one more OR term of the search.
MAX_PREFIX_TERMS = 16
# How many of a prefix's terms a vocabulary scan reads at most (bounded work).
PREFIX_SCAN_LIMIT = 4_096

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
    return word.strip(".,;:!?\"'()[]{}<>«»“”‘’`*")[:MAX_WORD_CHARS] or word[:MAX_WORD_CHARS]


class TermKind(enum.Enum):
    """How a query term was written."""

    WORD = "word"  # plain: a word (the phrase of its tokens)
    PHRASE = "phrase"  # "in quotes": its words next to each other, in order
    PREFIX = "prefix"  # prefix*: the vocabulary's terms that begin with it


@attrs.frozen
class QueryTerm:
    """One query word: the phrase of its tokens, the terms the index scores for it (the
    analysis of each token), and the word as the query wrote it (for the output). A
    prefix's terms are those of the vocabulary it covers (`QueryPlan.with_vocabulary`),
    none before."""

    phrase: Phrase
    terms: Phrase
    word: str = ""
    kind: TermKind = TermKind.WORD

    @property
    def key(self) -> str:
        """What a document that holds this term adds to its found terms: its one term,
        or for a quoted phrase of several the phrase's terms joined by spaces (a space
        never occurs in a term, so the key is no term of its own)."""
        return " ".join(self.terms)

    def held(self, found: frozenset[str]) -> bool:
        """Whether `found` (terms, and keys of phrases held) holds this query term."""
        if self.kind is TermKind.PREFIX:
            return not found.isdisjoint(self.terms)
        if self.kind is TermKind.PHRASE:
            return self.key in found
        return all(term in found for term in self.terms)


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
    # Each word of an unspaced script that was cut into parts (`_segmented`), whole:
    # the exact-phrase bonus looks for these too.
    cut_words: tuple[Phrase, ...] = ()
    # `-prefix*`: prefixes whose terms are left out (expanded with the others).
    excluded_prefixes: tuple[str, ...] = ()

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

    @property
    def prefixes(self) -> tuple[str, ...]:
        """Every prefix to look up in the vocabulary (`with_vocabulary`), in order."""
        written = (t.phrase[0] for t in self.terms if t.kind is TermKind.PREFIX)
        return tuple(dict.fromkeys((*written, *self.excluded_prefixes)))

    @property
    def quoted(self) -> tuple[QueryTerm, ...]:
        """The quoted phrases of several words (whose keys `phrases_held` reports)."""
        return tuple(t for t in self.terms if t.kind is TermKind.PHRASE and len(t.terms) > 1)

    def matched(self, found: frozenset[str]) -> tuple[QueryTerm, ...]:
        """The query terms `found` holds (see `QueryTerm.held`)."""
        return tuple(term for term in self.terms if term.held(found))

    def phrases_held(self, *texts: str) -> frozenset[str]:
        """The keys of the quoted phrases one of the index texts holds, as the index
        matched them (term by term, in order, next to each other)."""
        if not self.quoted:
            return frozenset()
        held = set()
        analysed = [tuple(self.analysis.terms(text)) for text in texts]
        for term in self.quoted:
            if any(_holds_run(terms, term.terms) for terms in analysed):
                held.add(term.key)
        return frozenset(held)

    def with_vocabulary(self, found: Mapping[str, Sequence[TermCount]]) -> QueryPlan:
        """The plan with each prefix expanded to the vocabulary's terms it covers
        (`found`: prefix -> what `IndexStore.vocabulary` returned for it): the most
        common `MAX_PREFIX_TERMS`, then in term order. A prefix that covers nothing
        matches nothing."""
        expanded = {
            prefix: expansions(prefix, found.get(prefix, ()), self.analysis)
            for prefix in self.prefixes
        }
        terms = tuple(
            attrs.evolve(term, terms=expanded[term.phrase[0]])
            if term.kind is TermKind.PREFIX
            else term
            for term in self.terms
        )
        match = attrs.evolve(
            self.match,
            terms=tuple(
                dict.fromkeys(
                    t for term in terms for t in term.terms if term.kind is TermKind.PREFIX
                )
            ),
            excluded_terms=tuple(
                dict.fromkeys(t for prefix in self.excluded_prefixes for t in expanded[prefix])
            ),
        )
        return attrs.evolve(self, terms=terms, match=match)


def vocabulary_probes(plan: QueryPlan, app_id: AppId) -> dict[str, VocabularyProbe]:
    """For each prefix of the plan, what to ask the app's vocabulary: the terms that
    begin with it, and the shorter stems the analysis may give its words."""
    return {
        prefix: VocabularyProbe(
            app_id, plan.analysis.prefix_forms(prefix), prefix, PREFIX_SCAN_LIMIT
        )
        for prefix in plan.prefixes
    }


def expansions(prefix: str, found: Sequence[TermCount], analysis: TextAnalysis) -> Phrase:
    """The terms `prefix*` stands for: of those the vocabulary returned, the ones the
    analysis says a word beginning with the prefix may have (`covers_prefix`), the
    most common `MAX_PREFIX_TERMS` (ties by term), in term order."""
    covered = [t for t in found if t.documents > 0 and analysis.covers_prefix(prefix, t.term)]
    best = sorted(covered, key=lambda t: (-t.documents, t.term))[:MAX_PREFIX_TERMS]
    return tuple(sorted(t.term for t in best))


def _holds_run(terms: tuple[str, ...], run: tuple[str, ...]) -> bool:
    width = len(run)
    first = run[0]
    return any(
        term == first and terms[start : start + width] == run for start, term in enumerate(terms)
    )


@attrs.frozen
class _Part:
    """A query word, or one word of an unbroken run of an unspaced script."""

    phrase: Phrase
    word: str
    weak: bool = False  # a stopword (or Japanese particles): dropped if others remain
    kind: TermKind = TermKind.WORD


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


# A quoted phrase, perhaps excluded (`-"..."`), or else a run of non-space characters.
# Quotes pair up straight with straight and typographic with typographic; an unpaired
# quote is no syntax (the word holding it is a plain word).
_ITEM = re.compile(r'(-?)(?:"([^"]*)"|\u201c([^\u201c\u201d]*)\u201d)|(\S+)')


@attrs.frozen
class _Item:
    """One item of the query's grammar, before words become terms."""

    text: str
    kind: TermKind
    excluded: bool = False


def _items(text: str) -> list[_Item]:
    """The query cut into quoted phrases, prefixes, excluded items and plain words."""
    items = []
    for found in _ITEM.finditer(text):
        negated, straight, typographic, word = found.groups()
        if word is None:
            quoted = straight if straight is not None else typographic
            items.append(_Item(quoted, TermKind.PHRASE, bool(negated)))
            continue
        excluded = word.startswith("-") and not word.startswith("--") and len(word) > 1
        if excluded:
            word = word[1:]
        stem = word.rstrip("*")
        tokens = tokenize(index_text(stem)) if stem != word else []
        if len(tokens) == 1 and len(tokens[0]) >= MIN_PREFIX_CHARS:
            items.append(_Item(tokens[0], TermKind.PREFIX, excluded))
        else:
            items.append(_Item(word, TermKind.WORD, excluded))
    return items


def build_query(
    text: str,
    analysis: TextAnalysis = DEFAULT_ANALYSIS,
    *,
    clitics: bool = True,
    question_words: bool = True,
    segment_unspaced: bool = True,
) -> QueryPlan:
    items = _items(text)
    ignored = STOPWORDS | QUESTION_WORDS if question_words else STOPWORDS
    parts: list[_Part] = []
    cut_words: list[Phrase] = []  # words cut into several parts: each also matched whole
    original: list[Phrase] = []  # the tokens of every word looked for, in order
    excluded: list[Phrase] = []
    excluded_prefixes: list[str] = []
    for item in items:
        if item.kind is TermKind.PREFIX:
            if item.excluded:
                excluded_prefixes.append(item.text)
            else:
                parts.append(_Part((item.text,), f"{item.text}*", kind=TermKind.PREFIX))
            continue
        tokens = tuple(tokenize(index_text(item.text)))
        if not tokens:
            continue
        if item.excluded:
            excluded.append(tokens[:MAX_PHRASE_TOKENS])
            continue
        original.append(tokens)
        if item.kind is TermKind.PHRASE:
            parts.append(_Part(tokens[:MAX_PHRASE_TOKENS], _quoted(item.text), kind=item.kind))
            continue
        word = _without_clitic(item.text) if clitics else item.text
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
        analysed = () if part.kind is TermKind.PREFIX else analysis.phrase(part.phrase)
        term = QueryTerm(part.phrase, analysed, part.word, part.kind)
        if all(_same(term) != _same(kept) for kept in terms):
            terms.append(term)
    terms = terms[:MAX_TERMS]
    match = tuple(term.phrase for term in terms if term.kind is not TermKind.PREFIX)
    whole = tuple(token for word in original for token in word)[:MAX_PHRASE_TOKENS]
    exact = len(parts) >= 2 and all(analysis.phrase(whole) != analysis.phrase(p) for p in match)
    cut = tuple(
        phrase
        for phrase in dict.fromkeys(cut_words)
        if phrase != whole and all(analysis.phrase(phrase) != analysis.phrase(p) for p in match)
    )[:MAX_EXACT_PHRASES]
    return QueryPlan(
        text,
        tuple(terms),
        MatchQuery(match, excluded=tuple(excluded)),
        analysis,
        whole if exact else (),
        cut,
        tuple(dict.fromkeys(excluded_prefixes)),
    )


def _same(term: QueryTerm) -> tuple[bool, Phrase]:
    """What makes two query terms one: the same terms, or the same prefix."""
    prefix = term.kind is TermKind.PREFIX
    return prefix, term.phrase if prefix else term.terms


def _quoted(text: str) -> str:
    """A quoted phrase as the output names it."""
    return f'"{" ".join(text.split())[:MAX_WORD_CHARS]}"'
