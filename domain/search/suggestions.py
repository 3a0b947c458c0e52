"""\"Did you mean\": the nearest words of an app's own vocabulary to a query word that
matched nothing (a typo: `authentcation`).

Candidates are every term one edit away from the word (a letter deleted, two neighbours
swapped, a letter replaced or inserted), as the index analyses them, so a typo inside
an ending still finds the stem (`authenticaiton` -> `authentication` -> `authent`).
The index is asked which of them it holds (`IndexStore.vocabulary`: lookups, bounded
by the candidates' number, never a walk of the vocabulary), and the most common win.
The same candidates in every engine: the suggestions depend on the app's words, not
on the engine. A suggestion is shown only after a search found it in a visible
document, in the word's own spelling there (see `search_chats`).
"""

from __future__ import annotations

from collections.abc import Sequence

from chat_recall.domain.query import TermCount
from chat_recall.domain.text.analysis import TextAnalysis

# Words shorter than this have too many neighbours one edit away to guess from; longer
# ones than `MAX_WORD_CHARS` would ask the index too many candidates.
MIN_WORD_CHARS = 4
MAX_WORD_CHARS = 24
# At most this many words of a query get suggestions, and each at most this many.
MAX_WORDS = 3
PER_WORD = 2
# Candidates checked against a search, per word, to find `PER_WORD` visible ones.
CHECKED_PER_WORD = 4

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def suggestible(token: str) -> bool:
    """Whether a query word (one folded token) gets suggestions: letters only (numbers,
    versions and identifiers are not misspelt words), of a length worth guessing."""
    return MIN_WORD_CHARS <= len(token) <= MAX_WORD_CHARS and token.isalpha()


def candidates(token: str, analysis: TextAnalysis) -> tuple[str, ...]:
    """The terms of every word one edit away from `token`, sorted; the token's own term
    left out. Replacements and insertions use the ASCII letters and the token's own."""
    letters = _LETTERS + "".join(sorted(set(token) - set(_LETTERS)))
    splits = [(token[:i], token[i:]) for i in range(len(token) + 1)]
    words = {head + tail[1:] for head, tail in splits if tail}
    words |= {head + tail[1] + tail[0] + tail[2:] for head, tail in splits if len(tail) > 1}
    words |= {head + letter + tail[1:] for head, tail in splits if tail for letter in letters}
    words |= {head + letter + tail for head, tail in splits for letter in letters}
    own = analysis.term(token)
    return tuple(sorted({analysis.term(word) for word in words if word} - {own}))


def nearest(found: Sequence[TermCount]) -> list[str]:
    """The candidates the index holds, most common first (ties by term), at most
    `CHECKED_PER_WORD`: the ones to check and show."""
    held = sorted((t for t in found if t.documents > 0), key=lambda t: (-t.documents, t.term))
    return [t.term for t in held[:CHECKED_PER_WORD]]
