"""A host's own role names (`HostSchema.roles`): 'User', or LangChain's 'human' and
'ai', are indexed and read as user and assistant; other roles still are not."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from chat_recall import CallContext
from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host.message_repo import SqliteMessageRepo
from chat_recall.adapters.sqlite_host.schema import HostSchema
from chat_recall.application.service import ChatRecall
from chat_recall.domain.messages import Role

NAMES = {"human": "user", "User": "user", "ai": "assistant"}


def _check(recall: ChatRecall, chat_id: int) -> None:
    recall.indexer.run_until_idle()
    found = json.loads(recall.search_chats(CallContext(1), {"query": "ZEBRAWORD"}))
    assert found["results"][0]["chat_id"] == chat_id
    read = json.loads(recall.read_chat(CallContext(1), {"chat_id": chat_id, "limit": 10}))
    assert [m["role"] for m in read["messages"]] == ["user", "user", "assistant"]
    assert "prompt" not in json.dumps(read)


def test_sqlite_reads_and_writes_the_hosts_role_names(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    schema = HostSchema(roles=NAMES)
    recall = bootstrap.sqlite(path, schema=schema, create_host_schema=True)
    connection = sqlite3.connect(path)
    chat_id = recall.host.create_chat(1, "Storage", 1_700_000_000)
    for role, content in [
        ("human", "which ZEBRAWORD store?"),
        ("User", "ZEBRAWORD again"),
        ("ai", "ZEBRAWORD: SQLite"),
        ("system", "ZEBRAWORD prompt"),
    ]:
        connection.execute(
            "INSERT INTO messages(chat_id, role, content, created_at) VALUES (?, ?, ?, ?)",
            (chat_id, role, content, 1_700_000_100),
        )
    connection.commit()
    _check(recall, chat_id)
    repo = SqliteMessageRepo(recall.repo.database)  # type: ignore[attr-defined]
    assert repo.never_indexed() == [("role 'system' is not indexed", 1)]
    recall.host.add_message(chat_id, Role.ASSISTANT, "written by chat-recall", 1_700_000_200)
    recall.host.add_message(chat_id, Role.USER, "written by chat-recall", 1_700_000_300)
    stored = connection.execute("SELECT role FROM messages ORDER BY id DESC LIMIT 2").fetchall()
    assert stored == [("human",), ("ai",)]  # the host's first name for each role
    recall.close()
    connection.close()


def test_postgres_reads_the_hosts_role_names(postgres_dsn: str) -> None:
    import psycopg

    recall = bootstrap.postgres(
        postgres_dsn, schema=HostSchema(roles=NAMES), create_host_schema=True
    )
    chat_id = recall.host.create_chat(1, "Storage", 1_700_000_000)
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        for role, content in [
            ("human", "which ZEBRAWORD store?"),
            ("User", "ZEBRAWORD again"),
            ("ai", "ZEBRAWORD: SQLite"),
            ("system", "ZEBRAWORD prompt"),
        ]:
            connection.execute(
                "INSERT INTO messages(chat_id, role, content, created_at) VALUES (%s, %s, %s, %s)",
                (chat_id, role, content, 1_700_000_100),
            )
    _check(recall, chat_id)
    recall.close()


def test_role_names_are_checked_and_leave_the_default_fingerprint_alone() -> None:
    # the reference mapping's fingerprint before `roles` existed: no index re-projects
    assert HostSchema().fingerprint() == HostSchema(roles={}).fingerprint() == "29e6282ca4e8"
    assert HostSchema(roles=NAMES).fingerprint() != HostSchema().fingerprint()
    assert HostSchema(roles=NAMES) == HostSchema(roles=list(NAMES.items()))
    with pytest.raises(ValueError, match="is not a role name"):
        HostSchema(roles={"it's": "user"})
    with pytest.raises(ValueError, match="system"):
        HostSchema(roles={"sys": "system"})
