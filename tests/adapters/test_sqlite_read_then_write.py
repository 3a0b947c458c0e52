"""A batch's transaction reads before it takes the write lock
(`SqliteDatabase.read_then_write`): the host can write during those reads, and what it
commits then is never overwritten by what the batch read before it: SQLite refuses the
batch's first write, and the batch is read and written again under the lock."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite.unit_of_work import SqliteIndexUnitOfWork
from chat_recall.application.service import ChatRecall
from chat_recall.contracts.fixtures import APP, ASSISTANT, USER, seed_chat
from chat_recall.domain.model import MessageId


@pytest.fixture
def recall(tmp_path: Path) -> Iterator[ChatRecall]:
    with bootstrap.sqlite(tmp_path / "host.db", create_host_schema=True) as recall:
        yield recall


def host(recall: ChatRecall) -> sqlite3.Connection:
    """The host's own connection (another connection to the same file)."""
    path = recall.index.database.path  # type: ignore[attr-defined]
    return sqlite3.connect(path, isolation_level=None, timeout=0)


def documents(connection: sqlite3.Connection, message_id: MessageId) -> int:
    row = connection.execute(
        "SELECT count(*) FROM chat_recall_docs WHERE message_id = ?", (message_id,)
    ).fetchone()
    return int(row[0])


def host_writes_after_first_read(
    recall: ChatRecall, monkeypatch: pytest.MonkeyPatch, sql: str, parameters: tuple[object, ...]
) -> list[int]:
    """Make the host run `sql` right after a batch's first reads; the reads counted."""
    reads: list[int] = []
    read = SqliteIndexUnitOfWork._read

    def reading(self: SqliteIndexUnitOfWork, *arguments: object) -> object:
        found = read(self, *arguments)  # type: ignore[arg-type]
        reads.append(1)
        if len(reads) == 1:
            other = host(recall)
            other.execute(sql, parameters)
            other.close()
        return found

    monkeypatch.setattr(SqliteIndexUnitOfWork, "_read", reading)
    return reads


def test_the_batch_holds_no_write_lock_while_it_reads(
    recall: ChatRecall, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed_chat(recall.host, APP, "pears", [(USER, "pear one"), (ASSISTANT, "pear two")])
    taken: list[bool] = []
    read = SqliteIndexUnitOfWork._read

    def reading(self: SqliteIndexUnitOfWork, *arguments: object) -> object:
        found = read(self, *arguments)  # type: ignore[arg-type]
        other = host(recall)
        other.execute("BEGIN IMMEDIATE")  # no busy timeout: fails if the lock is held
        other.execute("ROLLBACK")
        other.close()
        taken.append(True)
        return found

    monkeypatch.setattr(SqliteIndexUnitOfWork, "_read", reading)
    report = recall.indexer.run_batch()
    assert report.indexed == 2
    assert taken


def test_a_message_the_host_deletes_between_the_reads_and_the_writes_is_never_indexed(
    recall: ChatRecall, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, (kept, deleted) = seed_chat(
        recall.host, APP, "plums", [(USER, "plum kept"), (ASSISTANT, "plum deleted")]
    )
    # the host deletes after the batch read the message
    reads = host_writes_after_first_read(
        recall, monkeypatch, "DELETE FROM messages WHERE id = ?", (deleted,)
    )
    recall.indexer.run_until_idle()
    assert len(reads) >= 2  # refused, then read again under the lock
    check = host(recall)
    assert documents(check, kept) == 1
    assert documents(check, deleted) == 0
    check.close()
    assert recall.index.document_ids(APP) == [kept]


def test_a_message_the_host_changes_between_the_reads_and_the_writes_is_indexed_as_changed(
    recall: ChatRecall, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, (changed,) = seed_chat(recall.host, APP, "figs", [(USER, "fig before")])
    host_writes_after_first_read(
        recall, monkeypatch, "UPDATE messages SET content = 'fig after' WHERE id = ?", (changed,)
    )
    recall.indexer.run_until_idle()
    [document] = recall.index.documents(APP, [changed])
    assert "after" in document.body
    assert "before" not in document.body


@pytest.mark.parametrize("host_writing", [False, True], ids=["quiet", "writing"])
def test_the_rest_is_waited_after_the_reads_only_while_the_host_is_quiet(
    tmp_path: Path, host_writing: bool
) -> None:
    """Quiet: the reads take no lock, so they run during the rest the last transaction
    earned, and only what is left of it is waited before the first write. Writing: the
    rest comes first, since a host commit during it would refuse the lock to writes
    that read before it."""
    from chat_recall.adapters.sqlite_host.database import SqliteDatabase

    database = SqliteDatabase(tmp_path / "d.db")
    steps: list[str] = []
    pacer = database.pacer
    pacer.sleep = lambda seconds: steps.append("rest")
    pacer.rule = attrs.evolve(pacer.rule, first_look_seconds=0.0, writing_seconds=60.0)
    with database.writing() as connection:
        connection.execute("CREATE TABLE t (x)")
    pacer._free_at = pacer.clock() + 60.0  # a rest is owed
    pacer._rest = 60.0
    if host_writing:
        pacer.host_wrote()
    database.read_then_write(
        lambda c: steps.append("read"),
        lambda c, _: steps.append("write") or c.execute("INSERT INTO t VALUES (1)"),
    )
    expected = ["rest", "read", "write"] if host_writing else ["read", "rest", "write"]
    assert steps == expected
    database.close()


def test_a_batch_is_sized_by_its_reads_too_not_only_by_the_lock(tmp_path: Path) -> None:
    """Reads outlasting the writes count as the transaction's time for its batch size:
    refused the lock, the batch is done again holding it for those reads, so a batch of
    long reads and short writes (a rebuild's unchanged documents) must not grow by its
    short hold alone. The rest still follows the lock alone."""
    from chat_recall.adapters.sqlite_host.database import SqliteDatabase

    database = SqliteDatabase(tmp_path / "d.db")
    with database.writing() as connection:
        connection.execute("CREATE TABLE t (x)")
    reading = 0.05  # a stand-in for many documents compared; no timing is awaited

    def reads(connection: sqlite3.Connection) -> None:
        connection.execute("SELECT count(*) FROM t").fetchone()
        time.sleep(reading)

    database.read_then_write(reads, lambda c, _: c.execute("INSERT INTO t VALUES (1)"))
    took = database.pacer.last_seconds()
    assert took is not None
    assert took >= reading
    database.close()
