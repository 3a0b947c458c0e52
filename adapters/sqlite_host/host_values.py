"""Host values as SQLite stored them, handed to the domain's one conversion.

A column is selected as `typeof(x), CAST(x AS BLOB)`: the driver then never decodes
text itself, so a value whose bytes are not valid text (a host that wrote raw bytes
into a TEXT column) becomes an `InvalidText` for the domain to judge instead of an
error that fails the whole statement.
"""

from __future__ import annotations

from chat_recall.domain.host_values import HostValue, InvalidText

# `PRAGMA encoding` -> the Python codec of the database's text.
CODECS = {"UTF-8": "utf-8", "UTF-16le": "utf-16-le", "UTF-16be": "utf-16-be"}


def typed(expression: str) -> str:
    """The two result columns that carry one host value."""
    return f"typeof({expression}), CAST({expression} AS BLOB)"


def host_value(kind: str, raw: bytes | None, codec: str) -> HostValue:
    """The value of a `typed` pair of result columns."""
    if raw is None or kind == "null":
        return None
    if kind == "integer":  # a cast number is its text in the database's encoding
        return int(raw.decode(codec))
    if kind == "real":
        return float(raw.decode(codec))
    if kind == "text":
        try:
            return raw.decode(codec)
        except UnicodeDecodeError:
            return InvalidText(len(raw))
    return bytes(raw)
