"""How index text becomes the terms an index scores.

Tokens are always FTS5's `unicode61 remove_diacritics 2` tokens (`tokenize`). With
stemming (the default, English) each token becomes its Porter stem exactly as FTS5's
`porter` tokenizer makes it (`porter_stem`), so a word and its inflections are one term
with one document frequency: `go`, `goes` and `going` count once, and a rare word is not
outweighed by the several forms of a common one. Without stemming (`plain`) a term is
the token itself: the design's plain algorithm.

For the other languages (`Language`) each token becomes its Snowball stem (the
`Stemmer` port), computed by chat-recall before the text reaches an engine: SQLite's
Python cannot give FTS5 a tokenizer of its own, so the FTS5 engine indexes the stems
written out as text (`written_text`) under plain `unicode61`, which gives them back as
they are. `written` is that first stage, `engine_term` what the engine's own tokenizer
does to what it is given (Porter, or nothing), and a term is the one after the other.

An index store declares the analysis it applies (to the documents it indexes and to the
phrases of a query alike); search uses the same analysis to tell which query terms a
document holds.
"""

from __future__ import annotations

import enum
import functools
import re

import attrs

from chat_recall.domain.text.language import Language, Stemmer
from chat_recall.domain.text.porter import porter_stem
from chat_recall.domain.text.unicode61 import (
    DROPPED,
    find_tokens,
    same_length_fold,
    token_run_character,
    tokenize,
)


class Stemming(enum.Enum):
    NONE = "unicode61"
    PORTER = "porter"


@functools.lru_cache(maxsize=256)
def _candidate_pattern(prefixes: tuple[str, ...], run: str) -> re.Pattern[str]:
    """Whole token runs (in same-length folded text; `run` is the class of their
    characters) whose token begins with one of `prefixes`; characters dropped by
    folding may stand anywhere in the run."""
    gap = f"{re.escape(DROPPED)}*"
    alternatives = "|".join(
        gap + gap.join(re.escape(character) for character in prefix)
        for prefix in sorted(prefixes, key=len, reverse=True)
    )
    return re.compile(f"(?<!{run})(?:{alternatives}){run}*")


@functools.lru_cache(maxsize=8)
def _token_run_pattern(run: str) -> re.Pattern[str]:
    """Every whole token run (in same-length folded text)."""
    return re.compile(f"{run}+")


# Endings that Porter removes whole, to find a token that stems to a given stem
# (`TextAnalysis.token_for`); tests/domain/test_query_grammar.py holds them against every
# stem of the evaluation set's vocabulary.
STEM_ENDINGS = ("e", "s", "es", "ed", "ing", "y", "al", "ion", "ate", "ive", "ize", "ous")
# A stem shorter than a prefix that begins with it counts for `prefix*` within this
# many characters (`authenticat*` -> `authent`), and from this length on: shorter
# stems (`auth` for `authenticat*`) are other words more often than not.
PREFIX_STEM_SLACK = 4
MIN_PREFIX_STEM = 4


# Snowball stems remembered per stemmer, at most this many tokens each (then forgotten
# at once): a history's vocabulary repeats, and a stem is needed for every token of
# every document written, inside the write's transaction for FTS5 (`written_text`).
STEM_CACHE_SIZE = 200_000


class _Written(dict[str, str]):
    """token -> its stem as an index writes it: the stemmer's, when that is one whole
    token of its own (so an engine that tokenizes the written text gets it back as it
    is), else the token itself. The stemmers give such stems for folded tokens; the
    check keeps an odd one from splitting into two terms."""

    def __init__(self, stemmer: Stemmer) -> None:
        super().__init__()
        self.stemmer = stemmer

    def __missing__(self, token: str) -> str:
        if len(self) >= STEM_CACHE_SIZE:
            self.clear()
        stem = self.stemmer.stem(token)
        if stem != token and not (stem and tokenize(stem) == [stem]):
            stem = token
        self[token] = stem
        return stem


_WRITTEN: dict[Stemmer, _Written] = {}


