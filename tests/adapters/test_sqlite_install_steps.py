"""A fresh install holds the write lock no longer than any other transaction of ours:
one transaction creates the schema and the triggers, reading no host row, and the walks
over the host's messages follow in chunks of their own; an install cut short before its
walks is finished by the next start; installing again changes nothing but the
triggers, which it recreates."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host import migrations, setup
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.schema import REFERENCE_HOST_DDL, HostSchema
from chat_recall.domain.indexing import BatchSizing
from chat_recall.domain.messages import Role


def host_database(path: Path, messages: int = 1) -> None:
    connection = sqlite3.connect(path)
    connection.executescript(REFERENCE_HOST_DDL)
    connection.execute("INSERT INTO chats(id, app_id, title, created_at) VALUES (1, 1, 't', 1)")
    connection.executemany(
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', ?, ?)",
        [(f"hi {index}", 2 + index) for index in range(messages)],
    )
    connection.commit()
    connection.close()


def transactions(statements: list[str]) -> list[list[str]]:
    """The statements of each BEGIN ... COMMIT."""
    found: list[list[str]] = []
    for statement in statements:
        if statement.startswith("BEGIN"):
            found.append([])
        elif found and not statement.startswith("--"):
            found[-1].append(statement.strip())
    return found


def test_a_fresh_install_creates_everything_in_one_transaction_reading_no_host_row(
    tmp_path: Path,
) -> None:
    path = tmp_path / "host.db"
    host_database(path, messages=10)
    traced: list[str] = []
    database = SqliteDatabase(path, HostSchema.reference(), trace=traced.append)
    report = setup.start(database)
    database.close()
    assert report.previous_version == 0
    assert report.dirty_messages == 10
    done = transactions(traced)
    schema = [s for s in done if any(x.startswith("CREATE TRIGGER") for x in s)]
    assert len(schema) == 1  # the tables, the version stamp and the triggers together
    (install,) = schema
    assert any(x.startswith("CREATE TABLE") for x in install)
    assert any("schema_version" in x and x.startswith("INSERT") for x in install)
    assert not any("FROM messages" in x or "FROM chats" in x for x in install)
    walks = [s for s in done if any(migrations.MESSAGE_ORDER in x for x in s) and s != install]
    assert walks  # the order and the markers are filled outside it


def test_an_install_cut_short_before_its_walks_is_finished_by_the_next_start(
    tmp_path: Path,
) -> None:
    path = tmp_path / "host.db"
    host_database(path)
    database = SqliteDatabase(path, HostSchema.reference())
    with database.writing() as connection:  # the install, then the process ends
        assert migrations.install(connection, database.schema) == 0
    database.close()
    with bootstrap.sqlite(path) as recall:
        recall.indexer.run_until_idle()
        chat_id = recall.host.create_chat(1, "later", 3)
        recall.host.add_message(chat_id, Role.USER, "tracked words", 4)
        assert recall.dirty.backlog().messages == 1  # the triggers are there
        recall.indexer.run_until_idle()
        assert len(recall.index.document_ids(1)) == 2  # type: ignore[arg-type]


def test_installing_again_finds_the_version_and_only_recreates_the_triggers(
    tmp_path: Path,
) -> None:
    path = tmp_path / "host.db"
    host_database(path, messages=5)
    with bootstrap.sqlite(path) as recall:
        recall.indexer.run_until_idle()
    traced: list[str] = []
    database = SqliteDatabase(path, HostSchema.reference(), trace=traced.append)
    report = setup.start(database)
    setup.finish(database, BatchSizing(initial=1, minimum=1, maximum=1))
    database.close()
    assert report.previous_version == migrations.SCHEMA_VERSION
    assert report.dirty_messages == 0  # nothing marked again
    created = [s.split()[5] for s in traced if s.startswith(("CREATE TABLE", "CREATE INDEX"))]
    assert created == [migrations.META]  # the one every install first makes sure of
    assert sum(s.startswith("CREATE TRIGGER") for s in traced) == len(migrations.TRIGGERS)
