"""The tantivy engine beyond the shared contracts: crash safety of grouped publishing,
stray documents, pending counts, and switching engines on one database."""

from __future__ import annotations

import contextlib
import gc
import json
import re
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import hypothesis
import pytest
import tantivy
from hypothesis import strategies as st

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.engines import Engine
from chat_recall.adapters.tantivy import engine, index_store
from chat_recall.adapters.tantivy.engine import (
    TantivyIndexes,
    engine_term,
    engine_terms,
    to_tantivy,
)
from chat_recall.adapters.tantivy.index_store import STAGED, TantivyIndexStore
from chat_recall.application.indexer import IndexerSettings
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.contracts.fixtures import APP, ASSISTANT, USER, seed_chat
from chat_recall.domain.errors import (
    IndexUnavailable,
    StorageDamaged,
    StorageError,
    TransactionOverTime,
)
from chat_recall.domain.indexing import build_document, plan_batch
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId, ChatId, IndexDocument, MessageId
from chat_recall.domain.pacing import PacingRule
from chat_recall.domain.query import MatchQuery, ScopedQuery
from chat_recall.domain.text.analysis import TextAnalysis
from chat_recall.domain.text.unicode61 import TOKEN_RUN_CHARACTER
from chat_recall.domain.text.unicode61_table import FOLDS


def open_tantivy(path: Path) -> ChatRecall:
    return bootstrap.sqlite(path, create_host_schema=True, engine=Engine.TANTIVY)


def store(recall: ChatRecall) -> TantivyIndexStore:
    assert isinstance(recall.index, TantivyIndexStore)
    return recall.index


def found(recall: ChatRecall, word: str, app_id: AppId = APP) -> list[MessageId]:
    query = ScopedQuery(MatchQuery.of_words(word), app_id)
    return [candidate.message_id for candidate in recall.index.search(query)]


def stage_one_batch(recall: ChatRecall) -> None:
    """What the indexer's batch does, without the maintenance step after it."""
    for chat in recall.dirty.pending_chats(100):
        recall.dirty.expand_chat(chat)
    markers = recall.dirty.pending_messages(100)
    rows = {row.message.id: row for row in recall.repo.source_rows([m.id for m in markers])}
    batch = plan_batch(markers, rows, recall.policy)
    with recall.unit_of_work.transaction() as writer:
        writer.remove(batch.deletes)
        writer.put(batch.upserts)
        writer.clear(batch.cleared)


def crash(recall: ChatRecall) -> None:
    """The process ends here: uncommitted tantivy changes and writers are gone, nothing
    is published, the database connections close."""
    indexes = store(recall).indexes
    with TantivyIndexes._registry_lock:
        TantivyIndexes._open.pop(indexes.root, None)
    indexes._writers.clear()
    indexes._indexes.clear()
    recall.indexer.stop()
    store(recall).database.close()
    gc.collect()


