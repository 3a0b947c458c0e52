"""The cheap triggers (a chat delete writes one row), and work that grows with the
database done in short transactions (re-marking a renamed chat; a fresh install's walk
is in test_sqlite_message_order)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host import dirty_queue, migrations
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.application.service import ChatRecall
from chat_recall.domain.errors import SchemaMismatch
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId, ChatId, MessageId
from chat_recall.domain.query import MatchQuery, ScopedQuery


def test_a_chat_delete_writes_one_row_whatever_the_chat_size(tmp_path: Path) -> None:
    path = tmp_path / "host.db"
    with bootstrap.sqlite(path, create_host_schema=True) as recall:
        big = recall.host.create_chat(AppId(1), "big", 1)
        for index in range(300):
            recall.host.add_message(big, Role.USER, f"gone words {index}", 2 + index)
        recall.indexer.run_until_idle()
        changes: list[str] = []
        connection = sqlite3.connect(path, isolation_level=None)
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute("BEGIN")
        connection.execute("DELETE FROM chats WHERE id = ?", (big,))
        changes.append(str(connection.total_changes))
        connection.execute("COMMIT")
        connection.close()
        # 1 chat + 300 cascaded messages are the host's own rows; chat-recall added one
        assert changes == ["302"]
        query = ScopedQuery(MatchQuery.of_words("gone"), AppId(1))
        assert recall.index.search(query) == []
        assert recall.index.stats(AppId(1)).documents == 0
        recall.indexer.run_until_idle()
        assert recall.index.stats(AppId(1)).unreclaimed == 0
        assert recall.dirty.backlog().is_empty


def indexed_then_renamed(recall: ChatRecall, messages: int) -> tuple[ChatId, SqliteDatabase]:
    """A chat of `messages` messages in app 1, indexed, then renamed by the host."""
    chat_id = recall.host.create_chat(AppId(1), "old", 1)
    for index in range(messages):
        recall.host.add_message(chat_id, Role.USER, f"words {index}", 2 + index)
    recall.indexer.run_until_idle()
    recall.host.rename_chat(chat_id, "new")
    database: SqliteDatabase = recall.index.database  # type: ignore[attr-defined]
    return chat_id, database


def test_renaming_a_large_chat_re_marks_it_in_short_transactions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dirty_queue, "EXPAND_CHUNK", 100)
    with bootstrap.sqlite(tmp_path / "host.db", create_host_schema=True) as recall:
        _, database = indexed_then_renamed(recall, 450)
        before = database.lock_stats.transactions
        (marker,) = recall.dirty.pending_chats(10)
        assert recall.dirty.expand_chat(marker) == 450
        assert database.lock_stats.transactions - before == 5 + 1  # 4 x 100 + 50, then clear
        assert recall.dirty.pending_chats(10) == []
        recall.indexer.run_until_idle()
        documents = recall.index.documents(AppId(1), [MessageId(i) for i in range(1, 451)])
        assert [d.title for d in documents] == ["new"] * 450


def test_a_chat_expansion_ends_while_the_host_keeps_adding_to_the_chat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The expansion marks the messages the chat held when it started; the host's
    message added before each of its transactions marks itself (its trigger), so the
    expansion ends however fast the host adds them."""
    monkeypatch.setattr(dirty_queue, "EXPAND_CHUNK", 2)
    with bootstrap.sqlite(tmp_path / "host.db", create_host_schema=True) as recall:
        chat_id, database = indexed_then_renamed(recall, 6)
        begin = database.pacer.begin
        added: list[int] = []

        def host_adds_one() -> None:  # before each of chat-recall's transactions
            if len(added) < 40:
                host = sqlite3.connect(tmp_path / "host.db")
                with host:
                    cursor = host.execute(
                        "INSERT INTO messages(chat_id, role, content, created_at) "
                        "VALUES (?, 'user', 'later', 100)",
                        (chat_id,),
                    )
                host.close()
                added.append(int(cursor.lastrowid or 0))
            begin()

        monkeypatch.setattr(database.pacer, "begin", host_adds_one)
        (marker,) = recall.dirty.pending_chats(10)
        assert recall.dirty.expand_chat(marker) == 6  # the six it held, no more
        assert len(added) < 40  # ended while the host was still adding
        assert recall.dirty.pending_chats(10) == []
        monkeypatch.setattr(database.pacer, "begin", begin)
        recall.indexer.run_until_idle()
        documents = recall.index.documents(AppId(1), [MessageId(i) for i in range(1, 7)])
        assert [d.title for d in documents] == ["new"] * 6
        assert len(_search(recall, "later")) == len(added)  # each marked by its trigger


