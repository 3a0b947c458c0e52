"""Orphans: documents whose source went away without the triggers seeing it (a host
that dropped them, as table-rebuilding migrations do, or wrote with them off). Found by
`remove_orphans` at start, in chunks; both adapters alike."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.memory.database import InMemoryDatabase
from chat_recall.adapters.sqlite import index_store
from chat_recall.adapters.sqlite_host import migrations
from chat_recall.application.service import ChatRecall
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId
from chat_recall.domain.query import MatchQuery, ScopedQuery

Unseen = Callable[[ChatRecall, str], None]


def sqlite_recall(tmp_path: Path) -> tuple[ChatRecall, Unseen]:
    path = tmp_path / "host.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)

    def unseen(_: ChatRecall, statement: str) -> None:
        connection = sqlite3.connect(path)
        for name in migrations.TRIGGERS:
            connection.execute(f"DROP TRIGGER IF EXISTS {name}")
        connection.execute(statement)
        connection.commit()
        connection.close()

    return recall, unseen


def memory_recall(_: Path) -> tuple[ChatRecall, Unseen]:
    database = InMemoryDatabase()

    def unseen(_: ChatRecall, statement: str) -> None:
        # the same host writes, straight into the rows (no trigger semantics)
        if statement.startswith("DELETE FROM messages"):
            del database.messages[int(statement.rsplit(" ", 1)[1])]
        else:
            database.messages[int(statement.rsplit(" ", 1)[1])].chat_id = 99

    return bootstrap.in_memory(database=database), unseen


@pytest.fixture(params=[sqlite_recall, memory_recall], ids=["sqlite", "memory"])
def harness(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[ChatRecall, Unseen]:
    recall, unseen = request.param(tmp_path)
    yield recall, unseen
    recall.close()


def found(recall: ChatRecall, word: str) -> list[int]:
    query = ScopedQuery(MatchQuery.of_words(word), AppId(1))
    return [candidate.message_id for candidate in recall.index.search(query)]


def test_documents_whose_source_went_away_unseen_are_removed(
    harness: tuple[ChatRecall, Unseen], monkeypatch: pytest.MonkeyPatch
) -> None:
    recall, unseen = harness
    monkeypatch.setattr(index_store, "ORPHAN_SCAN_CHUNK", 3)  # several chunks
    chat_id = recall.host.create_chat(AppId(1), "t", 1)
    ids = [recall.host.add_message(chat_id, Role.USER, f"ghost {i}", 2 + i) for i in range(8)]
    recall.host.create_chat(AppId(1), "elsewhere", 1, chat_id=99)
    recall.indexer.run_until_idle()
    unseen(recall, f"DELETE FROM messages WHERE id = {ids[1]}")
    unseen(recall, f"UPDATE messages SET chat_id = 99 WHERE id = {ids[6]}")
    assert recall.index.remove_orphans() == 2
    assert sorted(found(recall, "ghost")) == [i for i in ids if i not in (ids[1], ids[6])]
    assert recall.index.remove_orphans() == 0
