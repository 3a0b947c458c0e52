"""How index text becomes the terms an index scores.

Tokens are always FTS5's `unicode61 remove_diacritics 2` tokens (`tokenize`). With
stemming (the default) each token becomes its Porter stem exactly as FTS5's `porter`
tokenizer makes it (`porter_stem`), so a word and its inflections are one term with one
document frequency: `go`, `goes` and `going` count once, and a rare word is not
outweighed by the several forms of a common one. Without stemming (`plain`) a term is
the token itself: the design's plain algorithm.

An index store declares the analysis it applies (to the documents it indexes and to the
phrases of a query alike); search uses the same analysis to tell which query terms a
document holds.
"""

from __future__ import annotations

import enum
import functools
import re

import attrs

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


# Endings that Porter removes whole, to find a token that stems to a given stem
# (`TextAnalysis.token_for`); tests/domain/test_query_grammar.py holds them against every
# stem of the evaluation set's vocabulary.
STEM_ENDINGS = ("e", "s", "es", "ed", "ing", "y", "al", "ion", "ate", "ive", "ize", "ous")
# A stem shorter than a prefix that begins with it counts for `prefix*` within this
# many characters (`authenticat*` -> `authent`), and from this length on: shorter
# stems (`auth` for `authenticat*`) are other words more often than not.
PREFIX_STEM_SLACK = 4
MIN_PREFIX_STEM = 4


@attrs.frozen
class TextAnalysis:
    """Tokens, then (by default) their Porter stems: see the module docstring."""

    stemming: Stemming = Stemming.PORTER

    @classmethod
    def default(cls) -> TextAnalysis:
        return cls(Stemming.PORTER)

    @classmethod
    def plain(cls) -> TextAnalysis:
        return cls(Stemming.NONE)

    @property
    def name(self) -> str:
        """What an index records to tell which analysis built it."""
        return self.stemming.value

    def term(self, token: str) -> str:
        """The term a (folded) token counts as."""
        return porter_stem(token) if self.stemming is Stemming.PORTER else token

    def terms(self, text: str) -> list[str]:
        """The terms of an index text, in order."""
        tokens = tokenize(text)
        if self.stemming is Stemming.NONE:
            return tokens
        return [porter_stem(token) for token in tokens]

    def phrase(self, tokens: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(self.term(token) for token in tokens)

    def token_for(self, term: str) -> str | None:
        """A token whose term is `term`: for an engine that analyses every token of a
        query (FTS5's `porter` tokenizer stems what it is given) and is to match a term
        of its vocabulary as it is. The term itself where the analysis keeps it (most
        stems), else the term with the first of `STEM_ENDINGS` that stems back to it
        (Porter does not keep every stem: `databas` becomes `databa`, `database` gives
        `databas`); None when none does."""
        if self.term(term) == term:
            return term
        for ending in STEM_ENDINGS:
            if self.term(term + ending) == term:
                return term + ending
        return None

    def covers_prefix(self, prefix: str, term: str) -> bool:
        """Whether a word that begins with `prefix` (a folded token) may have `term` as
        its term: `prefix*` matches the documents holding any such term.

        Without stemming: the term begins with the prefix. With Porter stems, a word's
        stem may also be shorter than the prefix the word begins with (`authenticat*`
        -> `authent`, the stem of `authentication`), or end in `i` for its `y`
        (`deploy*` -> `deploi`, the stem of `deploy`): such a stem counts when the
        prefix begins with it (at most `PREFIX_STEM_SLACK` characters shorter, and
        `MIN_PREFIX_STEM` long), or is the prefix's own stem."""
        if term.startswith(prefix):
            return True
        if self.stemming is Stemming.NONE:
            return False
        if term == porter_stem(prefix):
            return True
        if len(term) < MIN_PREFIX_STEM or len(term) < len(prefix) - PREFIX_STEM_SLACK:
            return False
        if prefix.startswith(term):
            return True
        return term.endswith("i") and prefix.startswith(term[:-1]) and prefix[len(term) - 1] == "y"

    def prefix_forms(self, prefix: str) -> tuple[str, ...]:
        """The terms shorter than `prefix` that `covers_prefix` may accept: looked up
        one by one, beside the scan of the terms that begin with the prefix."""
        if self.stemming is Stemming.NONE:
            return ()
        forms = {porter_stem(prefix)}
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
        (`tests/test_porter_parity.py` holds this against every token of a text)."""
        if self.stemming is Stemming.NONE:
            return find_tokens(text, terms)
        if not terms:
            return []
        prefixes = tuple(sorted({term[:-1] if len(term) > 1 else term for term in terms}))
        folded = same_length_fold(text)
        found = []
        for match in _candidate_pattern(prefixes, token_run_character(text)).finditer(folded):
            token = match.group().replace(DROPPED, "")
            term = porter_stem(token)
            if term in terms:
                found.append((match.start(), match.end(), term))
        return found


DEFAULT_ANALYSIS = TextAnalysis.default()
