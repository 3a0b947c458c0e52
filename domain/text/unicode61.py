"""Pure-Python tokenisation identical to SQLite FTS5 `unicode61 remove_diacritics 2`.

Token characters and per-code-point folds come from `unicode61_table`, generated from
SQLite itself (tests/tools/generate_unicode61_table.py) and re-checked against the
running SQLite by the test suite. A token is a maximal run of token characters, folded;
a run that folds to nothing is not a token (FTS5 skips empty tokens too).
"""

from __future__ import annotations

import functools
import re

from chat_recall.domain.text.unicode61_table import FOLDS, TOKEN_RANGES


def _character_class(ranges: tuple[tuple[int, int], ...]) -> str:
    parts = []
    for low, high in ranges:
        parts.append(
            re.escape(chr(low)) if low == high else f"{re.escape(chr(low))}-{re.escape(chr(high))}"
        )
    return "[" + "".join(parts) + "]+"


_TOKEN_CLASS = _character_class(TOKEN_RANGES)[:-1]  # without the trailing "+"
_TOKEN_RUN = re.compile(_TOKEN_CLASS + "+")
_FOLD_TABLE: dict[int, str] = dict(FOLDS)

# Every fold is one character or none; folding a dropped character to NUL instead keeps
# offsets, so spans found in the folded text are spans of the original. NUL never occurs
# in index text (sanitised away) and counts as part of a token at the boundaries.
_DROPPED = "\x00"
_SAME_LENGTH_FOLD: dict[int, str] = {point: text or _DROPPED for point, text in FOLDS.items()}
_BOUNDARY_CLASS = _TOKEN_CLASS[:-1] + _DROPPED + "]"


# For other modules' scans: the folding that keeps offsets, and the class of characters
# a token run is made of in folded text (token characters and dropped ones).
SAME_LENGTH_FOLD = _SAME_LENGTH_FOLD
TOKEN_RUN_CHARACTER = _BOUNDARY_CLASS
DROPPED = _DROPPED


def fold(text: str) -> str:
    """Case folding and diacritic removal, code point by code point."""
    return text.translate(_FOLD_TABLE)


@functools.lru_cache(maxsize=256)
def _occurrence_pattern(tokens: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(token) for token in sorted(tokens, key=len, reverse=True))
    return re.compile(f"(?<!{_BOUNDARY_CLASS})(?:{alternatives})(?!{_BOUNDARY_CLASS})")


def find_tokens(text: str, tokens: frozenset[str]) -> list[tuple[int, int, str]]:
    """(start, end, folded token) of every whole-token occurrence of `tokens` in `text`,
    found by one regular-expression scan over a same-length folding of the text."""
    if not tokens:
        return []
    folded = text.translate(_SAME_LENGTH_FOLD)
    pattern = _occurrence_pattern(tuple(sorted(tokens)))
    return [(match.start(), match.end(), match.group()) for match in pattern.finditer(folded)]


def tokenize(text: str) -> list[str]:
    """The tokens FTS5 would index for `text`, in order."""
    tokens = []
    for run in _TOKEN_RUN.findall(text):
        token = run.translate(_FOLD_TABLE)
        if token:
            tokens.append(token)
    return tokens
