"""A fresh install holds the write lock no longer than any other transaction of ours:
one migration per transaction, each with its version, the triggers last; an install cut
short between two steps is finished by the next start; an upgrade keeps the host's
writes tracked throughout (one transaction)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host import migrations, setup
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.schema import REFERENCE_HOST_DDL, HostSchema
from chat_recall.domain.messages import Role


def host_database(path: Path) -> None:
    connection = sqlite3.connect(path)
    connection.executescript(REFERENCE_HOST_DDL)
    connection.execute("INSERT INTO chats(id, app_id, title, created_at) VALUES (1, 1, 't', 1)")
    connection.execute(
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', 'hi', 2)"
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


def test_a_fresh_install_takes_one_migration_per_transaction_and_the_triggers_last(
    tmp_path: Path,
) -> None:
    path = tmp_path / "host.db"
    host_database(path)
    traced: list[str] = []
    database = SqliteDatabase(path, HostSchema.reference(), trace=traced.append)
    report = setup.start(database)
    database.close()
    assert report.previous_version == 0
    steps = [
        statements
        for statements in transactions(traced)
        if any("schema_version" in s and s.startswith("INSERT") for s in statements)
    ]
    assert len(steps) == migrations.SCHEMA_VERSION  # one version stamp per transaction
    triggers = [
        statements
        for statements in transactions(traced)
        if any(s.startswith("CREATE TRIGGER") for s in statements)
    ]
    assert len(triggers) == 1  # all of them, in a transaction of their own, after
    assert not any(s.startswith("CREATE TABLE") for s in triggers[0][1:])


def test_an_install_cut_short_between_two_steps_is_finished_by_the_next_start(
    tmp_path: Path,
) -> None:
    path = tmp_path / "host.db"
    host_database(path)
    database = SqliteDatabase(path, HostSchema.reference())
    for _ in range(2):  # two steps, then the process ends
        with database.writing() as connection:
            migrations.install_step(connection, database.schema)
    database.close()
    with bootstrap.sqlite(path) as recall:
        recall.indexer.run_until_idle()
        chat_id = recall.host.create_chat(1, "later", 3)
        recall.host.add_message(chat_id, Role.USER, "tracked words", 4)
        assert recall.dirty.backlog().messages == 1  # the triggers are there
        recall.indexer.run_until_idle()
        assert len(recall.index.document_ids(1)) == 2  # type: ignore[arg-type]


def test_an_upgrade_keeps_the_hosts_writes_tracked_in_one_transaction(tmp_path: Path) -> None:
    path = tmp_path / "host.db"
    host_database(path)
    bootstrap.sqlite(path).close()  # installed: the triggers exist
    database = SqliteDatabase(path, HostSchema.reference())
    with database.writing() as connection:
        found, done = migrations.install_step(connection, database.schema)
    database.close()
    assert (found, done) == (migrations.SCHEMA_VERSION, True)
