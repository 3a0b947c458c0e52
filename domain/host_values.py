"""Reading the host's values: timestamps in the declared format, text, and the reasons
a value cannot be read.

Every read path (indexing, read_chat, search's chat times) converts host values
through these functions, whatever the storage engine. A value that cannot be read
never raises out of a tool: for indexing it is a quarantine reason (the row is set
aside, every other row is indexed), for reading it is a safe value (`None` for a
time, a placeholder for a text).

Timestamps (`TimestampFormat`):
- `unix_seconds`, `unix_milliseconds`: a number, or text holding one (fractions are
  floored to the second).
- `iso_8601`: text as `datetime.fromisoformat` reads it (`2024-01-01T10:00:00Z`,
  `2024-01-01 10:00:00`, `2024-01-01`, with or without an offset); without an offset
  the time is UTC.
- `auto` (the default): a number (or numeric text) whose magnitude is at least
  `MILLISECONDS_FROM` (10^11) is milliseconds, any smaller one is seconds: 10^11 s is
  the year 5138, 10^11 ms is March 1973, so neither reading of a realistic timestamp
  is ambiguous. Other text is read as ISO 8601.

A time must fall within 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z; NULL is
`timestamp_missing`, a blob or text that fits no rule `timestamp_unparseable`.
"""

from __future__ import annotations

import datetime
import enum
import math

import attrs

# Bump when a conversion rule here changes what a stored value reads as: every message
# is then indexed again (see `domain.indexing.index_stamp`).
READER_VERSION = 1


class TimestampFormat(enum.Enum):
    """How a host stores its `created_at` values."""

    UNIX_SECONDS = "unix_seconds"
    UNIX_MILLISECONDS = "unix_milliseconds"
    ISO_8601 = "iso_8601"
    AUTO = "auto"


class UnreadableReason(enum.Enum):
    """Why a host row cannot be indexed (content-free: never the value itself)."""

    TIMESTAMP_MISSING = "timestamp_missing"
    TIMESTAMP_UNPARSEABLE = "timestamp_unparseable"
    TIMESTAMP_OUT_OF_RANGE = "timestamp_out_of_range"
    CONTENT_NOT_UTF8 = "content_not_utf8"
    CONTENT_NOT_TEXT = "content_not_text"
    TITLE_NOT_UTF8 = "title_not_utf8"
    TITLE_NOT_TEXT = "title_not_text"
    PROJECTION_FAILED = "projection_failed"
    READ_FAILED = "read_failed"
    INDEXING_FAILED = "indexing_failed"
    INDEX_DAMAGED = "index_damaged"

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    UnreadableReason.TIMESTAMP_MISSING: "its time is missing",
    UnreadableReason.TIMESTAMP_UNPARSEABLE: "its time is in no format the mapping declares",
    UnreadableReason.TIMESTAMP_OUT_OF_RANGE: "its time is outside the years 1 to 9999",
    UnreadableReason.CONTENT_NOT_UTF8: "its text is not valid UTF-8",
    UnreadableReason.CONTENT_NOT_TEXT: "its text is stored as a number or blob",
    UnreadableReason.TITLE_NOT_UTF8: "its chat title is not valid UTF-8",
    UnreadableReason.TITLE_NOT_TEXT: "its chat title is stored as a number or blob",
    UnreadableReason.PROJECTION_FAILED: "its text could not be projected",
    UnreadableReason.READ_FAILED: "its row could not be loaded",
    UnreadableReason.INDEXING_FAILED: "the index refused it",
    UnreadableReason.INDEX_DAMAGED: (
        "its app's index is damaged (`chat-recall rebuild` restores it)"
    ),
}


@attrs.frozen
class InvalidText:
    """A text value whose stored bytes are not valid in the database's encoding."""

    size: int


# read_chat never loads more of one stored text than its first READ_HEAD_BYTES and last
# READ_TAIL_BYTES: the adapters cut in the storage (SQLite: incremental blob reads), so a
# read's memory and time do not grow with the messages it reads. The read projection keeps
# far less of a message (a 32 KiB cap), so what a reader sees changes only for messages
# over READ_HEAD_BYTES + READ_TAIL_BYTES, and then only around the cut.
READ_HEAD_BYTES = 1 << 20
READ_TAIL_BYTES = 1 << 18


