"""A chat's order is chat-recall's own table (`MESSAGE_ORDER`), never
an index on the host's messages (SQLite builds an index in one statement, under the
write lock for as long as it reads the table). Filled in the install's chunked walk,
kept by the triggers, read through a join to the host's rows, and the host's own order
read while it is being filled."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host import migrations, setup
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.engines import Engine
from chat_recall.adapters.sqlite_host.message_repo import SqliteMessageRepo
from chat_recall.adapters.sqlite_host.schema import REFERENCE_HOST_DDL, HostSchema
from chat_recall.application.service import ChatRecall
from chat_recall.domain.indexing import BatchSizing
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId, ChatId, MessageId

# Stored times of several kinds: SQLite orders numbers before text, ties by id.
TIMES: list[object] = [5, 3, 3, "2024-01-02", 4.5, 1, "2023-12-31", 9, 3, 7, 2, 8]


def fetched(path: Path, sql: str, parameters: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql, parameters).fetchall()
    finally:
        connection.close()


def host_order(path: Path) -> list[tuple[object, ...]]:
    return fetched(path, "SELECT id, chat_id, created_at FROM messages ORDER BY id")


def copied_order(path: Path) -> list[tuple[object, ...]]:
    return fetched(
        path,
        f"SELECT message_id, chat_id, created_at FROM {migrations.MESSAGE_ORDER} "
        "ORDER BY message_id",
    )


def markers(path: Path) -> list[tuple[object, ...]]:
    return fetched(
        path,
        f"SELECT message_id, app_id, chat_id FROM {migrations.DIRTY_MESSAGES} ORDER BY message_id",
    )


def host_markers(path: Path) -> list[tuple[object, ...]]:
    """What marking the host's messages must give: each message with its chat's app
    (none for a chat that does not exist) and its chat."""
    return fetched(
        path,
        "SELECT m.id, c.app_id, m.chat_id FROM messages AS m "
        "LEFT JOIN chats AS c ON c.id = m.chat_id ORDER BY m.id",
    )


def expected_ids(path: Path, chat_id: int) -> list[int]:
    rows = fetched(
        path, "SELECT id FROM messages WHERE chat_id = ? ORDER BY created_at, id", (chat_id,)
    )
    return [int(row[0]) for row in rows]  # type: ignore[call-overload]


def host_history(path: Path, messages: int = 23) -> None:
    connection = sqlite3.connect(path)
    connection.executescript(REFERENCE_HOST_DDL)
    connection.execute("INSERT INTO chats(id, app_id, title, created_at) VALUES (1, 1, 't', 1)")
    connection.execute("INSERT INTO chats(id, app_id, title, created_at) VALUES (2, 1, 'u', 1)")
    connection.executemany(
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (?, 'user', ?, ?)",
        [(1 + i % 2, f"history {i}", TIMES[i % len(TIMES)]) for i in range(messages)],
    )
    connection.commit()
    connection.close()


@contextlib.contextmanager
def installed(path: Path, messages: int) -> Iterator[SqliteMessageRepo]:
    """A host history with chat-recall installed (not indexed), and its message repo."""
    host_history(path, messages)
    with bootstrap.sqlite(path) as recall:
        assert isinstance(recall.repo, SqliteMessageRepo)
        yield recall.repo


def page_ids(repo: SqliteMessageRepo, chat_id: int, limit: int = 100) -> list[int]:
    window = repo.page(AppId(1), ChatId(chat_id), 0, limit)
    return [message.id for message in window.messages]


def test_a_fresh_install_adds_no_index_to_host_tables_and_fills_the_order_in_chunks(
    tmp_path: Path,
) -> None:
    path = tmp_path / "host.db"
    host_history(path)
    orphan = sqlite3.connect(path)  # a message of a chat that does not exist: no app
    orphan.execute("INSERT INTO messages(chat_id, role, content) VALUES (77, 'user', 'o')")
    orphan.execute("DELETE FROM messages WHERE id = 4")
    orphan.commit()
    orphan.close()
    database = SqliteDatabase(path, HostSchema.reference())
    with database.writing() as connection:
        migrations.install(connection, database.schema)
    setup.finish(database, BatchSizing(initial=5, minimum=5, maximum=5))
    # the install, then 5+5+5+5+3 and done: the marking and the order fill share each
    # chunk of the walk
    assert database.lock_stats.transactions == 1 + 6
    with database.reading() as connection:
        ours = connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' "
            "AND tbl_name IN ('messages', 'chats') AND name LIKE 'chat_recall%'"
        ).fetchall()
        walks = connection.execute(
            f"SELECT key FROM {migrations.META} WHERE key IN (?, ?)",
            (migrations.MARKING_AFTER, migrations.ORDER_FILLED_AFTER),
        ).fetchall()
        marked = connection.execute(f"SELECT count(*) FROM {migrations.DIRTY_MESSAGES}").fetchone()[
            0
        ]
    assert ours == []
    assert walks == []
    assert marked == 23
    database.close()
    assert copied_order(path) == host_order(path)
    assert len(host_order(path)) == 23
    assert markers(path) == host_markers(path)
    assert (24, None, 77) in markers(path)


def test_the_walk_stays_exact_while_the_host_writes_between_its_chunks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Host writes land between the walk's chunks, ahead of it and behind it: every
    message ends marked with its chat and app, and the order is the host's."""
    path = tmp_path / "host.db"
    host_history(path, messages=40)
    database = SqliteDatabase(path, HostSchema.reference())
    with database.writing() as connection:
        migrations.install(connection, database.schema)
    writes = iter(
        [
            "INSERT INTO messages(chat_id, role, content, created_at) VALUES (2, 'user', 'n', 0)",
            "DELETE FROM messages WHERE id = 33",  # ahead of the walk
            "DELETE FROM messages WHERE id = 2",  # behind it
            "UPDATE messages SET chat_id = 2, created_at = -5 WHERE id = 30",
            "UPDATE messages SET chat_id = 1 WHERE id = 3",
            "DELETE FROM messages WHERE id = 36",
            "INSERT INTO messages(id, chat_id, role, content) VALUES (36, 9, 'user', 'orphan')",
            "INSERT INTO chats(id, app_id, title, created_at) VALUES (9, 4, 'late', 1)",
            "UPDATE messages SET created_at = 'x' WHERE id = 39",
        ]
    )
    host = sqlite3.connect(path, isolation_level=None)

    def host_writes() -> None:
        for write in writes:
            host.execute(write)
            return

    monkeypatch.setattr(database.pacer, "begin", host_writes)  # before each transaction
    setup.finish(database, BatchSizing(initial=4, minimum=4, maximum=4))
    assert next(writes, None) is None  # every write landed during the walk
    host.close()
    database.close()
    assert copied_order(path) == host_order(path)
    # Markers of messages deleted during the walk went with them (the delete trigger).
    assert markers(path) == host_markers(path)


