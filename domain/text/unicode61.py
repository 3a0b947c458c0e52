"""Pure-Python tokenisation identical to SQLite FTS5 `unicode61 remove_diacritics 2`.

Token characters and per-code-point folds come from `unicode61_table`, generated from
SQLite itself (tests/tools/generate_unicode61_table.py) and re-checked against the
running SQLite by the test suite. A token is a maximal run of token characters, folded;
a run that folds to nothing is not a token (FTS5 skips empty tokens too).
"""

from __future__ import annotations

import re

from domain.text.unicode61_table import FOLDS, TOKEN_RANGES


def _character_class(ranges: tuple[tuple[int, int], ...]) -> str:
    parts = []
    for low, high in ranges:
        parts.append(
            re.escape(chr(low)) if low == high else f"{re.escape(chr(low))}-{re.escape(chr(high))}"
        )
    return "[" + "".join(parts) + "]+"


_TOKEN_RUN = re.compile(_character_class(TOKEN_RANGES))
_FOLD_TABLE: dict[int, str] = dict(FOLDS)


def fold(text: str) -> str:
    """Case folding and diacritic removal, code point by code point."""
    return text.translate(_FOLD_TABLE)


def token_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every run of token characters (before folding)."""
    return [match.span() for match in _TOKEN_RUN.finditer(text)]


def tokenize(text: str) -> list[str]:
    """The tokens FTS5 would index for `text`, in order."""
    tokens = []
    for run in _TOKEN_RUN.findall(text):
        token = run.translate(_FOLD_TABLE)
        if token:
            tokens.append(token)
    return tokens