@attrs.frozen
class CutText:
    """A stored text too long to read whole: its first and last bytes as stored, in the
    database's encoding (`codec`, a Python codec name), and its size in bytes."""

    head: bytes
    tail: bytes
    size: int
    codec: str

    @classmethod
    def of(cls, value: HostValue) -> HostValue:
        """A whole value as `read_chat` sees it, for adapters that hold values in memory:
        a text over the read limit is cut exactly as the storage adapters cut it."""
        limit = READ_HEAD_BYTES + READ_TAIL_BYTES
        if not isinstance(value, str) or len(value) * 4 <= limit:
            return value  # four UTF-8 bytes per character at most
        stored = value.encode("utf-8", "surrogatepass")
        if len(stored) <= limit:
            return value
        return cls(stored[:READ_HEAD_BYTES], stored[-READ_TAIL_BYTES:], len(stored), "utf-8")

    def text(self) -> str:
        """Head and tail joined by the truncation marker. A character or a word the cut
        splits is dropped whole (no fragment of a credential is ever shown, and the
        redactor sees whole tokens); bytes that are invalid elsewhere are Unreadable."""
        from chat_recall.domain.projection.text import TRUNCATION_MARKER

        width = 2 if self.codec.startswith("utf-16") else 1
        head = _decode_prefix(self.head, self.codec)
        tail = _decode_suffix(self.tail, self.codec, width)
        cut = max(head.rfind(space) for space in _SPACES)
        start = min((i for i in (tail.find(space) for space in _SPACES) if i >= 0), default=-1)
        head = head[:cut] if cut >= 0 else ""
        tail = tail[start + 1 :] if start >= 0 else ""
        return head + TRUNCATION_MARKER + tail


_SPACES = (" ", "\n", "\t", "\r")


def _decode_prefix(head: bytes, codec: str) -> str:
    """The first bytes of a text, minus a character the cut splits at the end."""
    try:
        return head.decode(codec)
    except UnicodeDecodeError as error:
        if error.reason != "unexpected end of data":
            raise Unreadable(UnreadableReason.CONTENT_NOT_UTF8) from error
        return _decode_prefix(head[: error.start], codec)


def _decode_suffix(tail: bytes, codec: str, width: int) -> str:
    """The last bytes of a text, minus a character the cut splits at the start."""
    for skip in range(0, 4, width):
        try:
            return tail[skip:].decode(codec)
        except UnicodeDecodeError as error:
            if error.start > 0:
                raise Unreadable(UnreadableReason.CONTENT_NOT_UTF8) from error
    raise Unreadable(UnreadableReason.CONTENT_NOT_UTF8)


# A host value as an adapter hands it over, typed as the storage engine stored it.
HostValue = int | float | str | bytes | InvalidText | CutText | None

MILLISECONDS_FROM = 10**11
EARLIEST = datetime.datetime(1, 1, 1, tzinfo=datetime.UTC)
LATEST = datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=datetime.UTC)
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
MIN_SECONDS = int((EARLIEST - _EPOCH).total_seconds())
MAX_SECONDS = int((LATEST - _EPOCH).total_seconds())


class Unreadable(Exception):
    """A host value that cannot be read; `reason` says why."""

    def __init__(self, reason: UnreadableReason) -> None:
        super().__init__(reason.value)
        self.reason = reason


