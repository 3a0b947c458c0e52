"""Pure-Python Porter stemming identical to SQLite FTS5's `porter` tokenizer.

FTS5's `porter` wraps `unicode61`: every token it emits is reduced by M. F. Porter's
1980 algorithm, applied to the token's UTF-8 bytes, unless the token is shorter than 3
or longer than 64 bytes (then it passes unchanged). FTS5 stems the text it indexes
and the phrases of a query alike, so a word and its inflections (`go`, `goes`,
`going`) are one term with one document frequency.

This module reproduces that behaviour byte for byte, including its particular reading
of the algorithm: `y` counts as a vowel after a consonant (and, for the *v* test, at
any position but the first); a suffix rule needs the word to be strictly longer than
the suffix; within a step only the first rule whose suffix matches is tried; any byte
that is not an ASCII vowel is a consonant. `tests/test_porter_parity.py` checks it
against the running SQLite over tens of thousands of words.

The in-memory index twin stems with it, and search uses it to tell which query terms
a document holds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

MIN_BYTES = 3
MAX_BYTES = 64

_VOWELS = frozenset(b"aeiou")
_Y = ord("y")


def _is_vowel(byte: int, y_is_vowel: bool) -> bool:
    return byte in _VOWELS or (y_is_vowel and byte == _Y)


def _vowel_consonant(word: bytes | bytearray, start: int, end: int, after_consonant: bool) -> int:
    """Where the first vowel-then-consonant sequence of word[start:end] ends (an index
    into `word`), or 0 when there is none. `after_consonant` tells whether the byte
    before `start` was a consonant (for the `y` rule)."""
    consonant = after_consonant
    index = start
    while index < end:
        consonant = not _is_vowel(word[index], consonant)
        if not consonant:
            break
        index += 1
    else:
        return 0
    index += 1
    while index < end:
        consonant = not _is_vowel(word[index], consonant)
        if consonant:
            return index + 1
        index += 1
    return 0


def _measure_above_0(word: bytes | bytearray, end: int) -> bool:
    return _vowel_consonant(word, 0, end, False) != 0


def _measure_above_1(word: bytes | bytearray, end: int) -> bool:
    first = _vowel_consonant(word, 0, end, False)
    return first != 0 and _vowel_consonant(word, first, end, True) != 0


def _measure_is_1(word: bytes | bytearray, end: int) -> bool:
    first = _vowel_consonant(word, 0, end, False)
    return first != 0 and _vowel_consonant(word, first, end, True) == 0


def _ends_cvc(word: bytes | bytearray, end: int) -> bool:
    """*o: the stem ends consonant-vowel-consonant, the last not w, x or y."""
    if word[end - 1] in b"wxy":
        return False
    pattern = 0
    consonant = False
    for index in range(end):
        consonant = not _is_vowel(word[index], consonant)
        pattern = (pattern << 1) | int(consonant)
    return pattern & 0b111 == 0b101


def _has_vowel(word: bytes | bytearray, end: int) -> bool:
    """*v*: the stem holds a vowel (`y` counts anywhere but at the start)."""
    return any(_is_vowel(word[index], index > 0) for index in range(end))


def _measure_above_1_ends_s_or_t(word: bytes | bytearray, end: int) -> bool:
    return word[end - 1] in b"st" and _measure_above_1(word, end)


Condition = Callable[[bytes | bytearray, int], bool]
# (suffix, condition on the stem before it, replacement); within a step the first rule
# whose suffix the word ends with (and is longer than) decides, met or not.
Rule = tuple[bytes, Condition, bytes]

_STEP_2: tuple[Rule, ...] = tuple(
    (suffix.encode(), _measure_above_0, replacement.encode())
    for suffix, replacement in (
        ("ational", "ate"),
        ("tional", "tion"),
        ("enci", "ence"),
        ("anci", "ance"),
        ("izer", "ize"),
        ("logi", "log"),
        ("bli", "ble"),
        ("alli", "al"),
        ("entli", "ent"),
        ("eli", "e"),
        ("ousli", "ous"),
        ("ization", "ize"),
        ("ation", "ate"),
        ("ator", "ate"),
        ("alism", "al"),
        ("iveness", "ive"),
        ("fulness", "ful"),
        ("ousness", "ous"),
        ("aliti", "al"),
        ("iviti", "ive"),
        ("biliti", "ble"),
    )
)
_STEP_3: tuple[Rule, ...] = tuple(
    (suffix.encode(), _measure_above_0, replacement.encode())
    for suffix, replacement in (
        ("ical", "ic"),
        ("ness", ""),
        ("icate", "ic"),
        ("iciti", "ic"),
        ("ful", ""),
        ("ative", ""),
        ("alize", "al"),
    )
)
_STEP_4: tuple[Rule, ...] = tuple(
    (suffix.encode(), condition, b"")
    for suffix, condition in (
        ("al", _measure_above_1),
        ("ance", _measure_above_1),
        ("ence", _measure_above_1),
        ("er", _measure_above_1),
        ("ic", _measure_above_1),
        ("able", _measure_above_1),
        ("ible", _measure_above_1),
        ("ant", _measure_above_1),
        ("ement", _measure_above_1),
        ("ment", _measure_above_1),
        ("ent", _measure_above_1),
        ("ion", _measure_above_1_ends_s_or_t),
        ("ou", _measure_above_1),
        ("ism", _measure_above_1),
        ("ate", _measure_above_1),
        ("iti", _measure_above_1),
        ("ous", _measure_above_1),
        ("ive", _measure_above_1),
        ("ize", _measure_above_1),
    )
)
_RESTORE_E: tuple[tuple[bytes, bytes], ...] = ((b"at", b"ate"), (b"bl", b"ble"), (b"iz", b"ize"))


def _apply(word: bytearray, rules: tuple[Rule, ...]) -> None:
    for suffix, condition, replacement in rules:
        if len(word) > len(suffix) and word.endswith(suffix):
            stem = len(word) - len(suffix)
            if condition(word, stem):
                word[stem:] = replacement
            return


def _step_1a(word: bytearray) -> None:
    size = len(word)
    if word[-1] != ord("s"):
        return
    if word[-2] == ord("e"):
        sses = size > 4 and word[-4:-2] == b"ss"
        ies = size > 3 and word[-3] == ord("i")
        del word[-2 if sses or ies else -1 :]
    elif word[-2] != ord("s"):
        del word[-1:]


def _step_1b(word: bytearray) -> None:
    """-eed, -ed, -ing; after removing -ed or -ing, tidy the stem's end."""
    size = len(word)
    if size > 3 and word.endswith(b"eed"):
        if _measure_above_0(word, size - 3):
            del word[-1:]
        return
    if size > 2 and word.endswith(b"ed"):
        if not _has_vowel(word, size - 2):
            return
        del word[-2:]
    elif size > 3 and word.endswith(b"ing"):
        if not _has_vowel(word, size - 3):
            return
        del word[-3:]
    else:
        return
    for ending, restored in _RESTORE_E:
        if len(word) > len(ending) and word.endswith(ending):
            word[-len(ending) :] = restored
            return
    last = word[-1]
    doubled = len(word) > 1 and word[-2] == last
    if not _is_vowel(last, False) and last not in b"lsz" and doubled:
        del word[-1:]
    elif _measure_is_1(word, len(word)) and _ends_cvc(word, len(word)):
        word.append(ord("e"))


