"""The design's index and migration tests that are specific to the SQLite adapter."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite.index_store import SqliteFts5IndexStore
from chat_recall.adapters.sqlite_host import migrations, setup
from chat_recall.adapters.sqlite_host.database import SqliteDatabase, check_fts5
from chat_recall.adapters.sqlite_host.dirty_queue import SqliteDirtyQueue
from chat_recall.adapters.sqlite_host.schema import REFERENCE_HOST_DDL, HostSchema
from chat_recall.domain.errors import IndexUnavailable, SchemaMismatch
from chat_recall.domain.messages import Role
from chat_recall.domain.model import IndexStats
from chat_recall.domain.query import MatchQuery, ScopedQuery


def host_database(path: Path, rows: int = 0) -> None:
    """A host database with history, before chat-recall is installed."""
    connection = sqlite3.connect(path)
    connection.executescript(REFERENCE_HOST_DDL)
    connection.execute("INSERT INTO chats(id, app_id, title, created_at) VALUES (1, 1, 'Old', 1)")
    connection.executemany(
        "INSERT INTO messages(chat_id, role, content, created_at, ai_messages_json) "
        "VALUES (1, 'user', ?, ?, 'TRANSCRIPTSENTINEL')",
        [(f"historic message {i}", 10 + i) for i in range(rows)],
    )
    connection.commit()
    connection.close()


def names(path: Path, kind: str) -> set[str]:
    connection = sqlite3.connect(path)
    found = {
        row[0]
        for row in connection.execute(f"SELECT name FROM sqlite_master WHERE type = '{kind}'")
    }
    connection.close()
    return found


def search(recall: object, word: str, app_id: int = 1) -> list[int]:
    query = ScopedQuery(MatchQuery.of_words(word), app_id)
    return [c.message_id for c in recall.index.search(query)]  # type: ignore[attr-defined]


def test_this_sqlite_build_supports_fts5() -> None:
    check_fts5(sqlite3.connect(":memory:"))


def test_a_build_without_fts5_fails_with_a_clear_error() -> None:
    class NoFts5:
        def execute(self, sql: str) -> None:
            raise sqlite3.OperationalError("no such module: fts5")

    with pytest.raises(IndexUnavailable, match="no FTS5"):
        check_fts5(NoFts5())  # type: ignore[arg-type]


def test_fresh_install_creates_the_derived_objects(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)
    chat_id = recall.host.create_chat(1, "t", 1)
    recall.host.add_message(chat_id, Role.USER, "hello", 2)
    recall.indexer.run_until_idle()
    recall.close()
    tables = names(path, "table")
    assert {
        "chat_recall_meta",
        "chat_recall_docs",
        "chat_recall_dirty_messages",
        "chat_recall_dirty_chats",
        "chat_recall_deleted_messages",
        "chat_recall_deleted_chats",
        "chat_recall_apps",
        "chat_recall_fts_1",
    } <= tables
    assert set(migrations.TRIGGERS) <= names(path, "trigger")
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    sql = connection.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'chat_recall_fts_1'"
    ).fetchone()[0]
    assert "unicode61 remove_diacritics 2" in sql


def test_install_marks_existing_history_for_backfill_and_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    host_database(path, rows=12)
    recall = bootstrap.sqlite(path)
    assert recall.dirty.backlog().messages == 12
    recall.indexer.run_until_idle()
    recall.close()
    again = bootstrap.sqlite(path)
    assert again.dirty.backlog().messages == 0
    assert len(search(again, "historic")) == 12
    again.close()


def test_uninstall_removes_every_derived_object_and_no_host_row(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    host_database(path, rows=3)
    recall = bootstrap.sqlite(path)
    recall.indexer.run_until_idle()
    recall.close()
    database = SqliteDatabase.open(path, HostSchema.reference())
    dropped = setup.uninstall(database).dropped
    database.close()
    assert "chat_recall_fts_1" in dropped
    leftover = {
        name
        for kind in ("table", "trigger", "index")
        for name in names(path, kind)
        if name.startswith("chat_recall")
    }
    assert leftover == set()
    connection = sqlite3.connect(path)
    assert connection.execute("SELECT count(*) FROM messages").fetchone()[0] == 3
    assert connection.execute("SELECT count(*) FROM chats").fetchone()[0] == 1


def test_a_wrong_schema_mapping_names_what_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    host_database(path)
    with pytest.raises(SchemaMismatch, match=r"'messages' has no column 'body' .*--schema"):
        bootstrap.sqlite(path, schema=HostSchema(message_content="body"))
    with pytest.raises(SchemaMismatch, match="'conversations' does not exist"):
        bootstrap.sqlite(path, schema=HostSchema(chats="conversations"))


def test_a_host_with_other_names_is_described_by_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    connection = sqlite3.connect(path)
    connection.executescript(
        """
        CREATE TABLE threads (tid INTEGER PRIMARY KEY, workspace INTEGER, name TEXT, at INTEGER);
        CREATE TABLE posts (pid INTEGER PRIMARY KEY, thread INTEGER, author TEXT, text TEXT,
                            at INTEGER);
        INSERT INTO threads VALUES (1, 9, 'Mapped', 5);
        INSERT INTO posts VALUES (1, 1, 'user', 'mapped schemas work', 6);
        """
    )
    connection.commit()
    connection.close()
    schema = HostSchema(
        chats="threads",
        chat_id="tid",
        chat_app_id="workspace",
        chat_title="name",
        chat_created_at="at",
        messages="posts",
        message_id="pid",
        message_chat_id="thread",
        message_role="author",
        message_content="text",
        message_created_at="at",
        message_is_compaction_summary=None,
    )
    recall = bootstrap.sqlite(path, schema=schema)
    recall.indexer.run_until_idle()
    assert search(recall, "schemas", app_id=9) == [1]
    assert search(recall, "mapped", app_id=9) == [1]
    recall.host.delete_message(1)
    assert search(recall, "schemas", app_id=9) == []
    recall.close()


def test_insert_or_replace_upserts_leave_no_orphans_or_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)
    chat_id = recall.host.create_chat(1, "t", 1)
    message_id = recall.host.add_message(chat_id, Role.USER, "first upsert", 2)
    recall.indexer.run_until_idle()
    connection = sqlite3.connect(path)
    for text in ("second upsert", "third upsert"):
        connection.execute(
            "INSERT OR REPLACE INTO messages(id, chat_id, role, content, created_at) "
            "VALUES (?, ?, 'user', ?, 3)",
            (message_id, chat_id, text),
        )
        connection.commit()
    connection.execute(
        "INSERT OR REPLACE INTO chats(id, app_id, title, created_at) VALUES (?, 1, 'New', 1)",
        (chat_id,),
    )
    connection.commit()
    recall.indexer.run_until_idle()
    assert search(recall, "upsert") == [message_id]
    assert search(recall, "third") == [message_id]
    assert search(recall, "second") == []
    assert search(recall, "new") == [message_id]  # the replaced chat's title
    assert recall.index.stats(1).unreclaimed == 0
    assert recall.index.remove_orphans() == 0
    recall.close()


def test_a_chat_delete_cascades_to_its_messages(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)
    chat_id = recall.host.create_chat(1, "t", 1)
    recall.host.add_message(chat_id, Role.USER, "cascade me", 2)
    recall.indexer.run_until_idle()
    recall.host.delete_chat(chat_id)
    assert search(recall, "cascade") == []
    recall.indexer.run_until_idle()
    assert recall.dirty.backlog().is_empty
    assert recall.index.stats(1) == IndexStats(documents=0, unreclaimed=0)
    recall.close()


def test_a_projection_version_change_marks_everything_for_rebuild(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    host_database(path, rows=4)
    recall = bootstrap.sqlite(path)
    recall.indexer.run_until_idle()
    recall.index.set_projection_stamp("0:older")
    recall.close()
    reopened = bootstrap.sqlite(path)
    reopened.indexer.prepare()
    assert reopened.dirty.backlog().messages == 4
    assert len(search(reopened, "historic")) == 4  # old rows answer meanwhile
    reopened.indexer.run_until_idle()
    assert reopened.index.projection_stamp() != "0:older"
    reopened.close()


def test_search_connections_are_read_only(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)
    database: SqliteDatabase = recall.index.database  # type: ignore[attr-defined]
    with pytest.raises(IndexUnavailable, match="read-only"), database.reading() as connection:
        connection.execute("DELETE FROM chats")
    recall.close()


def test_search_answers_while_another_writer_holds_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)
    chat_id = recall.host.create_chat(1, "t", 1)
    message_id = recall.host.add_message(chat_id, Role.USER, "locked words", 2)
    recall.indexer.run_until_idle()
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO chats(app_id, title, created_at) VALUES (1, 'x', 3)")
    assert search(recall, "locked") == [message_id]
    assert recall.status(1).state == "ready"
    writer.execute("ROLLBACK")
    writer.close()
    recall.close()


def test_the_transcript_column_is_never_selected(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    host_database(path, rows=5)
    statements: list[str] = []
    database = SqliteDatabase(path, trace=statements.append)
    setup.start(database)
    recall = bootstrap.sqlite(path, overrides={SqliteDatabase: database})
    recall.indexer.run_until_idle()
    search(recall, "historic")
    recall.repo.page(1, 1, 0, 10)
    window = recall.repo.around(1, 1, 3, 2, 2)
    assert any("MATCH" in sql for sql in statements)
    assert not [sql for sql in statements if "ai_messages_json" in sql]
    assert "TRANSCRIPTSENTINEL" not in repr(window)
    recall.close()
    database.close()


def test_a_host_can_pass_its_open_connection(tmp_path: Path) -> None:
    from chat_recall.application.tools.context import CallContext

    for connection in (sqlite3.connect(tmp_path / "open.db"), sqlite3.connect(":memory:")):
        recall = bootstrap.sqlite(connection, create_host_schema=True)
        chat_id = recall.host.create_chat(1, "Open", 1)
        recall.host.add_message(chat_id, Role.USER, "connection words", 2)
        recall.indexer.run_until_idle()
        output = recall.search_chats(CallContext(1), {"query": "connection"})
        assert '"chat_id":' in output
        assert search(recall, "connection") != []
        recall.close()


def test_sqlite_out_of_memory_reads_as_damage_with_its_fix() -> None:
    """Python raises MemoryError for SQLITE_NOMEM, which a damaged FTS5 structure record
    reports (it asks for a huge size): a tool answers `storage_damaged` with the fix,
    not `internal` (the randomised drift test met it in a search)."""
    from chat_recall.adapters.sqlite_host.database import translate_errors
    from chat_recall.domain.errors import StorageDamaged

    def damaged_read() -> None:
        with translate_errors():
            raise MemoryError

    with pytest.raises(StorageDamaged, match="chat-recall rebuild"):
        damaged_read()


def test_documents_are_inserted_within_sqlite_bound_value_limit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The texts are bound in multi-row inserts; an SQLite that allows fewer bound
    values per statement (999 before 3.32) gets more statements, not a failed batch
    (that the indexer would bisect)."""
    path = tmp_path / "h.db"
    host_database(path, rows=7)
    recall = bootstrap.sqlite(path)
    database = recall.indexer.unit_of_work.database  # type: ignore[attr-defined]
    with database.writing() as connection:  # the indexer's connection (this thread)
        connection.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 8)  # 2 documents each
    with caplog.at_level("WARNING", logger="chat_recall.indexer"):
        report = recall.indexer.run_until_idle()
    assert not caplog.records
    assert report.indexed == 7
    assert recall.index.quarantine(10).total == 0
    assert len(search(recall, "historic")) == 7
    recall.close()