def test_a_walk_chunk_over_the_time_limit_is_rolled_back_and_taken_again_halved(
    tmp_path: Path,
) -> None:
    """With a limit every chunk outlives, each limited one is interrupted and rolled
    back whole; the walk halves down to its smallest chunk (run without a limit) and
    still ends with every message marked and in order."""
    path = tmp_path / "host.db"
    host_history(path)
    database = SqliteDatabase(path, HostSchema.reference())
    with database.writing() as connection:
        migrations.install(connection, database.schema)
    setup.finish(database, BatchSizing(initial=8, minimum=2, maximum=8), limit_seconds=0.0)
    with database.reading() as connection:
        marked = connection.execute(f"SELECT count(*) FROM {migrations.DIRTY_MESSAGES}").fetchone()[
            0
        ]
    database.close()
    assert marked == 23
    assert copied_order(path) == host_order(path)
    assert markers(path) == host_markers(path)


def test_the_triggers_keep_the_order_with_every_host_write(tmp_path: Path) -> None:
    path = tmp_path / "host.db"
    with installed(path, messages=12) as repo:
        host = sqlite3.connect(path, isolation_level=None)
        host.execute("PRAGMA foreign_keys = ON")
        writes = [
            "UPDATE messages SET created_at = 0 WHERE id = 11",  # to the front of chat 1
            "UPDATE messages SET chat_id = 2 WHERE id = 3",  # moved to another chat
            "UPDATE messages SET created_at = 'late' WHERE id = 4",
            "DELETE FROM messages WHERE id = 5",
            "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', 'n', 2)",
            "REPLACE INTO messages(id, chat_id, role, content, created_at) "
            "VALUES (7, 2, 'assistant', 'replaced', -1)",
            "UPDATE messages SET id = 99 WHERE id = 9",
        ]
        for write in writes:
            host.execute(write)
            assert copied_order(path) == host_order(path), write
            for chat_id in (1, 2):
                assert page_ids(repo, chat_id) == expected_ids(path, chat_id), write
        # a host statement's conflict policy applies to its triggers' statements: an
        # order row left for a reused id (a chat's cascade leaves them to maintenance)
        # neither fails the host's write nor keeps its stale chat
        for policy, message_id in (("OR ROLLBACK", 1000), ("OR IGNORE", 1001)):
            host.execute(
                f"INSERT INTO {migrations.MESSAGE_ORDER}(message_id, chat_id, created_at) "
                "VALUES (?, 2, 0)",
                (message_id,),
            )
            host.execute(
                f"INSERT {policy} INTO messages(id, chat_id, role, content, created_at) "
                "VALUES (?, 1, 'user', 'reused', 6)",
                (message_id,),
            )
            assert copied_order(path) == host_order(path), policy
        assert page_ids(repo, 1) == expected_ids(path, 1)
        # an update that sets none of id, chat and time never runs the order trigger:
        # the host's row and its dirty marker (deleted, inserted) are the only changes
        before = host.total_changes
        host.execute("UPDATE messages SET content = 'streamed' WHERE id = 2")
        assert host.total_changes - before == 3
        host.close()


