"""Detect and repair drift; survive damage. `status` (and `ChatRecall.check`) find
dropped triggers, lost registry rows, unusable schema versions and damaged index data
without taking the write lock; `index`/`repair` restore triggers and registry rows;
`rebuild` and `uninstall` succeed on a damaged FTS5 index and never touch host rows."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.bootstrap import administration
from chat_recall.adapters.cli.exits import Exit
from chat_recall.adapters.cli.main import main
from chat_recall.adapters.host_database import SqliteFile
from chat_recall.adapters.sqlite_host.schema import HostSchema
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.errors import IndexUnavailable, StorageDamaged
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId, ChatId
from chat_recall.domain.query import MatchQuery, ScopedQuery
from tests.robustness.damage import (
    DAMAGES,
    checkpoint,
    damage,
    host_digest,
    overwrite_root_page,
)

Capture = pytest.CaptureFixture[str]
WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()


def build(path: Path, chats: int = 6, messages: int = 40) -> None:
    recall = bootstrap.sqlite(path, create_host_schema=True)
    for c in range(chats):
        chat_id = recall.host.create_chat(1 + c % 2, f"chat {c}", 1_700_000_000)
        for m in range(messages):
            text = " ".join(f"{WORDS[(c + m + k) % 10]}{(m * k) % 97}" for k in range(25))
            recall.host.add_message(chat_id, Role.USER, text, 1_700_000_000 + m)
    recall.indexer.run_until_idle()
    recall.close()
    checkpoint(path)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pristine") / "host.db"
    build(path)
    return path


@pytest.fixture
def database(pristine: Path, tmp_path: Path) -> Path:
    path = tmp_path / "host.db"
    path.write_bytes(pristine.read_bytes())
    return path


def status(path: Path, capsys: Capture) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    code = main(["status", "--db", str(path), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def problems(path: Path) -> list[str]:
    return administration(SqliteFile(path), HostSchema.reference()).status().problems


def found(path: Path, word: str, app_id: int = 1) -> int:
    with bootstrap.sqlite(path, install=False) as recall:
        output = json.loads(recall.search_chats(CallContext(app_id), {"query": word}))
    assert "error" not in output, output
    return len(output["results"])


@pytest.fixture
def writer_holding_the_lock(database: Path) -> Iterator[sqlite3.Connection]:
    """Another connection holding the write lock throughout (as a busy host would)."""
    connection = sqlite3.connect(database, isolation_level=None)
    connection.execute("BEGIN IMMEDIATE")
    yield connection
    connection.execute("ROLLBACK")
    connection.close()


def test_a_healthy_index_passes_every_check_without_the_write_lock(
    database: Path, capsys: Capture, writer_holding_the_lock: sqlite3.Connection
) -> None:
    code, report = status(database, capsys)  # a write would wait 5 s, then fail as busy
    assert code == Exit.OK
    assert report["healthy"] is True
    checks = {check["check"] for check in report["checks"]}  # type: ignore[attr-defined]
    assert checks == {"schema_version", "triggers", "registry", "integrity"}


def table_rebuild_migration(path: Path) -> None:
    """What ORMs do to alter a table: copy it to a new one and drop the old one (the
    triggers and the index on it go with it)."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.executescript(
        """
        BEGIN;
        CREATE TABLE messages_new (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
            role TEXT NOT NULL, content TEXT NOT NULL, approval_state TEXT,
            commit_hash TEXT, is_compaction_summary INTEGER NOT NULL DEFAULT 0,
            ai_messages_json TEXT,
            created_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER)),
            new_column TEXT
        );
        INSERT INTO messages_new(id, chat_id, role, content, approval_state, commit_hash,
            is_compaction_summary, ai_messages_json, created_at)
            SELECT id, chat_id, role, content, approval_state, commit_hash,
                   is_compaction_summary, ai_messages_json, created_at FROM messages;
        DROP TABLE messages;
        ALTER TABLE messages_new RENAME TO messages;
        COMMIT;
        """
    )
    connection.close()


