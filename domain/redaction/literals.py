"""One regular expression for many literal strings, shaped as a trie.

Python's `re` tries the branches of an alternation one after another at every
position; a branch that starts with a literal character is rejected at once when that
character differs. A trie (`a(?:pi_key|ccess_key)|p(?:ass|wd)`) leaves one branch per
first character, so finding any of a hundred literals costs about one comparison per
character of text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable


def lazy(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A regular expression compiled on first use, so importing the redaction policy
    (every command-line start does) costs no compilation."""
    return functools.cache(lambda: re.compile(pattern, flags))


def literal_trie(words: Iterable[str]) -> str:
    """An expression matching any of `words` (longest first where one is a prefix of
    another)."""
    return _node(sorted(set(words)))


def _node(words: list[str]) -> str:
    if not words:
        return ""
    groups: dict[str, list[str]] = {}
    ends = False
    for word in words:
        if word:
            groups.setdefault(word[0], []).append(word[1:])
        else:
            ends = True
    branches = [re.escape(first) + _node(rest) for first, rest in sorted(groups.items())]
    if not branches:
        return ""
    if len(branches) == 1 and not ends:
        return branches[0]
    body = "(?:" + "|".join(branches) + ")"
    return body + "?" if ends else body