def test_lock_stats_name_the_function_that_opened_the_write(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    host_database(path, rows=3)
    bootstrap.sqlite(path).close()  # installed
    database = SqliteDatabase(path)
    SqliteDirtyQueue(database).requeue_quarantined()
    assert database.lock_stats.transactions == 1
    assert database.lock_stats.longest_in == "requeue_quarantined"
    database.close()


def test_lock_stats_name_the_maintenance_step_not_its_damage_retry(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    with bootstrap.sqlite(path, create_host_schema=True) as recall:
        chat_id = recall.host.create_chat(1, "c", 1)
        gone = recall.host.add_message(chat_id, Role.USER, "words", 2)
        recall.indexer.run_until_idle()
        recall.host.delete_message(gone)
    database = SqliteDatabase(path)
    SqliteFts5IndexStore(database).maintain()  # the reclaim of the deleted one, a merge
    assert database.lock_stats.transactions == 2
    assert database.lock_stats.longest_in in {"_reclaim_step", "_merge"}
    database.close()


def test_counting_the_documents_a_search_reads_past_reads_the_deleted_chats_only(
    tmp_path: Path,
) -> None:
    """How many deleted documents a search reads past is counted from the deleted
    chats' documents: SQLite read every document of the app to count them (18 ms a
    search in a 181k-message app, most of a rare term's search)."""
    from chat_recall.adapters.sqlite_host import document_rows
    from chat_recall.domain.model import AppId

    recall = bootstrap.sqlite(tmp_path / "h.db", create_host_schema=True)
    database = recall.index.database  # type: ignore[attr-defined]
    with database.writing() as connection:
        connection.executemany(
            f"INSERT INTO {migrations.DOCS}(message_id, app_id, chat_id, role, created_at, "
            "is_compaction_summary, projection_truncated) VALUES (?, ?, ?, 'user', 1, 0, 0)",
            [(i, 1 + i % 2, i // 10) for i in range(1, 20_001)],
        )
        connection.execute(f"INSERT INTO {migrations.DELETED_CHATS}(chat_id) VALUES (7)")
    steps: list[int] = []
    with database.reading() as connection:
        connection.set_progress_handler(lambda: steps.append(1), 100)
        hidden = document_rows.hidden_in_app(connection, AppId(1))
        connection.set_progress_handler(None, 0)
    assert hidden == 5  # chat 7: ids 70-79, five of them in app 1
    assert len(steps) < 10  # a few hundred steps, not a few per document of the app
    recall.close()


def fts_pages(path: Path) -> list[tuple[int, bytes]]:
    """The FTS5 table's stored pages (segments and structure) of app 1."""
    connection = sqlite3.connect(path)
    table = migrations.fts_table_name(1)
    pages = connection.execute(f"SELECT id, block FROM {table}_data ORDER BY id").fetchall()
    connection.close()
    return pages


def test_marking_unchanged_messages_again_writes_nothing_to_the_text_index(
    tmp_path: Path,
) -> None:
    """A rebuild in place marks every message; those whose document would be the same
    are left as they are, and a changed one is replaced (its old words gone)."""
    path = tmp_path / "h.db"
    host_database(path, rows=6)
    with bootstrap.sqlite(path) as recall:
        recall.indexer.run_until_idle()
        before = fts_pages(path)
        recall.dirty.mark_all_messages()
        recall.indexer.run_until_idle()
        assert recall.dirty.backlog().messages == 0
        assert fts_pages(path) == before
        assert len(search(recall, "historic")) == 6

        host = sqlite3.connect(path)
        host.execute("UPDATE messages SET content = 'rewritten zebra' WHERE id = 2")
        host.commit()
        host.close()
        recall.dirty.mark_all_messages()
        recall.indexer.run_until_idle()
        assert fts_pages(path) != before
        assert search(recall, "zebra") == [2]
        assert sorted(search(recall, "historic")) == [1, 3, 4, 5, 6]


def test_a_message_deleted_and_inserted_again_unchanged_is_found_again(tmp_path: Path) -> None:
    """The delete hid the old document at once; the same row inserted again (an undo)
    must not be taken for the hidden document left as it was."""
    path = tmp_path / "h.db"
    host_database(path, rows=3)
    with bootstrap.sqlite(path) as recall:
        recall.indexer.run_until_idle()
        host = sqlite3.connect(path)
        row = host.execute("SELECT * FROM messages WHERE id = 2").fetchone()
        host.execute("DELETE FROM messages WHERE id = 2")
        host.commit()
        assert sorted(search(recall, "historic")) == [1, 3]
        marks = ", ".join("?" * len(row))
        host.execute(f"INSERT INTO messages VALUES ({marks})", row)
        host.commit()
        host.close()
        recall.indexer.run_until_idle()
        assert sorted(search(recall, "historic")) == [1, 2, 3]