def test_reads_take_the_hosts_order_until_the_order_is_filled(tmp_path: Path) -> None:
    path = tmp_path / "host.db"
    with installed(path, messages=23) as repo:
        first = expected_ids(path, 1)

        def reads() -> tuple[object, ...]:
            return (
                page_ids(repo, 1),
                page_ids(repo, 2, limit=4),
                repo.around(AppId(1), ChatId(1), MessageId(first[5]), 2, 2).messages,
                repo.next_message_ids(AppId(1), [MessageId(i) for i in first]),
                repo.last_message_at(AppId(1), [ChatId(1), ChatId(2)]),
            )

        filled = reads()
        assert filled[0] == first
        connection = sqlite3.connect(path, isolation_level=None)
        connection.execute(f"DELETE FROM {migrations.MESSAGE_ORDER}")  # as a fill begins
        connection.execute(
            f"INSERT INTO {migrations.META}(key, value) VALUES (?, NULL)",
            (migrations.ORDER_FILLED_AFTER,),
        )
        connection.close()
        assert reads() == filled
        database = SqliteDatabase(path, HostSchema.reference())
        setup.finish(database)
        database.close()
        assert copied_order(path) == host_order(path)
        assert reads() == filled


def test_a_stale_order_row_is_never_read(tmp_path: Path) -> None:
    """Rows left by writes the triggers missed (a host migration dropped them) name a
    message that is gone or in another chat: the join to the host's rows drops them."""
    path = tmp_path / "host.db"
    with installed(path, messages=12) as repo:
        connection = sqlite3.connect(path, isolation_level=None)
        connection.execute(
            f"INSERT OR REPLACE INTO {migrations.MESSAGE_ORDER}(message_id, chat_id, created_at) "
            "VALUES (500, 1, 0), (2, 1, 0)"  # a message that never was; one of chat 2's
        )
        connection.close()
        assert page_ids(repo, 1) == expected_ids(path, 1)
        assert 2 not in page_ids(repo, 1)


@pytest.mark.parametrize("engine", [Engine.SQLITE, Engine.TANTIVY])
def test_a_deleted_chats_order_rows_go_with_maintenance(tmp_path: Path, engine: Engine) -> None:
    path = tmp_path / "host.db"
    recall: ChatRecall
    with bootstrap.sqlite(path, create_host_schema=True, engine=engine) as recall:
        big = recall.host.create_chat(AppId(1), "big", 1)
        kept = recall.host.create_chat(AppId(1), "kept", 1)
        for index in range(300):
            recall.host.add_message(big, Role.USER, f"gone words {index}", 2 + index)
        recall.host.add_message(kept, Role.USER, "kept words", 2)
        recall.indexer.run_until_idle()
        connection = sqlite3.connect(path, isolation_level=None)
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute("DELETE FROM chats WHERE id = ?", (big,))
        left = f"SELECT count(*) FROM {migrations.MESSAGE_ORDER} WHERE chat_id = ?"
        # the cascade skipped the triggers (one row for the whole chat)...
        assert connection.execute(left, (big,)).fetchone()[0] == 300
        recall.indexer.run_until_idle()
        # ...and maintenance removed its order rows in bounded steps
        assert connection.execute(left, (big,)).fetchone()[0] == 0
        assert connection.execute(left, (kept,)).fetchone()[0] == 1
        connection.close()