def chats_rebuild_migration(path: Path) -> None:
    """The same for the chats table, as Drizzle generates it (foreign keys off): the
    messages' triggers are checked when the new table is renamed."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.executescript(
        """
        PRAGMA foreign_keys = OFF;
        BEGIN;
        CREATE TABLE __new_chats (
            id INTEGER PRIMARY KEY AUTOINCREMENT, app_id INTEGER NOT NULL, title TEXT,
            initial_commit_hash TEXT, created_at INTEGER NOT NULL DEFAULT 0, pinned INTEGER
        );
        INSERT INTO __new_chats(id, app_id, title, initial_commit_hash, created_at)
            SELECT id, app_id, title, initial_commit_hash, created_at FROM chats;
        DROP TABLE chats;
        ALTER TABLE __new_chats RENAME TO chats;
        COMMIT;
        PRAGMA foreign_keys = ON;
        """
    )
    connection.close()


def test_a_host_migration_that_rebuilds_chats_succeeds_and_index_restores_the_triggers(
    database: Path, capsys: Capture
) -> None:
    chats_rebuild_migration(database)  # failed: "no such table: main.chats"
    code, report = status(database, capsys)
    assert code == Exit.UNHEALTHY
    missing = {c["subject"] for c in report["checks"] if c["check"] == "triggers"}  # type: ignore[attr-defined]
    assert missing == {
        "chat_recall_chat_insert",
        "chat_recall_chat_update",
        "chat_recall_chat_delete",
    }
    add_message(database, 1, "written after the chats rebuild: quetzalcoatl")
    assert main(["index", "--db", str(database)]) == 0
    assert "repaired: recreated the triggers" in capsys.readouterr().out
    assert status(database, capsys)[0] == Exit.OK
    assert found(database, "quetzalcoatl") == 1  # the messages' triggers kept working


def add_message(path: Path, chat_id: int, text: str) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute(
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (?, 'user', ?, ?)",
        (chat_id, text, 1_700_000_999),
    )
    connection.close()


def test_dropped_triggers_are_reported_and_index_restores_them(
    database: Path, capsys: Capture
) -> None:
    table_rebuild_migration(database)
    add_message(database, 1, "written while the triggers were gone: zebracrossing")
    code, report = status(database, capsys)
    assert code == Exit.UNHEALTHY
    missing = [c for c in report["checks"] if c["check"] == "triggers"]  # type: ignore[attr-defined]
    assert {c["subject"] for c in missing} >= {
        "chat_recall_message_insert",
        "chat_recall_message_update",
        "chat_recall_message_delete",
        "chat_recall_message_order_update",
    }
    assert all(c["fix"] == "repair" for c in missing)
    assert main(["index", "--db", str(database)]) == 0
    repaired = capsys.readouterr().out
    assert "repaired: recreated the triggers" in repaired
    assert "walked every message into the chat order again" in repaired
    assert status(database, capsys)[0] == Exit.OK
    # the chat's order was walked again: the untracked message is read in its place
    with bootstrap.sqlite(database) as recall:
        window = recall.repo.page(AppId(1), ChatId(1), 0, 100)
    assert [m.content for m in window.messages][-1].startswith("written while the triggers")
    assert len(window.messages) == 41
    add_message(database, 1, "written after the repair: yellowsubmarine")
    assert main(["index", "--db", str(database)]) == 0
    assert found(database, "yellowsubmarine") == 1
    # a row written while the triggers were missing was never marked: a rebuild finds it
    assert found(database, "zebracrossing") == 0
    assert main(["rebuild", "--db", str(database)]) == 0
    assert found(database, "zebracrossing") == 1


def test_a_lost_registry_row_is_reported_and_restored(database: Path, capsys: Capture) -> None:
    assert found(database, "alpha1") > 0
    connection = sqlite3.connect(database, isolation_level=None)
    connection.execute("DELETE FROM chat_recall_apps WHERE app_id = 1")
    connection.close()
    assert found(database, "alpha1") == 0  # silently empty: what status must reveal
    assert problems(database) == [
        "app 1: index table chat_recall_fts_1 has no registry row: the app's searches find nothing"
    ]
    capsys.readouterr()
    assert main(["repair", "--db", str(database)]) == 0
    assert "repaired: registered the index table of app 1" in capsys.readouterr().out
    assert problems(database) == []
    assert found(database, "alpha1") > 0


def test_an_app_whose_index_table_vanished_is_indexed_again(database: Path) -> None:
    connection = sqlite3.connect(database, isolation_level=None)
    connection.execute("DROP TABLE chat_recall_fts_2")
    connection.close()
    assert any("app 2: the registry names an index table" in p for p in problems(database))
    with bootstrap.sqlite(database) as recall:  # every start restores the registry
        assert recall.dirty.backlog().chats == 3
        recall.indexer.run_until_idle()
    assert problems(database) == []
    assert found(database, "beta1", app_id=2) > 0


@pytest.mark.parametrize(
    ("stored", "fix", "message"),
    [
        ("99", "upgrade", "written by a newer chat-recall (schema version 99"),
        ("1", "rebuild", "written by a pre-release chat-recall (schema version 1;"),
        ("3", "rebuild", "written by a pre-release chat-recall (schema version 3;"),
        ("abc", "rebuild", "holds schema_version 'abc', which is no chat-recall version"),
        ("-1", "rebuild", "which is no chat-recall version"),
    ],
)
def test_an_unusable_schema_version_is_a_clear_error_never_restamped(
    database: Path, capsys: Capture, stored: str, fix: str, message: str
) -> None:
    connection = sqlite3.connect(database, isolation_level=None)
    connection.execute(
        "UPDATE chat_recall_meta SET value = ? WHERE key = 'schema_version'", (stored,)
    )
    connection.close()
    with pytest.raises(IndexUnavailable, match=re.escape(message)):
        bootstrap.sqlite(database)
    with pytest.raises(IndexUnavailable, match=re.escape(message)):
        bootstrap.sqlite(database, install=False)
    code, report = status(database, capsys)
    assert code == Exit.UNHEALTHY
    assert report["checks"] == [
        {
            "check": "schema_version",
            "subject": f"version {stored}",
            "ok": False,
            "problem": report["checks"][0]["problem"],  # type: ignore[index]
            "fix": fix,
        }
    ]
    assert message in report["problems"][0]  # type: ignore[index]
    assert main(["index", "--db", str(database)]) == Exit.FAILED
    assert message in capsys.readouterr().err
    connection = sqlite3.connect(database)
    kept = connection.execute("SELECT value FROM chat_recall_meta WHERE key = 'schema_version'")
    assert kept.fetchone()[0] == stored  # never re-stamped
    connection.close()
    before = host_digest(database)
    assert main(["rebuild", "--db", str(database)]) == 0
    assert host_digest(database) == before
    assert status(database, capsys)[0] == Exit.OK


def pre_release_database(path: Path) -> None:
    """A database as a pre-release chat-recall (schema version 2) left it: queues keyed
    by an AUTOINCREMENT seq, its trigger on messages, the host index of versions 1 to 3,
    no order table; ten messages written after the last indexing (pending markers)."""
    build(path, chats=2, messages=10)
    connection = sqlite3.connect(path, isolation_level=None)
    connection.executescript(
        """
        BEGIN;
        DROP TRIGGER chat_recall_message_insert;
        DROP TRIGGER chat_recall_message_update;
        DROP TRIGGER chat_recall_message_order_update;
        DROP TRIGGER chat_recall_message_delete;
        DROP TRIGGER chat_recall_chat_insert;
        DROP TRIGGER chat_recall_chat_update;
        DROP TRIGGER chat_recall_chat_delete;
        DROP TABLE chat_recall_dirty_messages;
        DROP TABLE chat_recall_dirty_chats;
        DROP TABLE chat_recall_deleted_messages;
        DROP TABLE chat_recall_deleted_chats;
        DROP TABLE chat_recall_message_order;
        CREATE TABLE chat_recall_dirty_messages (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, message_id INTEGER NOT NULL UNIQUE,
            app_id INTEGER, chat_id INTEGER);
        CREATE TABLE chat_recall_dirty_chats (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, chat_id INTEGER NOT NULL UNIQUE,
            app_id INTEGER);
        CREATE INDEX chat_recall_messages_order ON messages(chat_id, created_at, id);
        CREATE TRIGGER chat_recall_message_insert AFTER INSERT ON messages BEGIN
            INSERT OR REPLACE INTO chat_recall_dirty_messages(message_id, app_id, chat_id)
            VALUES (NEW.id, (SELECT app_id FROM chats WHERE id = NEW.chat_id), NEW.chat_id);
        END;
        UPDATE chat_recall_meta SET value = '2' WHERE key = 'schema_version';
        COMMIT;
        """
    )
    for index in range(10):
        connection.execute(
            "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', ?, ?)",
            (f"pending omega {index}", 1_800_000_000 + index),
        )
    connection.close()


def test_a_pre_release_database_is_refused_with_the_fix_and_rebuild_loses_no_host_row(
    tmp_path: Path, capsys: Capture
) -> None:
    """Versions 1 to 3 were never published and are not upgraded: every start says to
    rebuild (a typed error, no traceback, nothing written), the host keeps writing
    through the old triggers meanwhile, and `rebuild` replaces every derived object
    and indexes every host message, pending ones included."""
    path = tmp_path / "host.db"
    pre_release_database(path)
    message = "written by a pre-release chat-recall (schema version 2;"
    before = host_digest(path)
    for install in (True, False):
        with pytest.raises(IndexUnavailable, match=re.escape(message)):
            bootstrap.sqlite(path, install=install)
    capsys.readouterr()
    assert main(["index", "--db", str(path)]) == Exit.FAILED
    err = capsys.readouterr().err
    assert message in err
    assert "chat-recall rebuild" in err
    assert "Traceback" not in err
    code, report = status(path, capsys)
    assert code == Exit.UNHEALTHY
    assert [c["fix"] for c in report["checks"]] == ["rebuild"]  # type: ignore[attr-defined]
    assert host_digest(path) == before  # refused before anything is written
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute(
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (2, 'user', ?, ?)",
        ("written meanwhile omega", 1_800_000_100),
    )
    connection.close()
    before = host_digest(path)
    assert main(["rebuild", "--db", str(path)]) == 0
    assert host_digest(path) == before
    assert status(path, capsys)[0] == Exit.OK
    connection = sqlite3.connect(path)
    names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    total = connection.execute("SELECT count(*) FROM messages").fetchone()[0]
    connection.close()
    assert "chat_recall_messages_order" not in names  # the old host index went too
    assert found(path, "omega", app_id=1) == 1  # the pending messages' chat
    assert found(path, "omega", app_id=2) == 1  # the one written meanwhile
    with bootstrap.sqlite(path, install=False) as recall:
        assert recall.dirty.backlog().is_empty
        assert sum(recall.index.stats(AppId(a)).documents for a in (1, 2)) == total


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_index_is_found_and_rebuild_and_uninstall_succeed(
    database: Path, capsys: Capture, how: str
) -> None:
    before = host_digest(database)
    damage(database, how)
    code, report = status(database, capsys)
    # Random bytes land where the merges of this run put the pages: now and then only in
    # stored message text that no check reads (`test_randomised_pages_...` counts how
    # often). Rebuild and uninstall must succeed whether or not the damage was seen.
    if how != "pages" or code != Exit.OK:
        assert code == Exit.UNHEALTHY
        failed = [c for c in report["checks"] if not c["ok"]]  # type: ignore[attr-defined]
        assert failed
        assert {c["fix"] for c in failed} == {"rebuild"}
    with bootstrap.sqlite(database, install=False) as recall:
        output = json.loads(recall.search_chats(CallContext(1), {"query": "alpha1"}))
    if how != "pages":  # random bytes may miss what this query reads; never a traceback
        assert output["error"]["kind"] == "storage_damaged"
    assert main(["rebuild", "--db", str(database)]) == 0
    assert host_digest(database) == before
    assert status(database, capsys)[0] == Exit.OK
    assert found(database, "alpha1") > 0
    damage(database, how, seed=1)
    assert main(["uninstall", "--db", str(database)]) == 0
    connection = sqlite3.connect(database)
    left = connection.execute("SELECT name FROM sqlite_master WHERE name LIKE 'chat_recall%'")
    assert left.fetchall() == []
    assert connection.execute("PRAGMA quick_check(messages)").fetchall() == [("ok",)]
    connection.close()
    assert host_digest(database) == before


@pytest.mark.parametrize("how", [how for how in DAMAGES if how != "pages"])
def test_one_damaged_app_index_never_stops_the_other_apps_indexing(
    database: Path, capsys: Capture, how: str
) -> None:
    """App 1's FTS5 table damaged: every batch failed, so no app was indexed until a
    rebuild. Now app 1's messages are set aside (quarantined, `index_damaged`), the
    other apps' writes, edits and deletes are indexed, and a rebuild restores app 1."""
    add_message(database, 2, "app two, deleted later: kumquat")
    assert main(["index", "--db", str(database), "-q"]) == 0
    assert found(database, "kumquat", app_id=2) == 1
    damage(database, how)  # app 1 (chats 1, 3, 5); chats 2, 4, 6 are app 2's
    add_message(database, 2, "for app two: nectarine")
    add_message(database, 1, "for app one: nectarine")
    connection = sqlite3.connect(database, isolation_level=None)
    connection.execute("DELETE FROM messages WHERE content LIKE '%kumquat'")
    connection.execute(  # an edit and a delete in the damaged app
        "UPDATE messages SET content = 'edited: persimmon' WHERE chat_id = 1 "
        "AND id = (SELECT min(id) FROM messages WHERE chat_id = 1)"
    )
    connection.execute(
        "DELETE FROM messages WHERE id = (SELECT max(id) FROM messages WHERE chat_id = 3)"
    )
    connection.close()
    before = host_digest(database)
    assert main(["index", "--db", str(database), "-q"]) == 0
    assert found(database, "nectarine", app_id=2) == 1
    assert found(database, "kumquat", app_id=2) == 0
    code, report = status(database, capsys)
    assert code == Exit.UNHEALTHY
    assert {c["fix"] for c in report["checks"] if not c["ok"]} == {"rebuild"}  # type: ignore[attr-defined]
    set_aside = report["quarantined_rows"]
    assert {(r["app_id"], r["reason"]) for r in set_aside} == {(1, "index_damaged")}  # type: ignore[attr-defined]
    assert report["backlog"] == {"messages": 0, "chats": 0, "purges": 0}
    assert main(["rebuild", "--db", str(database)]) == 0
    assert host_digest(database) == before
    assert status(database, capsys)[0] == Exit.OK
    assert found(database, "nectarine") == 1
    assert found(database, "persimmon") == 1
    assert found(database, "nectarine", app_id=2) == 1


