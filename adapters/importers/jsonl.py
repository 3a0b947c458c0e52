"""chat-recall's own JSON Lines (`chat-recall import --from jsonl`): rows that keep their
host ids, one object per line, a chat before its messages (README: the format).

The line format is read here, for both SQL engines' writers (`adapters/sqlite_host/importer.py`,
`adapters/postgres/importer.py`); `JsonLinesImporter` recognises such files and hands
their lines to the import target, which writes them as they are (`--on-conflict`).

`created_at` is Unix seconds, Unix milliseconds (a number of 100,000,000,000 or more: no
date in seconds is that far away) or an ISO 8601 string (`2024-05-01T10:00:00Z`; without
an offset it is UTC): the domain's `auto` rule (`domain/host_values.py`). It is stored as
the host mapping's `timestamps` declares (Unix seconds by default).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any, ClassVar, Literal

import attrs

from chat_recall.application.conversion import structure
from chat_recall.application.importing import HostRowLines, ImportRecord, SourceFiles
from chat_recall.domain.host_values import (
    TimestampFormat,
    Unreadable,
    UnreadableReason,
    iso_time,
    unix_seconds,
)
from chat_recall.domain.imports import SourceFormat
from chat_recall.domain.messages import Role

# How much of a file recognising it reads.
SNIFF_BYTES = 64 * 1024


def _non_negative(instance: object, attribute: Any, value: Any) -> None:
    if value is not None and value < 0:
        raise ValueError(f"{attribute.name}: must not be negative (got {value})")


def _role(instance: object, attribute: Any, value: str) -> None:
    if value not in Role.values():
        allowed = " or ".join(f'"{role}"' for role in Role.values())
        raise ValueError(f"role: must be {allowed} (got {value!r})")


def _timestamp(value: Any) -> int:
    try:
        return parse_timestamp(value)
    except ValueError as error:
        raise ValueError(f"created_at: {error}") from None


@attrs.frozen
class ChatLine:
    type: Literal["chat"]
    app_id: int
    created_at: Any = attrs.field(converter=_timestamp)  # Any: the field converter reads it
    id: int | None = attrs.field(default=None, validator=_non_negative)
    title: str | None = None


@attrs.frozen
class MessageLine:
    type: Literal["message"]
    chat_id: int
    role: str = attrs.field(validator=_role)
    content: str
    created_at: Any = attrs.field(converter=_timestamp)  # Any: the field converter reads it
    id: int | None = attrs.field(default=None, validator=_non_negative)
    is_compaction_summary: bool = False


def parse_timestamp(value: Any) -> int:
    """Unix seconds from seconds, milliseconds or ISO 8601 text (the domain's `auto`
    rule, the same one the index applies to host rows)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(
            "must be Unix seconds, Unix milliseconds or an ISO 8601 string "
            f"(got {type(value).__name__})"
        )
    try:
        return unix_seconds(value, TimestampFormat.AUTO)
    except Unreadable as error:
        why = "" if error.reason is UnreadableReason.TIMESTAMP_UNPARSEABLE else " (out of range)"
        raise ValueError(
            f"{value!r} is not Unix seconds, Unix milliseconds or an ISO 8601 date and time "
            f"(e.g. 2024-05-01T10:00:00Z){why}"
        ) from None


def stored_time(seconds: int, timestamps: TimestampFormat) -> int | str:
    """A time as the host stores it (seconds unless the mapping declares otherwise)."""
    if timestamps is TimestampFormat.UNIX_MILLISECONDS:
        return seconds * 1000
    if timestamps is TimestampFormat.ISO_8601:
        return iso_time(seconds) or str(seconds)
    return seconds


def parse_line(text: str) -> ChatLine | MessageLine:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # read with surrogateescape: the bytes were not UTF-8
        raise ValueError("the line is not valid UTF-8") from None
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("a line must be a JSON object")
    kind = data.get("type")
    if kind == "chat":
        return structure(data, ChatLine, noun="field")
    if kind == "message":
        return structure(data, MessageLine, noun="field")
    raise ValueError('"type" must be "chat" or "message"')


class JsonLinesImporter:
    """chat-recall's JSON Lines: recognised by a first line that is a `chat` or
    `message` object; each file's lines go to the target as they are."""

    format: ClassVar[SourceFormat] = SourceFormat.JSONL

    def recognises(self, files: SourceFiles) -> bool:
        names = files.names()
        return bool(names) and all(
            _first_object_type(files, name) in ("chat", "message") for name in names
        )

    def read(self, files: SourceFiles) -> Iterator[ImportRecord]:
        names = files.names()
        for name in names:
            handle = files.open(name)
            text = io.TextIOWrapper(handle, encoding="utf-8", errors="surrogateescape")
            label = files.label if len(names) == 1 else f"{files.label}: {name}"
            try:
                yield HostRowLines(label, text, files.size(name))
            finally:
                text.close()


def _first_object_type(files: SourceFiles, name: str) -> object:
    with files.open(name) as handle:
        head = handle.read(SNIFF_BYTES)
    for line in head.decode("utf-8", "replace").splitlines():
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            return None
        return data.get("type") if isinstance(data, dict) else None
    return None
