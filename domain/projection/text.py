"""Whitespace normalisation and the deterministic UTF-8 byte cap of projections."""

from __future__ import annotations

from chat_recall.domain.text.segment import (
    redactable,
    valid_unicode,
    without_controls,
)

# re-exported: projection code reads them from here
__all__ = ["redactable", "valid_unicode", "without_controls"]

TRUNCATION_MARKER = " […] "


def collapse_whitespace(text: str) -> str:
    """Every run of Unicode whitespace becomes one space; the ends are stripped."""
    return " ".join(text.split())


def tidy_lines(text: str) -> str:
    """The text as written, for code above all: lines, indentation (spaces and tabs) and
    the spacing inside a line are kept. Only trailing spaces and tabs are trimmed from
    each line, line endings become `\\n`, more than one blank line in a row becomes one,
    and blank lines at either end are dropped. Python, YAML and Markdown lists mean what
    their indentation says, and a Makefile's recipe lines need their tab.

    Every step is a C string method, and skipped when the text needs none of it: this
    runs on every message the indexer projects."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if " \n" in text or "\t\n" in text or text.rstrip("\n")[-1:].isspace():
        text = "\n".join([line.rstrip() for line in text.split("\n")])
    while "\n\n\n" in text:  # each pass shortens every run by a third
        text = text.replace("\n\n\n", "\n\n")
    return text.strip("\n")


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