def _step_1c(word: bytearray) -> None:
    if word[-1] == _Y and _has_vowel(word, len(word) - 1):
        word[-1] = ord("i")


def _step_5(word: bytearray) -> None:
    size = len(word)
    if word[-1] == ord("e"):
        stem = size - 1
        if _measure_above_1(word, stem) or (
            _measure_is_1(word, stem) and not _ends_cvc(word, stem)
        ):
            del word[-1:]
    size = len(word)
    doubled_l = size > 1 and word[-1] == ord("l") and word[-2] == ord("l")
    if doubled_l and _measure_above_1(word, size - 1):
        del word[-1:]


@functools.lru_cache(maxsize=65536)
def porter_stem(token: str) -> str:
    """The term FTS5's `porter` tokenizer indexes for a `unicode61` token. Bytes that do
    not decode (a stem can end inside a multi-byte character) are kept as surrogate
    escapes, so the result is exact and unique."""
    raw = token.encode("utf-8", "surrogateescape")
    if not MIN_BYTES <= len(raw) <= MAX_BYTES:
        return token
    word = bytearray(raw)
    _step_1a(word)
    _step_1b(word)
    _step_1c(word)
    _apply(word, _STEP_2)
    _apply(word, _STEP_3)
    _apply(word, _STEP_4)
    _step_5(word)
    return word.decode("utf-8", "surrogateescape")
