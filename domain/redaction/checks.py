"""Cheap tests that tell a credential from a word of the same shape.

A pattern alone cannot tell `sk-learn-estimators-overview` from an API key, or a
40-character identifier from an AWS secret key. These checks can: random credentials mix
character classes and spread over their alphabet (Shannon entropy), and some formats
carry structure that can be decoded (a JWT header is base64url JSON, a Basic credential
is base64 of `user:password`).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

from chat_recall.domain.redaction.literals import lazy

_PLACEHOLDER_VALUE = lazy(r"\[redacted [a-z0-9-]+\]")


def shannon_entropy(value: str) -> float:
    """Bits per character of `value`'s own character distribution."""
    if not value:
        return 0.0
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in Counter(value).values())


def _class(char: str) -> int:
    return 0 if char.isdigit() else 1 if char.isupper() else 2


def class_transitions(value: str) -> float:
    """The share of neighbouring letters/digits that change class (digit, upper,
    lower). High for random base62, base64 or hex, which change class at random; low
    for identifiers and slugs, which change class once per word."""
    core = [char for char in value if char.isalnum()]
    if len(core) < 2:
        return 0.0
    changes = sum(_class(a) != _class(b) for a, b in itertools.pairwise(core))
    return changes / (len(core) - 1)


def looks_random(value: str, *, min_entropy: float = 3.0, min_transitions: float = 0.3) -> bool:
    """True for a machine-made token rather than a word, slug or identifier.

    The defaults sit where random base62/base64/hex tokens of a secret's usual length
    rarely fall below (both measures grow with length and alphabet), while words, slugs
    and identifiers fall short on transitions: `sk-learn-estimators-overview` has none,
    `getUserAuthenticationToken` few.
    """
    core = "".join(char for char in value if char.isalnum())
    if len(core) < 8:
        return False
    return shannon_entropy(core) >= min_entropy and class_transitions(core) >= min_transitions


def _b64_decode(value: str, *, urlsafe: bool) -> bytes | None:
    import base64
    import binascii

    padded = value + "=" * (-len(value) % 4)
    try:
        if urlsafe:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def is_jwt(value: str) -> bool:
    """A JWT/JWS/JWE: its first segment is base64url JSON with an `alg` or `typ`."""
    import json

    header = _b64_decode(value.split(".", 1)[0], urlsafe=True)
    if header is None:
        return False
    try:
        parsed = json.loads(header)
    except (UnicodeDecodeError, ValueError):
        return False
    return isinstance(parsed, dict) and ("alg" in parsed or "typ" in parsed or "enc" in parsed)


def is_basic_credential(value: str) -> bool:
    """Base64 of printable `user:password` (the HTTP Basic scheme)."""
    decoded = _b64_decode(value.rstrip("="), urlsafe=False)
    if decoded is None or b":" not in decoded:
        return False
    try:
        text = decoded.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return text.isprintable() and not text.startswith(":")


def is_placeholder(value: str) -> bool:
    """Already redacted."""
    return _PLACEHOLDER_VALUE().fullmatch(value) is not None