def unix_seconds(value: HostValue, timestamps: TimestampFormat) -> int:
    """A stored time as Unix seconds, or Unreadable."""
    if type(value) is int and timestamps is not TimestampFormat.ISO_8601:
        # The common case, a stored integer, without the conversions below.
        milliseconds = timestamps is TimestampFormat.UNIX_MILLISECONDS or (
            timestamps is TimestampFormat.AUTO and abs(value) >= MILLISECONDS_FROM
        )
        return _in_range(value // 1000 if milliseconds else value)
    if value is None:
        raise Unreadable(UnreadableReason.TIMESTAMP_MISSING)
    if isinstance(value, InvalidText | CutText | bytes):
        raise Unreadable(UnreadableReason.TIMESTAMP_UNPARSEABLE)
    number = _number(value)
    if timestamps is TimestampFormat.ISO_8601 or (
        number is None and timestamps is TimestampFormat.AUTO
    ):
        return _in_range(_iso_seconds(value))
    if number is None:
        raise Unreadable(UnreadableReason.TIMESTAMP_UNPARSEABLE)
    milliseconds = timestamps is TimestampFormat.UNIX_MILLISECONDS or (
        timestamps is TimestampFormat.AUTO and abs(number) >= MILLISECONDS_FROM
    )
    if isinstance(number, int):
        return _in_range(number // 1000 if milliseconds else number)
    return _in_range(math.floor(number / 1000 if milliseconds else number))


def safe_unix_seconds(value: HostValue, timestamps: TimestampFormat) -> int | None:
    """For reading: the time, or None when it cannot be read."""
    try:
        return unix_seconds(value, timestamps)
    except Unreadable:
        return None


def readable_number_ranges(timestamps: TimestampFormat) -> tuple[tuple[int, int], ...]:
    """The ranges of stored numbers that read as a time in range, for adapters that
    look for the latest readable time in storage (one greatest value per range: the
    greatest number overall may be one that cannot be read)."""
    seconds = (MIN_SECONDS, MAX_SECONDS)
    milliseconds = (MIN_SECONDS * 1000, MAX_SECONDS * 1000 + 999)
    if timestamps is TimestampFormat.UNIX_SECONDS:
        return (seconds,)
    if timestamps is TimestampFormat.UNIX_MILLISECONDS:
        return (milliseconds,)
    if timestamps is TimestampFormat.AUTO:
        return (
            (MIN_SECONDS, MILLISECONDS_FROM - 1),
            (MILLISECONDS_FROM, milliseconds[1]),
            (milliseconds[0], -MILLISECONDS_FROM),
        )
    return ()


def iso_time(seconds: int | None) -> str | None:
    """`2024-01-01T10:00:00.000Z`, or None for no time (or one out of range)."""
    if seconds is None or not MIN_SECONDS <= seconds <= MAX_SECONDS:
        return None
    m = _EPOCH + datetime.timedelta(seconds=seconds)
    return f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}.000Z"


def content_text(value: HostValue) -> str:
    """A message's text (NULL is empty), or Unreadable."""
    return _text(value, UnreadableReason.CONTENT_NOT_UTF8, UnreadableReason.CONTENT_NOT_TEXT)


def title_text(value: HostValue) -> str | None:
    """A chat's title (NULL is no title), or Unreadable."""
    if value is None:
        return None
    return _text(value, UnreadableReason.TITLE_NOT_UTF8, UnreadableReason.TITLE_NOT_TEXT)


def unreadable_placeholder(reason: UnreadableReason) -> str:
    """What a reader is shown instead of a value that cannot be read."""
    return f"[chat-recall cannot show this: {reason.description}]"


def _text(value: HostValue, invalid: UnreadableReason, wrong_type: UnreadableReason) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, CutText):
        return value.text()
    raise Unreadable(invalid if isinstance(value, InvalidText) else wrong_type)


def _number(value: int | float | str) -> float | int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Unreadable(UnreadableReason.TIMESTAMP_UNPARSEABLE)
        return value
    text = value.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    if not math.isfinite(number):
        return None
    return number


def _iso_seconds(value: int | float | str) -> int:
    if not isinstance(value, str):
        raise Unreadable(UnreadableReason.TIMESTAMP_UNPARSEABLE)
    try:
        moment = datetime.datetime.fromisoformat(value.strip())
    except ValueError as error:
        raise Unreadable(UnreadableReason.TIMESTAMP_UNPARSEABLE) from error
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    try:
        return math.floor((moment - _EPOCH).total_seconds())
    except OverflowError as error:  # an offset pushing the time past the years 1..9999
        raise Unreadable(UnreadableReason.TIMESTAMP_OUT_OF_RANGE) from error


def _in_range(seconds: int) -> int:
    if not MIN_SECONDS <= seconds <= MAX_SECONDS:
        raise Unreadable(UnreadableReason.TIMESTAMP_OUT_OF_RANGE)
    return seconds
