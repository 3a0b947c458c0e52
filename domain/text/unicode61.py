"""Pure-Python tokenisation identical to SQLite FTS5 `unicode61 remove_diacritics 2`.

Token characters and per-code-point folds come from `unicode61_table`, generated from
SQLite itself (tests/tools/generate_unicode61_table.py) and re-checked against the
running SQLite by the test suite. A token is a maximal run of token characters, folded;
a run that folds to nothing is not a token (FTS5 skips empty tokens too).

ASCII text (most queries and most stored text) takes a fast path that needs neither
the table nor the expressions built from it: in ASCII the token characters are the
letters and digits and folding is `str.lower` (`tests/test_unicode61_parity.py` holds
both against the table and against SQLite). The table is loaded and its expressions
compiled the first time a text that is not ASCII needs them, so a short process that
sees only ASCII (a CLI search) never pays for them.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

# Every fold is one character or none; folding a dropped character to NUL instead keeps
# offsets, so spans found in the folded text are spans of the original. NUL never occurs
# in index text (sanitised away) and counts as part of a token at the boundaries.
DROPPED = "\x00"

# The ASCII part of the table: the token characters (the folds are the upper-case
# letters' lower case).
ASCII_TOKEN_CHARACTER = "[0-9A-Za-z]"
_ASCII_TOKEN_RUN = re.compile(ASCII_TOKEN_CHARACTER + "+")
_ASCII_BOUNDARY_CLASS = "[0-9A-Za-z" + DROPPED + "]"

if TYPE_CHECKING:
    # For other modules' scans over text of any script, built on first use (module
    # `__getattr__` below): the folding that keeps offsets, and the class of characters
    # a token run is made of in folded text (token characters and dropped ones).
    SAME_LENGTH_FOLD: dict[int, str]
    TOKEN_RUN_CHARACTER: str


def _character_class(ranges: tuple[tuple[int, int], ...]) -> str:
    parts = []
    for low, high in ranges:
        parts.append(
            re.escape(chr(low)) if low == high else f"{re.escape(chr(low))}-{re.escape(chr(high))}"
        )
    return "[" + "".join(parts) + "]"


class _Tables:
    """What the whole table gives: built once, the first time it is needed."""

    def __init__(self) -> None:
        from chat_recall.domain.text.unicode61_table import FOLDS, TOKEN_RANGES

        token_class = _character_class(TOKEN_RANGES)
        self.token_run = re.compile(token_class + "+")
        self.fold: dict[int, str] = dict(FOLDS)
        self.same_length_fold: dict[int, str] = {
            point: text or DROPPED for point, text in FOLDS.items()
        }
        self.boundary_class = token_class[:-1] + DROPPED + "]"


@functools.cache
def _tables() -> _Tables:
    return _Tables()


def __getattr__(name: str) -> Any:
    if name == "SAME_LENGTH_FOLD":
        return _tables().same_length_fold
    if name == "TOKEN_RUN_CHARACTER":
        return _tables().boundary_class
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def same_length_fold(text: str) -> str:
    """Folding that keeps offsets: dropped characters become DROPPED (NUL)."""
    if text.isascii():  # O(1) in CPython
        return text.lower()
    return text.translate(_tables().same_length_fold)


def token_run_character(text: str) -> str:
    """A character class that agrees, on every character of `text`, with the class of
    characters a token run is made of in folded text (token characters and DROPPED):
    the ASCII class for ASCII text, else the whole table's."""
    return _ASCII_BOUNDARY_CLASS if text.isascii() else _tables().boundary_class


def fold(text: str) -> str:
    """Case folding and diacritic removal, code point by code point."""
    if text.isascii():
        return text.lower()
    return text.translate(_tables().fold)


@functools.lru_cache(maxsize=256)
def _occurrence_pattern(tokens: tuple[str, ...], boundary: str) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(token) for token in sorted(tokens, key=len, reverse=True))
    return re.compile(f"(?<!{boundary})(?:{alternatives})(?!{boundary})")


def find_tokens(text: str, tokens: frozenset[str]) -> list[tuple[int, int, str]]:
    """(start, end, folded token) of every whole-token occurrence of `tokens` in `text`,
    found by one regular-expression scan over a same-length folding of the text."""
    if not tokens:
        return []
    folded = same_length_fold(text)
    pattern = _occurrence_pattern(tuple(sorted(tokens)), token_run_character(text))
    return [(match.start(), match.end(), match.group()) for match in pattern.finditer(folded)]


def tokenize(text: str) -> list[str]:
    """The tokens FTS5 would index for `text`, in order."""
    if text.isascii():
        return _ASCII_TOKEN_RUN.findall(text.lower())
    tables = _tables()
    tokens = []
    for run in tables.token_run.findall(text):
        token = run.translate(tables.fold)
        if token:
            tokens.append(token)
    return tokens