def test_a_running_library_indexes_a_damaged_app_again_once_another_process_rebuilt_it(
    database: Path, capsys: Capture
) -> None:
    damage(database, "btree")
    with bootstrap.sqlite(database) as recall:
        chat_id = 1  # app 1's
        recall.host.add_message(chat_id, Role.USER, "before the rebuild: tamarind", 1_700_000_500)
        recall.indexer.run_until_idle()
        assert recall.index.quarantine(10).total == 1  # set aside: its table is damaged
        recall.indexer.release_claim()
        assert main(["rebuild", "--db", str(database), "-q"]) == 0  # another process's
        recall.host.add_message(chat_id, Role.USER, "after the rebuild: rambutan", 1_700_000_501)
        recall.indexer.run_until_idle()
    code, report = status(database, capsys)
    assert code == Exit.OK
    assert report["quarantined"] == 0
    assert found(database, "rambutan") == 1
    assert found(database, "tamarind") == 1


def test_a_new_app_table_in_the_same_batch_does_not_bring_a_damaged_app_back(
    database: Path,
) -> None:
    """Creating a new app's table changes the schema version inside the batch's own
    transaction: the damaged app was tried again, met its damage a second time, and
    every batch failed (found by a red-team)."""
    damage(database, "btree")  # app 1
    with bootstrap.sqlite(database) as recall:
        recall.indexer.run_until_idle()
        chat_three = recall.host.create_chat(3, "app three", 1_700_000_100)
        recall.host.add_message(1, Role.USER, "app one: nectarine", 1_700_000_102)
        recall.host.add_message(2, Role.USER, "app two: nectarine", 1_700_000_103)
        connection = sqlite3.connect(database, isolation_level=None)
        connection.execute(  # app 1's indexed message 1 moves to app 3, which has no table
            "UPDATE messages SET chat_id = ?, content = 'moved: nectarine' WHERE id = 1",
            (chat_three,),
        )
        connection.close()
        recall.indexer.run_until_idle()
        assert recall.dirty.backlog().is_empty
        recall.indexer.release_claim()
    assert found(database, "nectarine", app_id=2) == 1
    assert found(database, "nectarine", app_id=3) == 1


