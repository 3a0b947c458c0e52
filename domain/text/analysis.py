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
