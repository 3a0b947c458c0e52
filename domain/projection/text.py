"""Whitespace normalisation and the deterministic UTF-8 byte cap of projections."""

from __future__ import annotations

import re

from chat_recall.domain.text.segment import (
    redactable,
    valid_unicode,
    without_controls,
)

# re-exported: projection code reads them from here
__all__ = ["redactable", "valid_unicode", "without_controls"]

_HORIZONTAL_RUN = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r"\n{3,}")

TRUNCATION_MARKER = " […] "


def collapse_whitespace(text: str) -> str:
    """Every run of Unicode whitespace becomes one space; the ends are stripped."""
    return " ".join(text.split())


def tidy_lines(text: str) -> str:
    """Keep line structure for reading: horizontal runs become one space, lines are
    stripped, and more than one blank line in a row becomes one."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = (_HORIZONTAL_RUN.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def clip_chars(text: str, limit: int) -> str:
    """At most `limit` characters; a clipped value ends with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + "…"


def _utf8_head(data: bytes, size: int) -> str:
    return data[:size].decode("utf-8", errors="ignore")


def _utf8_tail(data: bytes, size: int) -> str:
    return data[len(data) - size :].decode("utf-8", errors="ignore") if size else ""


def cap_utf8(text: str, max_bytes: int, tail_bytes: int) -> tuple[str, bool]:
    """Bound `text` to `max_bytes` of UTF-8, keeping a head and a `tail_bytes` tail
    around a visible marker. Cuts never split a character. Returns (text, truncated)."""
    if len(text) <= max_bytes // 4 or (len(text) <= max_bytes and text.isascii()):
        return text, False  # short enough whatever its encoding: no need to encode it
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text, False
    marker_size = len(TRUNCATION_MARKER.encode("utf-8"))
    head_size = max_bytes - tail_bytes - marker_size
    head = _utf8_head(data, head_size).rstrip()
    tail = _utf8_tail(data, tail_bytes).lstrip()
    return head + TRUNCATION_MARKER + tail, True
