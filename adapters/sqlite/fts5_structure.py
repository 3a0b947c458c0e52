"""What an FTS5 table's structure record says about merging: whether a `merge` command
would find work. The record (rowid 10 of the table's `_data` shadow table) lists the
segments level by level; FTS5's incremental merge continues a level's merge in progress,
or else merges the level with the most segments once it holds `usermerge` of them.

Format (SQLite's fts5_index.c): a 4-byte cookie, the 4 bytes `FF 00 00 01` in the
second version (which adds five varints per segment), then varints: the number of levels,
of segments, the write counter; then per level the number of its segments in a merge in
progress, its number of segments, and per segment its id and first and last page."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

STRUCTURE_ROWID = 10
USERMERGE = 4  # FTS5's default; our tables keep it
_VERSION_2 = b"\xff\x00\x00\x01"
_VERSION_2_SEGMENT_FIELDS = 5


@attrs.frozen
class Level:
    merging: int  # segments of this level in a merge in progress
    segments: int


class UnreadableStructure(ValueError):
    """A structure record this module cannot decode (damaged, or a later format)."""


def levels(record: bytes) -> list[Level]:
    reader = _Varints(record, 8 if record[4:8] == _VERSION_2 else 4)
    extra = _VERSION_2_SEGMENT_FIELDS if reader.position == 8 else 0
    count = reader.next()
    reader.next()  # segments in all levels
    reader.next()  # write counter
    found = []
    for _ in range(count):
        merging, segments = reader.next(), reader.next()
        for _ in range(segments * (3 + extra)):
            reader.next()
        found.append(Level(merging, segments))
    return found


def merge_left(record: bytes, usermerge: int = USERMERGE) -> bool:
    """Whether a `merge` command would merge something (an unreadable record: no)."""
    try:
        found = levels(record)
    except UnreadableStructure:
        return False
    return (
        any(level.merging for level in found)
        or max((level.segments for level in found), default=0) >= usermerge
    )


@attrs.define
class _Varints:
    data: Sequence[int]
    position: int

    def next(self) -> int:
        """SQLite's varint: 7 bits per byte, high bit set on all but the last; a ninth
        byte gives all 8 bits."""
        value = 0
        for _ in range(8):
            byte = self._byte()
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                return value
        return (value << 8) | self._byte()

    def _byte(self) -> int:
        if self.position >= len(self.data):
            raise UnreadableStructure("the structure record ends inside a value")
        self.position += 1
        return self.data[self.position - 1]