def test_damage_in_a_table_of_every_app_is_never_blamed_on_the_apps(
    database: Path, capsys: Capture
) -> None:
    """A damaged b-tree of `chat_recall_docs` was blamed on each app in turn: every
    new message was quarantined and `index` said the index was up to date."""
    checkpoint(database)
    connection = sqlite3.connect(database, isolation_level=None)
    overwrite_root_page(connection, database, "chat_recall_docs_chat")  # closes it
    for chat_id in (1, 2):
        add_message(database, chat_id, f"chat {chat_id}: nectarine")
    assert main(["index", "--db", str(database), "-q"]) != 0
    assert "rebuild" in capsys.readouterr().err
    code, report = status(database, capsys)
    assert code == Exit.UNHEALTHY
    assert report["quarantined_rows"] == []
    assert report["backlog"] == {"messages": 2, "chats": 0, "purges": 0}
    assert main(["rebuild", "--db", str(database), "-q"]) == 0
    assert found(database, "nectarine") == 1
    assert found(database, "nectarine", app_id=2) == 1


def test_a_passing_out_of_memory_never_sets_a_healthy_app_aside(
    database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One MemoryError while writing an app's texts set that app aside for the life
    of the process, and its new messages were quarantined (found by a red-team): it
    fails that batch only."""
    from chat_recall.adapters.sqlite import index_store

    real = index_store._insert_texts
    failures = [MemoryError()]

    def once(*args: object) -> None:
        if failures:
            raise failures.pop()
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(index_store, "_insert_texts", once)
    with bootstrap.sqlite(database) as recall:
        before = recall.host.add_message(2, Role.USER, "before: nectarine", 1_700_000_300)
        with pytest.raises(StorageDamaged):
            recall.indexer.run_until_idle()
        recall.indexer.run_until_idle()
        after = recall.host.add_message(2, Role.USER, "after: nectarine", 1_700_000_301)
        recall.indexer.run_until_idle()
        assert recall.index.quarantine(10).total == 0
        query = ScopedQuery(MatchQuery.of_words("nectarine"), AppId(2))
        assert {c.message_id for c in recall.index.search(query)} == {before, after}
        recall.indexer.release_claim()


RANDOM_SEEDS = range(24)


def test_randomised_pages_of_the_fts_tables_never_trap_the_user(
    pristine: Path, tmp_path: Path, capsys: Capture
) -> None:
    """Random bytes in random pages of app 1's shadow tables, 24 seeds: status always
    answers, rebuild always restores a sound index, host rows are never touched."""
    before = host_digest(pristine)
    detected = 0
    for seed in RANDOM_SEEDS:
        path = tmp_path / f"random-{seed}.db"
        path.write_bytes(pristine.read_bytes())
        damage(path, "pages", seed=seed)
        code, _ = status(path, capsys)
        assert code in (Exit.OK, Exit.UNHEALTHY)
        detected += code == Exit.UNHEALTHY
        assert main(["rebuild", "--db", str(path)]) == 0, seed
        assert host_digest(path) == before
        assert status(path, capsys)[0] == Exit.OK
        assert found(path, "alpha1") > 0
    print(f"randomised pages: {len(RANDOM_SEEDS)} cases, {detected} detected by status")
    assert detected > 0


def test_the_facade_checks_and_repairs_both_adapters(tmp_path: Path) -> None:
    memory = bootstrap.in_memory()
    chat_id = memory.host.create_chat(7, "c", 1)
    memory.host.add_message(chat_id, Role.USER, "words", 2)
    memory.indexer.run_until_idle()
    assert all(finding.ok for finding in memory.check())
    memory.host.database.fts.pop(7)  # type: ignore[attr-defined]
    assert [f.problem for f in memory.check() if not f.ok] == [
        "documents exist but neither an index table nor a registry row"
    ]
    assert memory.repair() == ["app 7 has no index table: its 1 chat is queued to be indexed"]
    memory.indexer.run_until_idle()
    assert all(finding.ok for finding in memory.check())
    path = tmp_path / "facade.db"
    build(path, chats=2, messages=3)
    recall: ChatRecall = bootstrap.sqlite(path)
    assert all(f.ok for f in recall.check())
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("DROP TRIGGER chat_recall_message_insert")
    connection.close()
    assert [f.subject for f in recall.check(deep=False) if not f.ok] == [
        "chat_recall_message_insert"
    ]
    assert recall.repair() == [
        "recreated the triggers (trigger chat_recall_message_insert is missing)",
        "walked every message into the chat order again (host writes made while the "
        "triggers were missing are read in their place)",
    ]
    assert all(f.ok for f in recall.check())
    recall.close()


def test_a_check_that_runs_out_of_memory_is_a_finding_not_a_crash() -> None:
    """SQLite reports SQLITE_NOMEM as Python's MemoryError (seen once on randomised
    structure damage under memory pressure): a finding naming the fix."""
    from chat_recall.adapters.sqlite_host.audit import NO_MEMORY, _guarded

    def exhausted() -> list[object]:
        raise MemoryError

    [finding] = _guarded("integrity", exhausted)
    assert (finding.problem, finding.fix) == (NO_MEMORY, "rebuild")


def test_a_drop_that_runs_out_of_memory_counts_as_damage_not_a_crash() -> None:
    """SQLITE_NOMEM (Python's MemoryError) from a DROP on randomised structure damage:
    the object is treated as damaged, so uninstall rolls back and forces it out."""
    import sqlite3 as driver

    from chat_recall.adapters.sqlite_host import migrations

    class Exhausted:
        def __init__(self, connection: driver.Connection) -> None:
            self.connection = connection

        def execute(self, sql: str, *parameters: object) -> driver.Cursor:
            if sql.startswith("DROP TRIGGER"):
                raise MemoryError
            return self.connection.execute(sql, *parameters)

    connection = driver.connect(":memory:")
    connection.execute("CREATE TABLE host(x)")
    connection.execute("CREATE TRIGGER chat_recall_t AFTER INSERT ON host BEGIN SELECT 1; END")
    with pytest.raises(migrations.DropFailed) as failed:
        migrations.uninstall(Exhausted(connection))  # type: ignore[arg-type]
    assert failed.value.name == "chat_recall_t"