def _search(recall: bootstrap.ChatRecall, word: str) -> list[int]:
    query = ScopedQuery(MatchQuery.of_words(word), AppId(1))
    return [int(candidate.message_id) for candidate in recall.index.search(query)]


def test_replace_into_chats_hides_the_messages_it_cascaded_at_once(tmp_path: Path) -> None:
    """REPLACE deletes the old chat row without its delete trigger (SQLite fires none
    unless recursive_triggers is on), but the foreign key's cascade still deletes the
    messages: each records itself, so none is found before the indexer runs."""
    path = tmp_path / "host.db"
    with bootstrap.sqlite(path, create_host_schema=True) as recall:
        chat_id = recall.host.create_chat(AppId(1), "Chat seven", 1)
        recall.host.add_message(chat_id, Role.USER, "the aardvarkium plan", 2)
        recall.indexer.run_until_idle()
        assert len(_search(recall, "aardvarkium")) == 1
        connection = sqlite3.connect(path, isolation_level=None)
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute(
            "REPLACE INTO chats(id, app_id, title, created_at) VALUES (?, 1, 'renamed', 3)",
            (chat_id,),
        )
        assert connection.execute("SELECT count(*) FROM messages").fetchone()[0] == 0
        connection.close()
        assert _search(recall, "aardvarkium") == []  # before any indexing
        recall.indexer.run_until_idle()
        assert _search(recall, "aardvarkium") == []
        assert recall.index.stats(AppId(1)).documents == 0


def test_replace_into_messages_that_moves_a_message_hides_it_at_once(tmp_path: Path) -> None:
    path = tmp_path / "host.db"
    with bootstrap.sqlite(path, create_host_schema=True) as recall:
        first = recall.host.create_chat(AppId(1), "first", 1)
        second = recall.host.create_chat(AppId(1), "second", 2)
        message = recall.host.add_message(first, Role.USER, "the okapi decision", 3)
        recall.indexer.run_until_idle()
        connection = sqlite3.connect(path, isolation_level=None)
        connection.execute(
            "REPLACE INTO messages(id, chat_id, role, content, created_at) "
            "VALUES (?, ?, 'user', 'moved elsewhere', 4)",
            (message, second),
        )
        connection.close()
        assert _search(recall, "okapi") == []  # the old chat's text, before any indexing
        recall.indexer.run_until_idle()
        assert _search(recall, "okapi") == []
        assert _search(recall, "elsewhere") == [message]


TEXT_ID_HOST = """
CREATE TABLE chats (id {chat_id} PRIMARY KEY, app_id {app_id} NOT NULL, title TEXT,
                    created_at INTEGER NOT NULL DEFAULT 0);
CREATE TABLE messages (id {message_id} PRIMARY KEY, chat_id {chat_id} NOT NULL, role TEXT,
                       content TEXT, is_compaction_summary INTEGER NOT NULL DEFAULT 0,
                       created_at INTEGER NOT NULL DEFAULT 0);
"""


