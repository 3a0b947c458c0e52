"""One regular expression for many literal strings, shaped as a trie.

Python's `re` tries the branches of an alternation one after another at every
position; a branch that starts with a literal character is rejected at once when that
character differs. A trie (`a(?:pi_key|ccess_key)|p(?:ass|wd)`) leaves one branch per
first character, so finding any of a hundred literals costs about one comparison per
character of text. Yet `re` still makes an attempt at every character some literal
starts with (most letters), each at a cost of its own: `LiteralSearch` makes one only where
a literal's rarest character stands, and enters the trie only there.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator

import attrs


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


# Characters from the most to the least common in chat text (prose and code), roughly;
# any other character counts as rarer than all of them. Only speed depends on it.
_COMMON_FIRST = " \netaoinsrhldcum.,fpgwkb=-_/\"'():vy0123456789xjqz"


def _rarity(char: str) -> int:
    index = _COMMON_FIRST.find(char)
    return len(_COMMON_FIRST) if index < 0 else index


def _pivot(word: str) -> int:
    """The offset of `word`'s rarest character (the first of equals)."""
    return max(range(len(word)), key=lambda i: (_rarity(word[i]), -i))


@attrs.frozen
class LiteralSearch:
    """Every occurrence of a set of literals in a text, left to right, never overlapping,
    the longest where several start at one place: exactly what `finditer` of the
    `literal_trie` expression finds, in less time.

    The trie costs one attempt per character that some literal starts with (most
    letters), and an attempt of `re` has a fixed cost whatever the pattern. So the text is
    first searched for each literal's rarest character (its pivot) followed by the rest
    of the literal and preceded by its beginning (a lookbehind): an attempt only where a
    pivot character stands. A literal that starts at or after `position` has its pivot
    at or after the first such match `p`, so it starts at or after `p - reach` (`reach`:
    the largest pivot offset); the trie, searched from there up to `p + longest`, gives
    the next occurrence if one starts by `p`, else the search goes on after `p`."""

    trie: re.Pattern[str]
    pivots: re.Pattern[str]
    reach: int
    longest: int

    @classmethod
    def of(cls, words: Iterable[str]) -> LiteralSearch:
        unique = sorted({word for word in words if word})
        if not unique:
            raise ValueError("a literal search needs at least one non-empty literal")
        offsets = {word: _pivot(word) for word in unique}
        by_pivot: dict[str, list[tuple[str, str]]] = {}
        for word, offset in offsets.items():
            by_pivot.setdefault(word[offset], []).append((word[offset + 1 :], word))
        pivots = "|".join(
            re.escape(char) + _behind_node(entries) for char, entries in sorted(by_pivot.items())
        )
        return cls(
            re.compile(literal_trie(unique)),
            re.compile(pivots),
            max(offsets.values()),
            max(len(word) for word in unique),
        )

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        position = 0
        pivots, trie = self.pivots.search, self.trie.search
        while (found := pivots(text, position)) is not None:
            at = found.start()
            hit = trie(text, max(position, at - self.reach), at + self.longest)
            if hit is None or hit.start() > at:
                position = at + 1  # that pivot's literal began before `position`
                continue
            yield hit
            position = hit.end()


def _behind_node(entries: list[tuple[str, str]]) -> str:
    """An expression for the rests of literals after their pivot (`entries`: rest,
    whole literal), as a trie; where a rest ends, a lookbehind checks the whole literal
    (one per length: a lookbehind has a fixed width)."""
    ends: dict[int, list[str]] = {}
    children: dict[str, list[tuple[str, str]]] = {}
    for rest, word in entries:
        if rest:
            children.setdefault(rest[0], []).append((rest[1:], word))
        else:
            ends.setdefault(len(word), []).append(word)
    branches = [re.escape(char) + _behind_node(more) for char, more in sorted(children.items())]
    branches += [f"(?<={literal_trie(words)})" for _, words in sorted(ends.items())]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
