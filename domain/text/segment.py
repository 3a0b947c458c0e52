"""Segmentation of scripts written without spaces, and sanitising for storage.

With plain unicode61 a whole run of Japanese or Chinese is one token, so a word inside
a sentence is not findable. The index therefore stores such characters as separate
tokens, separated by SEGMENT_MARK (U+200B ZERO WIDTH SPACE, a separator for unicode61),
and the query matches a word as the phrase of its characters. `reading_text` removes
the marks again, so excerpts look like the original.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Sequence

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
# C0 and C1 controls except tab and newline, and lone surrogates (which cannot be stored as
# UTF-8) become spaces / U+FFFD; stray segment marks are dropped.
_CONTROL = "[\x00-\x08\x0b-\x1f\x7f-\x9f]"
_SURROGATE = "[\ud800-\udfff]"


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """Compiled on first use: the classes of wide ranges cost more to compile than
    most short processes (a CLI search over ASCII text) ever spend using them."""
    return re.compile(pattern)


_ASCII_CONTROLS = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])


def _has_ascii_control(text: str) -> bool:
    """For ASCII text: whether it holds a character `_CONTROL` replaces (bytes.translate
    runs in C, cheaper than a regular-expression scan)."""
    data = text.encode("ascii")
    return len(data.translate(None, _ASCII_CONTROLS)) != len(data)


def valid_unicode(text: str) -> str:
    """Lone surrogates (which no UTF-8 output can carry) become U+FFFD."""
    if text.isascii():  # O(1) in CPython: ASCII text holds no surrogate
        return text
    return _compiled(_SURROGATE).sub("\ufffd", text)


# Characters that show nothing between two ASCII characters: Unicode's format characters
# (zero-width space and joiners, soft hyphen, word joiner, byte-order mark, bidirectional
# controls, tags; a superset of category Cf as of Unicode 15), the combining grapheme
# joiner and the variation selectors. Pasted from a web page or a chat client, one can sit
# inside a credential; see `unmasked`.
_INVISIBLE_BMP = (
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufe00-\ufe0f\ufeff"
    "\ufff9-\ufffb"
)
_INVISIBLE = (
    f"{_INVISIBLE_BMP}\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef"
)
_INVISIBLE_GAP = f"(?<=[!-~])[{_INVISIBLE}]+(?=[!-~])"

# Unicode's other spaces (no-break, em, ideographic...) and its line and paragraph
# separators, as the ASCII space every rule of the redaction knows (a separator as a
# space, not a newline: `password<U+2028>: value` is still one assignment).
_SPACE_CHARS = "\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# And the fullwidth forms of printable ASCII (U+FF01-FF5E, what a Japanese or Chinese
# input method types) as ASCII, one character for one: `ｓｋ-proj-...` is a key.
_FULLWIDTH = "\uff01-\uff5e"
_SPACES = str.maketrans(
    {
        **dict.fromkeys(
            [0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000], " "
        ),
        **{code: chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)},
    }
)

# One scan for every character `redactable` may change: lone surrogates, the spaces,
# the invisible characters (the astral ones by two coarse ranges that hold no emoji).
# On a long non-ASCII text it costs what `valid_unicode`'s own scan did, a fraction of
# what the translation and the gap search cost; most
# texts hold none of these characters and are returned as they are.
_REDACTABLE_SCAN = (
    f"[\ud800-\udfff{_INVISIBLE_BMP}{_SPACE_CHARS}{_FULLWIDTH}"
    "\U000110bd-\U0001d17a\U000e0001-\U000e01ef]"
)


def unmasked(text: str) -> str:
    """`text` as the redaction must see it: without the invisible characters
    (`_INVISIBLE`) that stand between two printable ASCII characters, with other
    spaces as ASCII spaces and fullwidth ASCII as ASCII (`_SPACES`, one character for
    one). Credentials are ASCII:
    one split by an invisible character would escape redaction, and the index would
    join its halves again (it drops zero-width spaces) or keep them as two findable
    pieces; `password:<no-break space>value`, as text pasted from a web page has it,
    would escape the named forms. Invisible characters between other characters stay
    (emoji sequences and Persian text use joiners)."""
    if text.isascii() or _compiled(_REDACTABLE_SCAN).search(text) is None:  # most texts
        return text
    return _unmask(text)


def redactable(text: str) -> str:
    """`valid_unicode(unmasked(text))` in one scan of the text: what every text goes
    through before it is redacted (a message once its bulky bodies are left out, a
    title, a query, an error message)."""
    if text.isascii() or _compiled(_REDACTABLE_SCAN).search(text) is None:
        return text
    return valid_unicode(_unmask(text))


def _unmask(text: str) -> str:
    return _compiled(_INVISIBLE_GAP).sub("", text.translate(_SPACES))


def without_controls(text: str) -> str:
    """C0 and C1 control characters other than tab and newline (the escape sequences a
    terminal would obey, NUL) become spaces."""
    if text.isascii() and not _has_ascii_control(text):
        return text
    return _compiled(_CONTROL).sub(" ", text)


def sanitize(text: str) -> str:
    """Text safe to store and tokenise identically everywhere."""
    if text.isascii():  # O(1) in CPython: no surrogate, segment mark or unspaced script
        return without_controls(text)
    return valid_unicode(without_controls(text)).replace(SEGMENT_MARK, "")


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


class Script(enum.Enum):
    """What a query token is written in, for splitting an unbroken run of an unspaced
    script into words (`script_runs`)."""

    SPACED = "spaced"  # any token that is not one character of an unspaced script
    HAN = "han"  # ideographs (and the iteration mark 々); Thai, Lao, Khmer, Myanmar
    HIRAGANA = "hiragana"  # Japanese particles, inflections and a few native words
    KATAKANA = "katakana"  # Japanese loanwords and names, written as one run


_HIRAGANA = "[\u3040-\u309f]"
_KATAKANA = "[\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]"
_ITERATION_MARK = "\u3005"


def script_of(token: str) -> Script:
    if len(token) != 1:
        return Script.SPACED
    if token.isascii():
        return Script.SPACED
    if _compiled(_HIRAGANA).fullmatch(token):
        return Script.HIRAGANA
    if _compiled(_KATAKANA).fullmatch(token):
        return Script.KATAKANA
    if token == _ITERATION_MARK or _compiled(_UNSPACED).fullmatch(token):
        return Script.HAN
    return Script.SPACED


def script_runs(tokens: Sequence[str]) -> list[tuple[Script, tuple[str, ...]]]:
    """`tokens` cut where the script changes: consecutive tokens of one script form a
    run (a sequence of spaced tokens stays one run, as a word like `login.ts` does)."""
    runs: list[tuple[Script, list[str]]] = []
    for token in tokens:
        script = script_of(token)
        if runs and runs[-1][0] is script:
            runs[-1][1].append(token)
        else:
            runs.append((script, [token]))
    return [(script, tuple(run)) for script, run in runs]