@pytest.mark.parametrize("text_column", ["message_id", "chat_id", "app_id"])
def test_a_host_with_text_ids_is_refused_before_any_trigger_exists(
    tmp_path: Path, text_column: str
) -> None:
    """A trigger copying a text id (a UUID) into chat-recall's INTEGER PRIMARY KEY
    columns would make every host write fail ("datatype mismatch")."""
    path = tmp_path / "host.db"
    types = {name: "INTEGER" for name in ("message_id", "chat_id", "app_id")}
    types[text_column] = "TEXT"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.executescript(TEXT_ID_HOST.format(**types))
    with pytest.raises(SchemaMismatch, match="is declared TEXT: chat-recall needs integer"):
        bootstrap.sqlite(path)
    triggers = connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    assert triggers.fetchall() == []
    value = {"INTEGER": 1, "TEXT": "9b2f-uuid"}
    chat, app, message = (value[types[name]] for name in ("chat_id", "app_id", "message_id"))
    connection.execute("INSERT INTO chats(id, app_id, title) VALUES (?, ?, 't')", (chat, app))
    connection.execute(
        "INSERT INTO messages(id, chat_id, role, content) VALUES (?, ?, 'user', 'x')",
        (message, chat),
    )
    connection.execute("UPDATE messages SET content = 'edited'")
    connection.execute("DELETE FROM messages")
    connection.close()


def marker_seq(connection: sqlite3.Connection, table: str, key: str, value: int) -> object:
    row = connection.execute(f"SELECT seq FROM {table} WHERE {key} = ?", (value,)).fetchone()
    return None if row is None else row[0]


@pytest.mark.parametrize("policy", ["OR ROLLBACK", "OR ABORT", "OR FAIL", "OR IGNORE"])
def test_a_host_statements_conflict_policy_never_fails_or_weakens_a_trigger(
    tmp_path: Path, policy: str
) -> None:
    """SQLite applies the conflict policy of the host's statement to every statement its
    triggers run: a marker not yet indexed, a deletion record not yet reclaimed, must
    neither fail the host's write (OR ROLLBACK / ABORT / FAIL) nor keep its old seq
    (OR IGNORE: the indexer would take the change as indexed)."""
    path = tmp_path / "host.db"
    with bootstrap.sqlite(path, create_host_schema=True) as recall:
        first = recall.host.create_chat(AppId(1), "first", 1)
        second = recall.host.create_chat(AppId(1), "second", 1)
        for index in range(4):
            recall.host.add_message(first, Role.USER, f"policy words {index}", 2 + index)
        recall.indexer.run_until_idle()
        host = sqlite3.connect(path, isolation_level=None)
        dirty, chats = migrations.DIRTY_MESSAGES, migrations.DIRTY_CHATS
        # twice each: the second write meets the marker or record the first one left
        for content in ("edited alphaone", "edited omegatwo"):
            before = marker_seq(host, dirty, "message_id", 1)
            host.execute(f"UPDATE {policy} messages SET content = ? WHERE id = 1", (content,))
            assert marker_seq(host, dirty, "message_id", 1) not in (None, before)
        for title in ("renamed once", "renamed twice"):
            before = marker_seq(host, chats, "chat_id", first)
            host.execute(f"UPDATE {policy} chats SET title = ? WHERE id = ?", (title, first))
            assert marker_seq(host, chats, "chat_id", first) not in (None, before)
        for chat in (second, first):  # moved away and back before maintenance
            host.execute(f"UPDATE {policy} messages SET chat_id = ? WHERE id = 2", (chat,))
        for app in (2, 3):
            host.execute(f"UPDATE {policy} chats SET app_id = ? WHERE id = ?", (app, second))
        host.close()
        recall.indexer.run_until_idle()
        assert recall.dirty.backlog().is_empty
        words = ScopedQuery(MatchQuery.of_words("omegatwo"), AppId(1))
        assert [hit.message_id for hit in recall.index.search(words)] == [MessageId(1)]
        moved = ScopedQuery(MatchQuery.of_words("words"), AppId(1))
        assert sorted(hit.message_id for hit in recall.index.search(moved)) == [2, 3, 4]