def _written(stemmer: Stemmer) -> _Written:
    found = _WRITTEN.get(stemmer)
    return found if found is not None else _WRITTEN.setdefault(stemmer, _Written(stemmer))


@attrs.frozen
class TextAnalysis:
    """Tokens, then (by default) their Porter stems: see the module docstring.

    `stemming` is what the engine's own tokenizer applies (FTS5's `porter`, or none);
    `stemmer`, when there is one, stems every token before the engine sees it."""

    stemming: Stemming = Stemming.PORTER
    stemmer: Stemmer | None = None

    @classmethod
    def default(cls) -> TextAnalysis:
        return cls(Stemming.PORTER)

    @classmethod
    def plain(cls) -> TextAnalysis:
        return cls(Stemming.NONE)

    @classmethod
    def snowball(cls, stemmer: Stemmer) -> TextAnalysis:
        """A language's Snowball stems, and nothing else: an engine indexes them under
        plain `unicode61` (ARCHITECTURE.md, "Decisions and their reasons", Languages, says
        why not Porter on top)."""
        return cls(Stemming.NONE, stemmer)

    @classmethod
    def of(cls, language: Language, stemmer: Stemmer | None = None) -> TextAnalysis:
        """The analysis of a language; a Snowball language needs its `stemmer`."""
        if language is Language.NONE:
            return cls.plain()
        if language is Language.ENGLISH:
            return cls.default()
        if stemmer is None or stemmer.language is not language:
            raise ValueError(f"the {language.value} analysis needs a {language.value} stemmer")
        return cls.snowball(stemmer)

    @property
    def language(self) -> Language:
        if self.stemmer is not None:
            return self.stemmer.language
        return Language.ENGLISH if self.stemming is Stemming.PORTER else Language.NONE

    @property
    def name(self) -> str:
        """What an index records to tell which analysis built it (`language_of_name`
        reads the language back)."""
        if self.stemmer is None:
            return self.stemming.value
        name = f"{SNOWBALL_NAME} {self.stemmer.language.value} {self.stemmer.version}"
        return name if self.stemming is Stemming.NONE else f"{name} {self.stemming.value}"

    @property
    def writes_stems(self) -> bool:
        """Whether terms are made before the engine sees the text: an engine that
        tokenizes text itself (FTS5) is given `written_text`, not the text."""
        return self.stemmer is not None

    @property
    def stems(self) -> bool:
        """Whether a term can differ from its token."""
        return self.stemmer is not None or self.stemming is Stemming.PORTER

    def written(self, token: str) -> str:
        """A (folded) token as chat-recall writes it for the engine: its Snowball stem,
        or the token itself without a stemmer."""
        if self.stemmer is None:
            return token
        return _written(self.stemmer)[token]

    def written_text(self, text: str) -> str:
        """An index text as an engine that tokenizes it itself is given it: its tokens
        as `written`, one space apart (the engine's tokens, one for one)."""
        if self.stemmer is None:
            return " ".join(tokenize(text))
        return " ".join(map(_written(self.stemmer).__getitem__, tokenize(text)))

    def written_phrase(self, tokens: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(self.written(token) for token in tokens)

    def engine_term(self, written: str) -> str:
        """What the engine's own tokenizer makes of a written token."""
        return porter_stem(written) if self.stemming is Stemming.PORTER else written

    def term(self, token: str) -> str:
        """The term a (folded) token counts as."""
        return self.engine_term(self.written(token))

    def terms(self, text: str) -> list[str]:
        """The terms of an index text, in order."""
        tokens = tokenize(text)
        if self.stemmer is not None:
            tokens = list(map(_written(self.stemmer).__getitem__, tokens))
        if self.stemming is Stemming.NONE:
            return tokens
        return [porter_stem(token) for token in tokens]

    def phrase(self, tokens: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(self.term(token) for token in tokens)

    def token_for(self, term: str) -> str | None:
        """What to give the engine for a term of its vocabulary, for an engine that
        analyses what it is given (FTS5's `porter` tokenizer stems every query token)
        and is to match that term as it is: a written token whose `engine_term` is
        `term`. The term itself where the engine keeps it (most stems; every term when
        the engine does not stem), else the term with the first of `STEM_ENDINGS` that
        stems back to it (Porter does not keep every stem: `databas` becomes `databa`,
        `database` gives `databas`); None when none does."""
        if self.engine_term(term) == term:
            return term
        for ending in STEM_ENDINGS:
            if self.engine_term(term + ending) == term:
                return term + ending
        return None

    def covers_prefix(self, prefix: str, term: str) -> bool:
        """Whether a word that begins with `prefix` (a folded token) may have `term` as
        its term: `prefix*` matches the documents holding any such term.

        Without stemming: the term begins with the prefix. With stems, a word's stem
        may also be shorter than the prefix the word begins with (`authenticat*` ->
        `authent`, the Porter stem of `authentication`; `rechnunge*` -> `rechnung`), or
        end in `i` for its `y` (`deploy*` -> `deploi`, the Porter stem of `deploy`):
        such a stem counts when the prefix begins with it (at most `PREFIX_STEM_SLACK`
        characters shorter, and `MIN_PREFIX_STEM` long), or is the prefix's own stem."""
        if term.startswith(prefix):
            return True
        if not self.stems:
            return False
        if term == self.term(prefix):
            return True
        if len(term) < MIN_PREFIX_STEM or len(term) < len(prefix) - PREFIX_STEM_SLACK:
            return False
        if prefix.startswith(term):
            return True
        return term.endswith("i") and prefix.startswith(term[:-1]) and prefix[len(term) - 1] == "y"

    def prefix_forms(self, prefix: str) -> tuple[str, ...]:
        """The terms shorter than `prefix` that `covers_prefix` may accept: looked up
        one by one, beside the scan of the terms that begin with the prefix."""
        if not self.stems:
            return ()
        forms = {self.term(prefix)}
        for size in range(max(MIN_PREFIX_STEM, len(prefix) - PREFIX_STEM_SLACK), len(prefix)):
            forms.add(prefix[:size])
            if prefix[size - 1] == "y":
                forms.add(prefix[: size - 1] + "i")
        return tuple(sorted(form for form in forms if self.covers_prefix(prefix, form)))

    def find_terms(self, text: str, terms: frozenset[str]) -> list[tuple[int, int, str]]:
        """(start, end, term) of every token of `text` whose term is one of `terms`.

        Without stemming a term is its token: one regular-expression scan. With Porter
        stemming every word whose stem is S begins with S minus its last character (the
        algorithm only removes endings, or rewrites the last one), so one scan finds the
        tokens that begin with such a prefix and each candidate is stemmed to check it
        (`tests/test_porter_parity.py` holds this against every token of a text). A
        Snowball stem may rewrite more than the last character (German `ß` -> `ss`), so
        with a stemmer every token is stemmed and checked."""
        if not self.stems:
            return find_tokens(text, terms)
        if not terms:
            return []
        run = token_run_character(text)
        if self.stemmer is not None:
            pattern = _token_run_pattern(run)
        else:
            prefixes = tuple(sorted({term[:-1] if len(term) > 1 else term for term in terms}))
            pattern = _candidate_pattern(prefixes, run)
        folded = same_length_fold(text)
        found = []
        for match in pattern.finditer(folded):
            token = match.group().replace(DROPPED, "")
            if not token:
                continue
            term = self.term(token)
            if term in terms:
                found.append((match.start(), match.end(), term))
        return found


# The first word of a Snowball analysis's name (`TextAnalysis.name`).
SNOWBALL_NAME = "snowball"


def language_of_name(name: str) -> Language | None:
    """The language of an analysis by its recorded name (`TextAnalysis.name`); None for
    a name this release does not know."""
    words = name.split()
    if words == [Stemming.PORTER.value]:
        return Language.ENGLISH
    if words == [Stemming.NONE.value]:
        return Language.NONE
    if len(words) >= 3 and words[0] == SNOWBALL_NAME:
        try:
            return Language(words[1])
        except ValueError:
            return None
    return None


DEFAULT_ANALYSIS = TextAnalysis.default()
