"""A document row with a role chat-recall never writes (damaged data): every search
failed with `internal` and status called the index healthy. It is left out of reads,
reported by status with the fix, and `rebuild` clears it (found by a red-team on
PostgreSQL; the SQLite adapter did the same)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.cli.exits import Exit
from chat_recall.adapters.cli.main import main
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.messages import Role


def _seed(recall: ChatRecall) -> tuple[int, int]:
    chat_id = recall.host.create_chat(1, "c", 1_700_000_000)
    damaged = recall.host.add_message(chat_id, Role.USER, "kiwi first", 1_700_000_001)
    kept = recall.host.add_message(chat_id, Role.USER, "kiwi second", 1_700_000_002)
    recall.indexer.run_until_idle()
    return damaged, kept


def _check(
    db: str, open_: Callable[[], ChatRecall], capsys: pytest.CaptureFixture[str], kept: int
) -> None:
    recall = open_()
    found = json.loads(recall.search_chats(CallContext(1), {"query": "kiwi"}))
    assert [m["message_id"] for r in found["results"] for m in r["matches"]] == [kept]
    recall.close()
    capsys.readouterr()
    assert main(["status", "--db", db, "--format", "json"]) == Exit.UNHEALTHY
    assert json.loads(capsys.readouterr().out)["problems"] == [
        "documents: 1 document rows hold an unknown role"
    ]
    assert main(["rebuild", "--db", db, "--quiet"]) == Exit.OK
    assert main(["status", "--db", db, "--format", "json"]) == Exit.OK


def test_sqlite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "h.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)
    damaged, kept = _seed(recall)
    recall.close()
    connection = sqlite3.connect(path)
    connection.execute(
        "UPDATE chat_recall_docs SET role = 'bogus' WHERE message_id = ?", (damaged,)
    )
    connection.commit()
    connection.close()
    _check(str(path), lambda: bootstrap.sqlite(path, install=False), capsys, kept)


def test_postgres(postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    import psycopg

    recall = bootstrap.postgres(postgres_dsn, create_host_schema=True)
    damaged, kept = _seed(recall)
    recall.close()
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute(
            "UPDATE chat_recall_docs SET role = 'bogus' WHERE message_id = %s", (damaged,)
        )
    _check(postgres_dsn, lambda: bootstrap.postgres(postgres_dsn, install=False), capsys, kept)


def _indexes_a_new_message(recall: ChatRecall) -> None:
    """A new indexer (it must claim the queue first) indexes a new message."""
    chat_id = recall.host.create_chat(1, "d", 1_700_000_100)
    later = recall.host.add_message(chat_id, Role.USER, "papaya", 1_700_000_101)
    recall.indexer.run_until_idle()
    found = json.loads(recall.search_chats(CallContext(1), {"query": "papaya"}))
    assert found["results"][0]["matches"][0]["message_id"] == later
    recall.close()


@pytest.mark.parametrize("value", ["garbage", '["x", "not a time"]', "[1, 2]", ""])
def test_a_damaged_indexer_claim_does_not_stop_indexing_sqlite(tmp_path: Path, value: str) -> None:
    """The claim row in chat_recall_meta holding something unreadable made every
    indexer fail ('malformed JSON') until someone deleted it by hand."""
    path = tmp_path / "h.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)
    _seed(recall)
    recall.close()
    connection = sqlite3.connect(path)
    connection.execute(
        "INSERT OR REPLACE INTO chat_recall_meta(key, value) VALUES ('indexer', ?)", (value,)
    )
    connection.commit()
    connection.close()
    _indexes_a_new_message(bootstrap.sqlite(path))


@pytest.mark.parametrize("value", ["garbage", '["x", "not a time"]', "[1, 2]", ""])
def test_a_damaged_indexer_claim_does_not_stop_indexing_postgres(
    postgres_dsn: str, value: str
) -> None:
    import psycopg

    recall = bootstrap.postgres(postgres_dsn, create_host_schema=True)
    _seed(recall)
    recall.close()
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute(
            "INSERT INTO chat_recall_meta(key, value) VALUES ('indexer', %s) "
            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (value,),
        )
    _indexes_a_new_message(bootstrap.postgres(postgres_dsn))
