"""How a test decides that a secret leaked: any 8 characters of it in a row, compared
with whitespace removed (projections collapse and re-flow whitespace)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

WINDOW = 8


def _squeezed(text: str) -> str:
    return "".join(text.split())


def windows(secret: str) -> set[str]:
    squeezed = _squeezed(secret)
    return {squeezed[i : i + WINDOW] for i in range(len(squeezed) - WINDOW + 1)}


def leaked(secret: str, output: str) -> list[str]:
    """The 8-character pieces of `secret` that `output` holds."""
    haystack = _squeezed(output)
    return sorted(piece for piece in windows(secret) if piece in haystack)


def strings(payload: Any) -> Iterator[str]:
    """Every string of a JSON payload (keys and values), so escapes do not hide text."""
    if isinstance(payload, str):
        yield payload
    elif isinstance(payload, dict):
        for key, value in payload.items():
            yield key
            yield from strings(value)
    elif isinstance(payload, list):
        for item in payload:
            yield from strings(item)


def all_text(output: str) -> str:
    """A tool's JSON output as its decoded strings, one per line."""
    return "\n".join(strings(json.loads(output)))