def staged_rows(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        return int(connection.execute(f"SELECT count(*) FROM {STAGED}").fetchone()[0])
    finally:
        connection.close()


def test_staged_documents_count_as_pending_until_published(tmp_path: Path) -> None:
    recall = open_tantivy(tmp_path / "h.db")
    _, (message_id,) = seed_chat(recall.host, APP, "c", [(USER, "pending kiwi")])
    stage_one_batch(recall)
    assert recall.dirty.pending_messages(10) == []  # the marker is cleared...
    assert recall.status(APP).state == "indexing"  # ...but nothing is searchable yet
    assert recall.dirty.backlog().messages == 1
    assert recall.dirty.backlog().to_index == 0  # pending for search, not to index again
    assert found(recall, "kiwi") == []
    recall.index.maintain()  # the queue is drained: publish now
    assert found(recall, "kiwi") == [message_id]
    assert recall.status(APP).state == "ready"
    recall.close()


def test_a_write_over_its_time_limit_is_rolled_back_whole(tmp_path: Path) -> None:
    recall = open_tantivy(tmp_path / "h.db")
    _, (message_id,) = seed_chat(recall.host, APP, "c", [(USER, "limited kiwi")])
    for chat in recall.dirty.pending_chats(10):
        recall.dirty.expand_chat(chat)
    markers = recall.dirty.pending_messages(10)
    rows = {row.message.id: row for row in recall.repo.source_rows([m.id for m in markers])}
    batch = plan_batch(markers, rows, recall.policy)

    def write_within_a_nanosecond() -> None:  # any transaction outlives it
        with recall.unit_of_work.transaction(time_limit_seconds=1e-9) as writer:
            writer.put(batch.upserts)
            writer.clear(batch.cleared)

    with pytest.raises(TransactionOverTime):
        write_within_a_nanosecond()
    assert [marker.id for marker in recall.dirty.pending_messages(10)] == [message_id]
    assert staged_rows(tmp_path / "h.db") == 0
    assert store(recall).indexes.pending == []  # nothing queued for tantivy either
    recall.close()


def test_batches_over_the_time_limit_are_written_in_halves(tmp_path: Path) -> None:
    settings = IndexerSettings(pacing=PacingRule(limit_seconds=1e-9))
    recall = bootstrap.sqlite(
        tmp_path / "h.db", create_host_schema=True, engine=Engine.TANTIVY, settings=settings
    )
    _, ids = seed_chat(recall.host, APP, "c", [(USER, f"halved kiwi {n}") for n in range(4)])
    report = recall.indexer.run_batch()
    assert report.over_time_limit  # every part of more than one message ran over
    assert report.indexed == 4  # and each message was written alone, without a limit
    recall.indexer.run_until_idle()
    assert sorted(found(recall, "kiwi")) == sorted(ids)
    recall.close()


def test_a_crash_before_the_tantivy_commit_loses_no_marker(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    _, ids = seed_chat(recall.host, APP, "c", [(USER, "mango one"), (ASSISTANT, "mango two")])
    stage_one_batch(recall)
    crash(recall)
    assert staged_rows(path) == 2
    restarted = open_tantivy(path)
    restarted.indexer.run_until_idle()
    assert sorted(found(restarted, "mango")) == ids
    assert restarted.dirty.backlog().is_empty
    assert staged_rows(path) == 0
    restarted.close()


def test_a_crash_after_the_commit_converges_without_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    _, (first,) = seed_chat(recall.host, APP, "c", [(USER, "papaya first")])
    recall.indexer.run_until_idle()
    recall.host.update_message(first, "papaya changed")
    stage_one_batch(recall)
    store(recall).indexes.commit()  # durable in tantivy, staged rows not yet deleted
    crash(recall)
    restarted = open_tantivy(path)
    restarted.indexer.run_until_idle()
    assert found(restarted, "papaya") == [first]
    assert found(restarted, "changed") == [first]
    assert found(restarted, "first") == []
    index = store(restarted).indexes.index(APP, create=False)
    assert index is not None
    assert index.searcher().num_docs == 1  # one document per message, no leftover
    restarted.close()


def test_a_publish_commits_in_the_background_while_batches_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While dirty markers are left, a due publish commits on a thread of its own and
    the indexer stages its next batches meanwhile; staged rows go only once the commit
    has returned, and a drained queue publishes the rest at once."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    store(recall).publish_seconds = 0.0
    _, first = seed_chat(recall.host, APP, "c", [(USER, "quince one")])
    stage_one_batch(recall)
    _, second = seed_chat(recall.host, APP, "d", [(USER, "quince two")])
    began, release = threading.Event(), threading.Event()
    commit = engine.commit_writers

    def held(writers: list[tuple[AppId, object]]) -> list[tuple[AppId, StorageError]]:
        began.set()
        release.wait(30)
        return commit(writers)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "commit_writers", held)
    recall.index.maintain()  # due, and markers are left: committed in the background
    assert began.wait(30)
    stage_one_batch(recall)  # the next batch is staged while the commit runs
    seed_chat(recall.host, APP, "e", [(USER, "quince three")])
    recall.index.maintain()  # markers left: returns without waiting for the commit
    assert store(recall).indexes.committing is not None
    assert staged_rows(path) == 2  # nothing is published before the commit returned
    assert found(recall, "quince") == []
    assert recall.status(APP).state == "indexing"
    release.set()
    recall.indexer.run_until_idle()
    assert len(found(recall, "quince")) == 3
    assert set(first + second) <= set(found(recall, "quince"))
    assert staged_rows(path) == 0
    assert recall.dirty.backlog().is_empty
    recall.close()


def test_changes_waiting_for_a_background_commit_are_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Changes queue in memory while a commit runs; at PENDING_LIMIT of them the next
    step waits for the commit and gives them to the writers (memory stays bounded)."""
    recall = open_tantivy(tmp_path / "h.db")
    store(recall).publish_seconds = 0.0
    monkeypatch.setattr(index_store, "PENDING_LIMIT", 2)
    seed_chat(recall.host, APP, "c", [(USER, "pear one")])
    stage_one_batch(recall)
    seed_chat(recall.host, APP, "d", [(USER, "pear two")])
    release = threading.Event()
    commit, wait = engine.commit_writers, engine.BackgroundCommit.wait

    def held(writers: list[tuple[AppId, object]]) -> list[tuple[AppId, StorageError]]:
        release.wait(30)
        return commit(writers)  # type: ignore[arg-type]

    def waited(self: engine.BackgroundCommit) -> list[tuple[AppId, StorageError]]:
        release.set()  # the commit returns only once a step waits for it
        return wait(self)

    monkeypatch.setattr(engine, "commit_writers", held)
    monkeypatch.setattr(engine.BackgroundCommit, "wait", waited)
    recall.index.maintain()  # the commit starts in the background
    stage_one_batch(recall)  # one change queued: under the limit
    seed_chat(recall.host, APP, "e", [(USER, "pear three")])
    recall.index.maintain()
    assert store(recall).indexes.committing is not None  # not waited for
    assert len(store(recall).indexes.pending) == 1
    stage_one_batch(recall)  # two changes queued: the limit
    seed_chat(recall.host, APP, "f", [(USER, "pear four")])
    recall.index.maintain()  # waits for the commit, applies them, starts the next
    assert release.is_set()
    assert store(recall).indexes.pending == []
    recall.indexer.run_until_idle()
    assert len(found(recall, "pear")) == 4
    recall.close()


def test_a_failed_background_commit_marks_its_messages_dirty_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    store(recall).publish_seconds = 0.0
    _, (first,) = seed_chat(recall.host, APP, "c", [(USER, "plum one")])
    stage_one_batch(recall)
    _, (second,) = seed_chat(recall.host, APP, "d", [(USER, "plum two")])

    def failing(writers: object) -> None:
        raise StorageError("the disk is full")

    monkeypatch.setattr(engine, "commit_writers", failing)
    recall.index.maintain()  # starts the commit in the background
    assert store(recall).indexes.committing is not None
    with pytest.raises(StorageError, match="disk is full"):
        store(recall).publish()  # what ends it says it failed
    assert first in {marker.id for marker in recall.dirty.pending_messages(10)}
    monkeypatch.undo()
    recall.indexer.run_until_idle()
    assert sorted(found(recall, "plum")) == sorted([first, second])
    assert staged_rows(path) == 0
    recall.close()


def test_closing_ends_a_background_commit_and_publishes(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    store(recall).publish_seconds = 0.0
    _, (message_id,) = seed_chat(recall.host, APP, "c", [(USER, "guava")])
    stage_one_batch(recall)
    seed_chat(recall.host, APP, "d", [(USER, "later")])
    recall.index.maintain()  # committed in the background
    assert store(recall).indexes.committing is not None
    recall.close()
    assert staged_rows(path) == 0
    reopened = open_tantivy(path)
    assert found(reopened, "guava") == [message_id]
    reopened.close()


def test_a_publish_deletes_staged_rows_in_bounded_transactions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However much a publish covers, each of its transactions deletes at most
    FORGET_PER_TRANSACTION staged rows (a host writer waits for one at most)."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    seed_chat(recall.host, APP, "c", [(USER, f"lemon {n}") for n in range(5)])
    stage_one_batch(recall)
    monkeypatch.setattr(index_store, "FORGET_PER_TRANSACTION", 2)
    left: list[int] = []
    writing = SqliteDatabase.writing

    @contextlib.contextmanager
    def counted(self: SqliteDatabase, **limits: float) -> Iterator[sqlite3.Connection]:
        with writing(self, **limits) as connection:
            yield connection
        left.append(staged_rows(path))

    monkeypatch.setattr(SqliteDatabase, "writing", counted)
    store(recall).publish()
    assert left == [3, 1, 0]
    monkeypatch.undo()
    assert len(found(recall, "lemon")) == 5
    recall.close()


def test_recovery_marks_staged_messages_dirty_in_bounded_transactions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    _, ids = seed_chat(recall.host, APP, "c", [(USER, f"melon {n}") for n in range(5)])
    stage_one_batch(recall)
    crash(recall)
    monkeypatch.setattr(index_store, "FORGET_PER_TRANSACTION", 2)
    restarted = open_tantivy(path)
    marked: list[int] = []
    writing = SqliteDatabase.writing

    @contextlib.contextmanager
    def counted(self: SqliteDatabase, **limits: float) -> Iterator[sqlite3.Connection]:
        with writing(self, **limits) as connection:
            yield connection
        marked.append(len(restarted.dirty.pending_messages(100)))

    monkeypatch.setattr(SqliteDatabase, "writing", counted)
    assert store(restarted).recover() == 5
    assert marked == [2, 4, 5]
    monkeypatch.undo()
    restarted.indexer.run_until_idle()
    assert sorted(found(restarted, "melon")) == ids
    assert staged_rows(path) == 0
    restarted.close()


def test_host_deletes_vanish_at_once_even_while_staged(tmp_path: Path) -> None:
    recall = open_tantivy(tmp_path / "h.db")
    _, (kept, deleted) = seed_chat(recall.host, APP, "c", [(USER, "fig"), (USER, "fig fig")])
    recall.indexer.run_until_idle()
    recall.host.update_message(kept, "fig again")
    stage_one_batch(recall)
    recall.host.delete_message(deleted)
    assert found(recall, "fig") == []  # the edit is staged: not returned until published
    recall.indexer.run_until_idle()
    assert found(recall, "fig") == [kept]
    assert recall.index.stats(APP).unreclaimed == 0
    recall.close()


def test_an_id_the_host_deleted_and_used_again_never_returns_the_deleted_text(
    tmp_path: Path,
) -> None:
    """The metadata row is the new message's as soon as its batch commits, while the
    published tantivy document still holds the deleted text: staged messages are left
    out of search and documents until their publish, and after a crash until recovery."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    chat_id, (message_id,) = seed_chat(recall.host, APP, "c", [(USER, "melanoma diagnosis")])
    recall.indexer.run_until_idle()
    assert found(recall, "melanoma") == [message_id]
    recall.host.delete_message(message_id)
    recall.host.add_message(chat_id, Role.USER, "harmless", 1_800_000_000, message_id=message_id)
    stage_one_batch(recall)
    assert found(recall, "melanoma") == []
    assert recall.index.documents(APP, [message_id]) == []
    crash(recall)
    reader = open_tantivy(path)  # another process, before any indexer recovers
    assert found(reader, "melanoma") == []
    assert reader.index.documents(APP, [message_id]) == []
    reader.indexer.run_until_idle()
    assert found(reader, "melanoma") == []
    assert found(reader, "harmless") == [message_id]
    reader.close()


def test_a_commit_that_fails_is_a_storage_error_and_the_next_batch_recovers(
    tmp_path: Path,
) -> None:
    """The index directory vanished under a running engine (an admin's clean-up):
    the commit fails, and the writers' rollback then panics in tantivy, a pyo3
    PanicException that `except Exception` misses (the indexer's thread died with it
    and `close()` raised it to the host). It is a StorageError; the retry indexes."""
    recall = open_tantivy(tmp_path / "h.db")
    chat_id, _ = seed_chat(recall.host, APP, "c", [(USER, "one")])
    recall.indexer.run_until_idle()
    shutil.rmtree(store(recall).indexes.root)
    message_id = recall.host.add_message(chat_id, Role.USER, "narwhal", 1_800_000_000)
    with pytest.raises(StorageError, match="tantivy commit of app"):
        recall.indexer.run_batch()
    recall.indexer.run_until_idle()
    assert found(recall, "narwhal") == [message_id]
    recall.close()


def test_a_lone_host_edit_is_published_once_the_host_is_quiet(tmp_path: Path) -> None:
    """The background indexer defers its maintenance step, where tantivy publishes,
    while the host writes; it came back for it only after `maintain_every_seconds`
    (5 s), so one edit took 5.4 s to become searchable. It comes back once the host is
    quiet (`quiet_seconds`, 0.5 s)."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    _, (message_id,) = seed_chat(recall.host, APP, "c", [(USER, "first words")])
    recall.start()
    assert recall.wait_until_indexed(timeout=30)
    host = sqlite3.connect(path)
    host.execute("UPDATE messages SET content = 'quokka' WHERE id = ?", (message_id,))
    host.commit()
    recall.notify()
    deadline = time.monotonic() + 3.0  # 5 s and more before
    while found(recall, "quokka") != [message_id]:
        assert time.monotonic() < deadline, "the edit was not published within 3 s"
        time.sleep(0.02)  # poll; the bound is the deadline
    # wait_until_indexed returned False at once: idle, with the edit staged
    host.execute("UPDATE messages SET content = 'wombat' WHERE id = ?", (message_id,))
    host.commit()
    host.close()
    recall.notify()
    assert recall.wait_until_indexed(timeout=3.0)
    assert found(recall, "wombat") == [message_id]
    recall.close()


def _damage(directory: Path, case: str) -> None:
    files = sorted(p for p in directory.iterdir() if p.is_file())
    if case == "directory removed":
        shutil.rmtree(directory)
    elif case == "meta.json removed":
        (directory / "meta.json").unlink()
    elif case == "meta.json junk":
        (directory / "meta.json").write_text("junk{{{")
    elif case == "term file junk":
        term = next(p for p in files if p.suffix == ".term")
        term.write_bytes(bytes(range(256)) * (term.stat().st_size // 256 + 1))
    else:
        next(p for p in files if p.suffix == ".store").unlink()


@pytest.mark.parametrize(
    "case",
    [
        "directory removed",
        "meta.json removed",
        "meta.json junk",
        "term file junk",
        "store file removed",
    ],
)
def test_a_damaged_tantivy_index_is_reported_and_rebuilt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    """status said healthy for every kind of damage (it checked the FTS5 tables only),
    and search answered `ready` with no result when the index was gone."""
    from chat_recall.adapters.cli.exits import Exit
    from chat_recall.adapters.cli.main import main

    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    seed_chat(recall.host, APP, "c", [(USER, "mango"), (ASSISTANT, "mango too")])
    seed_chat(recall.host, AppId(2), "d", [(USER, "mango elsewhere")])
    recall.indexer.run_until_idle()
    root = store(recall).indexes.root
    recall.close()
    _damage(root / "app-1", case)
    assert main(["status", "--db", str(path), "--format", "json"]) == Exit.UNHEALTHY
    status = json.loads(capsys.readouterr().out)
    (problem,) = status["problems"]
    assert problem.startswith("app 1: the tantivy index")
    reader = bootstrap.sqlite(path, install=False)
    (finding,) = [f for f in reader.check(deep=True) if not f.ok]
    assert (finding.subject, finding.fix) == ("app 1", "rebuild")
    with pytest.raises(IndexUnavailable):
        reader.index.search(ScopedQuery(MatchQuery.of_words("mango"), APP))
    assert len(found(reader, "mango", AppId(2))) == 1  # the other app is served
    reader.close()
    assert main(["rebuild", "--db", str(path), "--quiet"]) == Exit.OK
    assert main(["status", "--db", str(path), "--format", "json"]) == Exit.OK
    capsys.readouterr()
    rebuilt = bootstrap.sqlite(path, install=False)
    assert len(found(rebuilt, "mango")) == 2
    rebuilt.close()


def test_one_damaged_app_index_does_not_stop_the_others_indexing(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    seed_chat(recall.host, APP, "c", [(USER, "mango")])
    other, _ = seed_chat(recall.host, AppId(2), "d", [(USER, "mango elsewhere")])
    recall.indexer.run_until_idle()
    root = store(recall).indexes.root
    recall.close()
    _damage(root / "app-1", "meta.json junk")
    restarted = open_tantivy(path)  # its start-up checks every app's index
    later = restarted.host.add_message(other, Role.USER, "papaya", 1_800_000_000)
    restarted.indexer.run_until_idle()
    assert found(restarted, "papaya", AppId(2)) == [later]
    restarted.close()


def test_an_index_damaged_under_a_running_library_is_a_typed_error_with_its_fix(
    tmp_path: Path,
) -> None:
    """A term file damaged while the library ran: the reload after the next commit
    raised tantivy's bare ValueError from the indexer and from `close()`."""
    from chat_recall.adapters.cli.exits import Exit
    from chat_recall.adapters.cli.main import main

    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    chat, _ = seed_chat(recall.host, APP, "c", [(USER, "mango")])
    recall.indexer.run_until_idle()
    _damage(store(recall).indexes.root / "app-1", "term file junk")
    recall.host.add_message(chat, Role.USER, "papaya", 1_800_000_000)
    with pytest.raises(StorageDamaged, match="rebuild"):
        recall.indexer.run_until_idle()
    recall.close()  # nothing raised
    assert main(["rebuild", "--db", str(path), "--quiet"]) == Exit.OK
    rebuilt = bootstrap.sqlite(path, install=False)
    assert len(found(rebuilt, "papaya")) == 1
    rebuilt.close()


def _block(directory: Path) -> None:
    """A file where an app's index directory was: every write to that index fails,
    and so does opening it again."""
    shutil.rmtree(directory)
    directory.write_text("not a directory")


def _block_for_now(recall: ChatRecall) -> Callable[[], None]:
    """A file where app 1's index directory was, the directory kept; the call returned
    puts it back (whole again, without a rebuild)."""
    directory = store(recall).indexes.root / "app-1"
    saved = directory.with_name("app-1.saved")
    directory.rename(saved)
    directory.write_text("not a directory")

    def restore() -> None:
        directory.unlink()
        saved.rename(directory)

    return restore


def _quarantined(recall: ChatRecall) -> dict[MessageId, str]:
    return {row.message_id: row.reason.value for row in recall.index.quarantine(10).rows}


def _app_1_blocked_after_a_message_each(
    recall: ChatRecall,
) -> tuple[ChatId, MessageId, MessageId]:
    """Apps 1 and 2 indexed, app 1's index blocked (`_block`), then a new message in
    each: (app 2's chat, app 1's new message, app 2's new message)."""
    first, _ = seed_chat(recall.host, APP, "c", [(USER, "mango")])
    second, _ = seed_chat(recall.host, AppId(2), "d", [(USER, "mango elsewhere")])
    recall.indexer.run_until_idle()
    _block(store(recall).indexes.root / "app-1")
    aside = recall.host.add_message(first, Role.USER, "papaya one", 1_800_000_000)
    kept = recall.host.add_message(second, Role.USER, "papaya two", 1_800_000_000)
    return second, aside, kept


def _published_beside(recall: ChatRecall, kept: MessageId, aside: MessageId) -> None:
    """App 2's new message is searchable, app 1's quarantined, nothing left pending."""
    assert found(recall, "papaya", AppId(2)) == [kept]
    assert _quarantined(recall) == {aside: "index_damaged"}
    assert recall.dirty.backlog().is_empty


def test_an_app_whose_index_fails_under_a_running_library_is_set_aside(tmp_path: Path) -> None:
    """One app's index could not be written while the library ran. Before, its failed
    commit marked every staged message of every app dirty again, and the next attempt
    failed opening that index with an error that skipped this, so the other app's new
    message was dropped by the next publish: never searchable, while the backlog said
    done. Now that app is set aside, its new message quarantined (`index_damaged`),
    and the other app's is published; `rebuild` restores the app."""
    from chat_recall.adapters.cli.exits import Exit
    from chat_recall.adapters.cli.main import main

    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    second, aside, kept = _app_1_blocked_after_a_message_each(recall)
    recall.indexer.run_until_idle()
    _published_beside(recall, kept, aside)
    assert staged_rows(path) == 0
    later = recall.host.add_message(second, Role.USER, "papaya three", 1_800_000_001)
    recall.indexer.run_until_idle()  # the app stays aside: no failed attempt, no error
    assert sorted(found(recall, "papaya", AppId(2))) == sorted([kept, later])
    assert recall.health.snapshot().total_failures == 0
    recall.close()
    (store(recall).indexes.root / "app-1").unlink()
    assert main(["rebuild", "--db", str(path), "--quiet"]) == Exit.OK
    rebuilt = bootstrap.sqlite(path, install=False)
    assert found(rebuilt, "papaya") == [aside]
    assert _quarantined(rebuilt) == {}
    rebuilt.close()


def test_a_background_commit_failing_for_one_app_publishes_the_others(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    store(recall).publish_seconds = 0.0
    second, aside, kept = _app_1_blocked_after_a_message_each(recall)
    stage_one_batch(recall)
    recall.host.add_message(second, Role.USER, "quince", 1_800_000_001)
    recall.index.maintain()  # a marker is left: the commit runs in the background
    assert store(recall).indexes.committing is not None
    recall.indexer.run_until_idle()
    _published_beside(recall, kept, aside)
    assert staged_rows(path) == 0
    recall.close()


def test_a_failure_of_the_only_app_written_is_raised_and_loses_no_message(
    tmp_path: Path,
) -> None:
    """When no app's index takes the changes, the failure is not about one app: it is
    raised and every staged message is marked dirty again. Opening the index failed
    with IndexUnavailable, which skipped that: the next publish dropped the message."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    chat, _ = seed_chat(recall.host, APP, "c", [(USER, "mango")])
    recall.indexer.run_until_idle()
    blocked = store(recall).indexes.root / "app-1"
    _block(blocked)
    message = recall.host.add_message(chat, Role.USER, "papaya", 1_800_000_000)
    for _ in range(3):  # the commit, then opening the index again, fail
        with pytest.raises(StorageError, match="app 1"):
            recall.indexer.run_batch()
        assert recall.dirty.backlog().messages == 1
    assert store(recall).indexes.set_aside == set()
    blocked.unlink()  # whatever was in the way is gone: the next batch succeeds
    recall.indexer.run_until_idle()
    assert found(recall, "papaya") == [message]
    recall.close()


def test_an_app_set_aside_before_a_publish_loses_no_message(tmp_path: Path) -> None:
    """Set aside while its changes waited for the writers (no publish yet), then its
    directory came back: the message is quarantined, not dropped by the next publish
    (a red-team found it dropped when the set-aside ended in between)."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    first, _ = seed_chat(recall.host, APP, "c", [(USER, "mango")])
    second, _ = seed_chat(recall.host, AppId(2), "d", [(USER, "mango elsewhere")])
    recall.indexer.run_until_idle()
    recall.host.add_message(second, Role.USER, "kiwi", 1_700_000_000)
    recall.indexer.run_until_idle()  # app 1's writer is closed by this publish
    indexes = store(recall).indexes
    store(recall).publish_seconds = 3_600.0
    restore = _block_for_now(recall)
    aside = recall.host.add_message(first, Role.USER, "papaya one", 1_800_000_000)
    kept = recall.host.add_message(second, Role.USER, "papaya two", 1_800_000_000)
    stage_one_batch(recall)
    recall.host.add_message(second, Role.USER, "quince", 1_800_000_001)
    recall.index.maintain()  # app 1 fails to open: set aside, nothing published yet
    assert indexes.set_aside == {APP}
    restore()
    recall.indexer.run_until_idle()
    _published_beside(recall, kept, aside)
    recall.close()


def test_deletes_and_edits_made_while_an_app_was_aside_never_come_back(tmp_path: Path) -> None:
    """An app set aside stays aside for the life of the process: its deletes and edits
    are not applied to its index meanwhile. Tried again in place, a red-team found an
    edited message's old text and a deleted one's matching again; the next process
    starts with a sweep of the documents nothing knows (`remove_orphans`)."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    first, (edited, deleted) = seed_chat(
        recall.host, APP, "c", [(USER, "appendix surgery"), (USER, "melanoma diagnosis")]
    )
    second, _ = seed_chat(recall.host, AppId(2), "d", [(USER, "mango elsewhere")])
    recall.indexer.run_until_idle()
    recall.host.add_message(second, Role.USER, "kiwi", 1_700_000_000)
    recall.indexer.run_until_idle()  # app 1's writer is closed by this publish
    indexes = store(recall).indexes
    restore = _block_for_now(recall)
    recall.host.add_message(first, Role.USER, "papaya one", 1_800_000_000)
    recall.host.add_message(second, Role.USER, "papaya two", 1_800_000_000)
    recall.indexer.run_until_idle()
    assert indexes.set_aside == {APP}
    recall.host.delete_message(deleted)
    recall.host.update_message(edited, "harmless edit")
    recall.indexer.run_until_idle()
    restore()
    recall.host.update_message(edited, "harmless edit again")
    recall.indexer.run_until_idle()
    assert indexes.set_aside == {APP}  # still aside in this process
    assert found(recall, "appendix") == []
    assert found(recall, "melanoma") == []
    recall.close()
    restarted = open_tantivy(path)
    reused = restarted.host.add_message(
        first, Role.USER, "harmless new", 1_800_000_003, message_id=deleted
    )
    restarted.host.update_message(edited, "harmless edit once more")
    restarted.indexer.run_until_idle()
    assert found(restarted, "appendix") == []
    assert found(restarted, "melanoma") == []
    assert sorted(found(restarted, "harmless")) == sorted([edited, reused])
    restarted.close()


def test_recovery_after_a_crash_with_one_app_damaged_loses_no_message(tmp_path: Path) -> None:
    """Recovery deletes the staged messages from their apps' indexes, then marks them
    dirty: a damaged app failed the deletes, the marking was skipped, and the next
    publish dropped the other app's staged message (a red-team's case, older than the
    set-aside)."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    first, _ = seed_chat(recall.host, APP, "c", [(USER, "mango")])
    second, _ = seed_chat(recall.host, AppId(2), "d", [(USER, "mango elsewhere")])
    recall.indexer.run_until_idle()
    root = store(recall).indexes.root
    aside = recall.host.add_message(first, Role.USER, "papaya one", 1_800_000_000)
    kept = recall.host.add_message(second, Role.USER, "papaya two", 1_800_000_000)
    stage_one_batch(recall)
    crash(recall)
    _damage(root / "app-1", "meta.json junk")
    restarted = open_tantivy(path)
    restarted.indexer.run_until_idle()
    _published_beside(restarted, kept, aside)
    restarted.close()


def test_other_entries_beside_the_app_indexes_are_left_alone(tmp_path: Path) -> None:
    """A copy of an app's index (`app-1.bak`) or a file the system left made every
    start-up sweep fail on the name: no app was indexed (a red-team's fuzzer)."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    chat, _ = seed_chat(recall.host, APP, "c", [(USER, "mango")])
    seed_chat(recall.host, AppId(-4), "n", [(USER, "mango below zero")])
    recall.indexer.run_until_idle()
    root = store(recall).indexes.root
    recall.close()
    shutil.copytree(root / "app-1", root / "app-1.bak")
    (root / ".DS_Store").write_text("x")
    restarted = open_tantivy(path)
    assert store(restarted).indexes.apps_on_disk() == [AppId(-4), APP]
    later = restarted.host.add_message(chat, Role.USER, "papaya", 1_800_000_000)
    restarted.indexer.run_until_idle()
    assert found(restarted, "papaya") == [later]
    assert len(found(restarted, "mango", AppId(-4))) == 1
    restarted.close()


def test_documents_the_database_does_not_know_are_removed(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    _, (message_id,) = seed_chat(recall.host, APP, "c", [(USER, "lime")])
    recall.indexer.run_until_idle()
    rows = recall.repo.source_rows([message_id])
    document = build_document(rows[0], recall.policy)
    assert document is not None
    stray = MessageId(777_777)
    indexes = store(recall).indexes
    writer = indexes.writer(APP)
    writer.add_document(
        to_tantivy(attrs.evolve(document, message_id=stray), store(recall).analysis)
    )
    indexes.uncommitted.add(APP)
    indexes.commit()
    assert recall.index.remove_orphans() == 1
    index = indexes.index(APP, create=False)
    assert index is not None
    assert index.searcher().num_docs == 1
    recall.close()


def test_switching_engines_reindexes_and_answers_alike(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)
    seed_chat(recall.host, APP, "Auth", [(USER, "sessions or jwt?"), (ASSISTANT, "sessions")])
    recall.indexer.run_until_idle()
    on_sqlite = recall.search_chats(CallContext(APP), {"query": "sessions"})
    recall.close()
    switched = open_tantivy(path)
    assert switched.status(APP).state == "ready"  # nothing marked before the indexer starts
    switched.indexer.run_until_idle()
    assert switched.search_chats(CallContext(APP), {"query": "sessions"}) == on_sqlite
    # a second process opening it the README's way keeps the engine it was built with
    # (the default once switched it, deleting the tantivy directory under the server)
    second = bootstrap.sqlite(path)
    assert isinstance(second.index, TantivyIndexStore)
    assert second.search_chats(CallContext(APP), {"query": "sessions"}) == on_sqlite
    second.close()
    assert switched.search_chats(CallContext(APP), {"query": "sessions"}) == on_sqlite
    switched.close()
    back = bootstrap.sqlite(path, engine=Engine.SQLITE)
    back.indexer.run_until_idle()
    assert back.search_chats(CallContext(APP), {"query": "sessions"}) == on_sqlite
    back.close()


def _add(indexes: TantivyIndexes, app_id: int, message_id: int) -> None:
    document = IndexDocument(
        MessageId(message_id), ChatId(1), AppId(app_id), Role.USER, 0, False, False, "", "kiwi"
    )
    indexes.writer(AppId(app_id)).add_document(to_tantivy(document, TextAnalysis.default()))
    indexes.uncommitted.add(AppId(app_id))


def test_a_commit_closes_the_writers_it_found_nothing_to_commit_in(tmp_path: Path) -> None:
    """A writer keeps its threads' memory while open: an app not written since the last
    publish gives its writer up (another indexer could take it), the others keep it."""
    indexes, other_process = TantivyIndexes(tmp_path), TantivyIndexes(tmp_path)
    _add(indexes, 1, 1)
    _add(indexes, 2, 2)
    indexes.commit()
    for app_id in (1, 2):  # both were written since the last publish: still held
        with pytest.raises(StorageError):
            other_process.writer(AppId(app_id))
    _add(indexes, 2, 3)
    indexes.commit()
    other_process.writer(AppId(1))  # idle for a publish: given up
    with pytest.raises(StorageError):
        other_process.writer(AppId(2))
    _add(indexes, 2, 4)  # the app still written keeps working on the writer it holds
    indexes.commit()
    searcher = indexes.index(AppId(2), create=False).searcher()  # type: ignore[union-attr]
    assert searcher.num_docs == 3


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_engine_terms_are_the_analysis_terms(text: str) -> None:
    for analysis in (TextAnalysis.default(), TextAnalysis.plain()):
        expected = " ".join(engine_term(term) for term in analysis.terms(text))
        assert engine_terms(text, analysis) == expected


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_engine_terms_of_ascii_text_are_the_analysis_terms(text: str) -> None:
    """ASCII text takes a path of its own in `engine_terms` (no expression)."""
    for analysis in (TextAnalysis.default(), TextAnalysis.plain()):
        expected = " ".join(engine_term(term) for term in analysis.terms(text))
        assert engine_terms(text, analysis) == expected


def test_a_document_has_the_terms_of_its_own_title() -> None:
    """Titles are remembered from one document to the next (a chat's messages share
    one): a new title, or one seen before the last, gets its own terms."""
    analysis = TextAnalysis.default()
    documents = [
        IndexDocument(MessageId(i), ChatId(i), APP, Role.USER, 0, False, False, title, "x")
        for i, title in enumerate(["Running tests", "Running tests", "Café", "Running tests"])
    ]
    for document in documents:
        converted = to_tantivy(document, analysis)
        assert converted.get_first("title") == engine_terms(document.title, analysis)
    assert to_tantivy(documents[2], analysis).get_first("title") == "cafe"


def test_every_fold_maps_a_token_character_to_token_characters() -> None:
    token = re.compile(TOKEN_RUN_CHARACTER)
    assert not token.fullmatch(" ")
    for point, folded in FOLDS.items():
        assert token.fullmatch(chr(point))
        assert all(token.fullmatch(character) for character in folded)


def test_a_term_tantivy_cannot_hold_is_escaped_alike_in_documents_and_queries() -> None:
    odd = "caf\udcc3"  # a stem ending inside a multi-byte character
    assert engine_term(odd) == "\ue000" + odd.encode("utf-8", "surrogateescape").hex()
    assert engine_term("café") == "café"


def seed_apps(recall: ChatRecall, apps: int) -> dict[AppId, list[MessageId]]:
    """A chat of three messages in each of apps 1 to `apps`."""
    return {
        AppId(app): seed_chat(
            recall.host, AppId(app), "c", [(USER, f"plum {app} {n}") for n in range(3)]
        )[1]
        for app in range(1, apps + 1)
    }


def count_open_writers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many writers were open after each `TantivyIndexes.writer` call."""
    opened: list[int] = []
    writer = TantivyIndexes.writer

    def counted(self: TantivyIndexes, app_id: AppId) -> object:
        made = writer(self, app_id)
        opened.append(len(self.writer_apps()))
        return made

    monkeypatch.setattr(TantivyIndexes, "writer", counted)
    return opened


def test_writers_open_at_once_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Changes for more apps than MAX_OPEN_WRITERS are given to the writers app by app,
    the open ones committed and closed before more open (each takes memory)."""
    monkeypatch.setattr(index_store, "MAX_OPEN_WRITERS", 2)
    recall = open_tantivy(tmp_path / "h.db")
    ids = seed_apps(recall, 5)
    opened = count_open_writers(monkeypatch)
    recall.indexer.run_until_idle()
    assert max(opened) == 2
    for app_id, messages in ids.items():
        assert sorted(found(recall, "plum", app_id)) == messages
    assert staged_rows(tmp_path / "h.db") == 0
    recall.close()


def test_a_crash_after_writers_were_committed_early_indexes_each_message_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_store, "MAX_OPEN_WRITERS", 2)
    monkeypatch.setattr(index_store, "PENDING_LIMIT", 1)  # applied at once
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    store(recall).publish_seconds = 3600.0  # no publish
    ids = seed_apps(recall, 5)
    stage_one_batch(recall)
    _, (late,) = seed_chat(recall.host, APP, "late", [(USER, "plum late")])  # not drained
    opened = count_open_writers(monkeypatch)
    recall.index.maintain()  # apps 1-2 committed before app 3 opens, 3-4 before 5
    assert max(opened) == 2
    committed = tantivy.Index.open(str(engine.app_directory(store(recall).indexes.root, APP)))
    assert committed.searcher().num_docs == 3  # durable, yet hidden: still staged
    assert found(recall, "plum") == []
    assert staged_rows(path) == 15
    crash(recall)
    restarted = open_tantivy(path)
    restarted.indexer.run_until_idle()
    for app_id, messages in ids.items():
        expected = sorted([*messages, late]) if app_id == APP else messages
        assert sorted(found(restarted, "plum", app_id)) == expected
    assert staged_rows(path) == 0
    restarted.close()


def test_reclaiming_deletes_across_many_apps_keeps_the_writer_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_store, "MAX_OPEN_WRITERS", 2)
    recall = open_tantivy(tmp_path / "h.db")
    chats = {}
    for app in range(1, 6):
        chats[AppId(app)], _ = seed_chat(recall.host, AppId(app), "c", [(USER, f"plum {app}")])
    recall.indexer.run_until_idle()
    for chat_id in chats.values():
        recall.host.delete_chat(chat_id)
    opened = count_open_writers(monkeypatch)
    recall.indexer.run_until_idle()  # reclaimed: deleted from each app's index
    assert max(opened) == 2
    root = store(recall).indexes.root
    for app_id in chats:
        index = tantivy.Index.open(str(engine.app_directory(root, app_id)))
        assert index.searcher().num_docs == 0
    recall.close()


def test_index_does_not_report_what_it_staged_as_arrived_while_it_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A publish deferred while the host writes leaves the command's own documents
    staged at its end (closing publishes them): they are not messages that arrived."""
    from chat_recall.adapters.cli.indexing import drain
    from chat_recall.adapters.cli.progress import reporter

    recall = open_tantivy(tmp_path / "h.db")
    seed_chat(recall.host, APP, "c", [(USER, f"staged plum {n}") for n in range(5)])
    store(recall).publish_seconds = 3600.0
    maintain = TantivyIndexStore.maintain

    def maintain_while_the_host_writes(self: TantivyIndexStore) -> object:
        seed_chat(recall.host, APP, "d", [(USER, "arrived")])  # the queue is never empty
        return maintain(self)

    monkeypatch.setattr(TantivyIndexStore, "maintain", maintain_while_the_host_writes)
    report = drain(recall, reporter("index", quiet=True))
    assert report.left < recall.dirty.backlog().messages  # not its own staged documents
    assert recall.dirty.backlog().unpublished > 0
    assert report.left == recall.dirty.backlog().to_index
    recall.close()


def test_a_rebuild_in_place_leaves_unchanged_documents_published_and_found(
    tmp_path: Path,
) -> None:
    """As on FTS5: a document that comes out the same is not written again, so a
    `rebuild` in place never hides it (a rewritten one is hidden until its publish);
    one whose text changed is rewritten."""
    recall = open_tantivy(tmp_path / "h.db")
    _, (kept, edited) = seed_chat(
        recall.host, APP, "c", [(USER, "steady quince"), (USER, "fickle medlar")]
    )
    stage_one_batch(recall)
    recall.index.maintain()  # published
    assert found(recall, "quince") == [kept]
    recall.host.update_message(edited, "fickle loquat")  # type: ignore[attr-defined]
    recall.dirty.mark_all_messages()  # what `rebuild` in place does
    stage_one_batch(recall)
    assert found(recall, "quince") == [kept]  # never hidden
    assert staged_rows(tmp_path / "h.db") == 1  # the edited one alone
    assert recall.dirty.backlog().unpublished == 1
    recall.index.maintain()
    assert found(recall, "loquat") == [edited]
    assert found(recall, "medlar") == []
    recall.close()


def test_a_document_that_moved_chat_is_rewritten_even_with_the_same_text(
    tmp_path: Path,
) -> None:
    recall = open_tantivy(tmp_path / "h.db")
    chat, (moved,) = seed_chat(recall.host, APP, "c", [(USER, "wandering sorrel")])
    stage_one_batch(recall)
    recall.index.maintain()
    other = recall.host.create_chat(APP, "c", 5000)
    connection = sqlite3.connect(tmp_path / "h.db")
    with connection:
        connection.execute("UPDATE messages SET chat_id = ? WHERE id = ?", (other, moved))
    connection.close()
    stage_one_batch(recall)
    assert staged_rows(tmp_path / "h.db") == 1
    recall.index.maintain()
    [document] = recall.index.documents(APP, [moved])
    assert document.chat_id == other
    assert chat != other
    recall.close()


def test_a_caught_up_moment_is_recorded_once_what_was_staged_then_is_published(
    tmp_path: Path,
) -> None:
    """While a host writes, something is nearly always staged: a caught-up moment waits
    for the publish of what was staged when it was noted, not for a moment when nothing
    is (searches said `indexing` with nothing old waiting)."""
    recall = open_tantivy(tmp_path / "h.db")
    seed_chat(recall.host, APP, "c", [(USER, "first fig")])
    stage_one_batch(recall)
    recall.dirty.note_caught_up(0.0)
    assert recall.dirty.caught_up_ago() is None  # written, not yet searchable
    store(recall).publish()
    seed_chat(recall.host, APP, "d", [(USER, "second fig")])
    stage_one_batch(recall)  # a later change, staged before the next note
    recall.dirty.note_caught_up(0.0)
    assert recall.dirty.caught_up_ago() is not None
    recall.close()