def test_a_chat_deleted_without_foreign_keys_reads_whole_when_it_comes_back(
    tmp_path: Path,
) -> None:
    """Without foreign keys a chat's delete leaves its messages: maintenance keeps
    their order rows, so the chat reads whole when its id comes back (red-team: it read
    empty)."""
    path = tmp_path / "host.db"
    with bootstrap.sqlite(path, create_host_schema=True) as recall:
        chat = recall.host.create_chat(AppId(1), "c", 1)
        first = recall.host.add_message(chat, Role.USER, "alpha words", 10)
        second = recall.host.add_message(chat, Role.USER, "beta words", 20)
        recall.indexer.run_until_idle()
        host = sqlite3.connect(path, isolation_level=None)  # foreign_keys off: no cascade
        host.execute("DELETE FROM chats WHERE id = ?", (chat,))
        recall.indexer.run_until_idle()
        host.execute(
            "INSERT INTO chats(id, app_id, title, created_at) VALUES (?, 1, 'back', 1)", (chat,)
        )
        host.close()
        recall.indexer.run_until_idle()
        window = recall.repo.page(AppId(1), ChatId(chat), 0, 10)
        assert [message.id for message in window.messages] == [first, second]
        assert recall.repo.last_message_at(AppId(1), [ChatId(chat)]) == {ChatId(chat): 20}


def test_a_reused_chat_id_never_reports_a_deleted_messages_time(tmp_path: Path) -> None:
    """A chat deleted with its messages (a cascade: their order rows wait for
    maintenance), its id reused at once: the last message time is the new chat's
    (red-team: it was the deleted message's)."""
    path = tmp_path / "host.db"
    with bootstrap.sqlite(path, create_host_schema=True) as recall:
        chat = recall.host.create_chat(AppId(1), "c", 1)
        recall.host.add_message(chat, Role.USER, "old words", 2_000_000_000)
        host = sqlite3.connect(path, isolation_level=None)
        host.execute("PRAGMA foreign_keys = ON")
        host.execute("DELETE FROM chats WHERE id = ?", (chat,))
        host.execute(
            "INSERT INTO chats(id, app_id, title, created_at) VALUES (?, 1, 'new', 1)", (chat,)
        )
        host.execute(
            "INSERT INTO messages(chat_id, role, content, created_at) "
            "VALUES (?, 'user', 'n', 1000)",
            (chat,),
        )
        host.close()
        assert recall.repo.last_message_at(AppId(1), [ChatId(chat)]) == {ChatId(chat): 1000}


def test_reads_take_the_hosts_order_while_the_triggers_that_keep_it_are_missing(
    tmp_path: Path,
) -> None:
    """A host migration that rebuilt the messages table dropped the triggers: writes
    since then are not in the copy, so reads take the host's order until a start
    recreates the triggers and walks the order again (red-team: a new message was
    missing and a changed time ignored until then)."""
    path = tmp_path / "host.db"
    with installed(path, messages=12) as repo:
        host = sqlite3.connect(path, isolation_level=None)
        for name in migrations.ORDER_KEEPERS:
            host.execute(f"DROP TRIGGER {name}")
        host.execute(
            "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', 'n', 0)"
        )
        host.execute("UPDATE messages SET created_at = 99 WHERE id = 1")
        host.close()
        for chat_id in (1, 2):
            assert page_ids(repo, chat_id) == expected_ids(path, chat_id)


def test_the_walk_steps_over_gaps_in_the_ids_to_the_largest(tmp_path: Path) -> None:
    """A chunk spans ids, not rows, and starts at the next message there is: ids far
    apart take a chunk each, not a walk through the ids between them."""
    path = tmp_path / "host.db"
    host_history(path, messages=3)
    connection = sqlite3.connect(path)
    connection.executemany(
        "INSERT INTO messages(id, chat_id, role, content) VALUES (?, 1, 'user', 'far')",
        [(-7,), (10**12,), (10**12 + 1,), (migrations.LARGEST_ID,)],
    )
    connection.commit()
    connection.close()
    database = SqliteDatabase(path, HostSchema.reference())
    with database.writing() as connection:
        migrations.install(connection, database.schema)
    before = database.lock_stats.transactions
    setup.finish(database, BatchSizing(initial=5, minimum=5, maximum=5))
    # chunks from -7, 1, 10**12 and the largest id; the end
    assert database.lock_stats.transactions - before == 5
    database.close()
    assert copied_order(path) == host_order(path)
    assert markers(path) == host_markers(path)
    assert len(markers(path)) == 7
