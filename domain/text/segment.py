"""Segmentation of scripts written without spaces, and sanitising for storage.

With plain unicode61 a whole run of Japanese or Chinese is one token, so a word inside
a sentence is not findable. The index therefore stores such characters as separate
tokens, separated by SEGMENT_MARK (U+200B ZERO WIDTH SPACE, a separator for unicode61),
and the query matches a word as the phrase of its characters. `reading_text` removes
the marks again, so excerpts look like the original.
"""

from __future__ import annotations

import functools
import re

SEGMENT_MARK = "\u200b"

# Han (with extensions and compatibility ideographs), Hiragana, Katakana (with
# extensions and half-width forms), Thai, Lao, Khmer and Myanmar.
_UNSPACED = (
    "["
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
    "\U00020000-\U0003ffff"
    "]"
)
# C0 controls except tab and newline, and lone surrogates (which cannot be stored as
# UTF-8) become spaces / U+FFFD; stray segment marks are dropped.
_CONTROL = "[\x00-\x08\x0b-\x1f\x7f]"
_SURROGATE = "[\ud800-\udfff]"


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """Compiled on first use: the classes of wide ranges cost more to compile than
    most short processes (a CLI search over ASCII text) ever spend using them."""
    return re.compile(pattern)


_ASCII_CONTROLS = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])


def _has_ascii_control(text: str) -> bool:
    """For ASCII text: whether it holds a character `_CONTROL` replaces (bytes.translate
    runs in C several times faster than a regular-expression scan)."""
    data = text.encode("ascii")
    return len(data.translate(None, _ASCII_CONTROLS)) != len(data)


def valid_unicode(text: str) -> str:
    """Lone surrogates (which no UTF-8 output can carry) become U+FFFD."""
    if text.isascii():  # O(1) in CPython: ASCII text holds no surrogate
        return text
    return _compiled(_SURROGATE).sub("\ufffd", text)


def sanitize(text: str) -> str:
    """Text safe to store and tokenise identically everywhere."""
    if text.isascii():  # O(1) in CPython: no surrogate, segment mark or unspaced script
        return _compiled(_CONTROL).sub(" ", text) if _has_ascii_control(text) else text
    return valid_unicode(_compiled(_CONTROL).sub(" ", text)).replace(SEGMENT_MARK, "")


def index_text(text: str) -> str:
    """What the index stores for a projection or a title."""
    if text.isascii():
        return sanitize(text)
    return _compiled(_UNSPACED).sub(
        lambda match: f"{SEGMENT_MARK}{match.group()}{SEGMENT_MARK}", sanitize(text)
    )


def reading_text(indexed: str) -> str:
    """Indexed text as a person reads it."""
    return indexed.replace(SEGMENT_MARK, "")
