"""The FTS5 structure record read as FTS5 writes it: levels, segments, merges in
progress, and whether a `merge` command would find work."""

from __future__ import annotations

import sqlite3

import pytest

from chat_recall.adapters.sqlite import fts5_structure
from chat_recall.adapters.sqlite.fts5_structure import Level, UnreadableStructure


def table(segments: int) -> sqlite3.Connection:
    """An FTS5 table without automatic merging, one segment per transaction."""
    connection = sqlite3.connect(":memory:", isolation_level=None)
    connection.execute("CREATE VIRTUAL TABLE f USING fts5(x)")
    connection.execute("INSERT INTO f(f, rank) VALUES ('automerge', 0)")
    for index in range(segments):
        connection.execute("INSERT INTO f(x) VALUES (?)", (f"word{index} common " * 2_000,))
    return connection


def record(connection: sqlite3.Connection) -> bytes:
    return bytes(connection.execute("SELECT block FROM f_data WHERE id = 10").fetchone()[0])


def test_segments_are_counted_level_by_level() -> None:
    connection = table(3)
    assert fts5_structure.levels(record(connection)) == [Level(merging=0, segments=3)]
    assert not fts5_structure.merge_left(record(connection))
    connection.execute("INSERT INTO f(x) VALUES ('one more')")
    assert fts5_structure.merge_left(record(connection))  # usermerge: 4 in a level


def test_a_merge_in_progress_is_work_left_and_a_finished_one_is_not() -> None:
    connection = table(4)
    connection.execute("INSERT INTO f(f, rank) VALUES ('merge', 2)")  # 2 pages: partial
    found = fts5_structure.levels(record(connection))
    assert found[0] == Level(merging=4, segments=4)
    assert fts5_structure.merge_left(record(connection))
    connection.execute("INSERT INTO f(f, rank) VALUES ('merge', 100000)")
    assert [level.segments for level in fts5_structure.levels(record(connection))] == [0, 1]
    assert not fts5_structure.merge_left(record(connection))


@pytest.mark.parametrize("cut", [5, 6, 9, 12])
def test_a_truncated_record_is_unreadable_and_never_reads_as_work_left(cut: int) -> None:
    truncated = record(table(4))[:cut]
    with pytest.raises(UnreadableStructure):
        fts5_structure.levels(truncated)
    assert not fts5_structure.merge_left(truncated)
