"""What the PostgreSQL adapter promises beyond the contracts: a batch applied at most
once across indexer processes, deleted is deleted even for a batch in flight, a chat's
delete costs the host one tombstone, a lost connection is retried."""

from __future__ import annotations

from collections.abc import Iterator

import attrs
import psycopg
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.indexing import build_document
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId
from chat_recall.domain.query import MatchQuery, ScopedQuery

APP = AppId(1)


@pytest.fixture
def recall(postgres_dsn: str) -> Iterator[ChatRecall]:
    instance = bootstrap.postgres(postgres_dsn, create_host_schema=True)
    yield instance
    instance.close()


def found(recall: ChatRecall, word: str) -> list[int]:
    return [c.message_id for c in recall.index.search(ScopedQuery(MatchQuery.of_words(word), APP))]


def test_two_indexers_never_apply_the_same_batch_twice(
    recall: ChatRecall, postgres_dsn: str
) -> None:
    chat_id = recall.host.create_chat(APP, "c", 1)
    ids = [recall.host.add_message(chat_id, Role.USER, f"first{i}", 2 + i) for i in range(5)]
    other = bootstrap.postgres(postgres_dsn, install=False)  # a second indexer process
    try:
        markers = recall.dirty.pending_messages(10)
        assert other.dirty.pending_messages(10) == markers  # both read the same batch
        rows = recall.repo.source_rows([m.id for m in markers])
        documents = [d for row in rows if (d := build_document(row, recall.policy))]
        with recall.unit_of_work.transaction() as writer:
            writer.put(documents)
            writer.clear(markers)
        late = [attrs.evolve(d, body="secondapply") for d in documents]
        with other.unit_of_work.transaction() as writer:
            writer.put(late)
            writer.clear(markers)
        assert found(recall, "secondapply") == []  # its markers were claimed: dropped
        assert found(recall, "first3") == [ids[3]]
        assert recall.dirty.backlog().messages == 0
    finally:
        other.close()


def test_a_message_deleted_while_its_batch_is_in_flight_is_never_returned(
    recall: ChatRecall,
) -> None:
    chat_id = recall.host.create_chat(APP, "c", 1)
    message = recall.host.add_message(chat_id, Role.USER, "inflight words", 2)
    markers = recall.dirty.pending_messages(10)
    rows = recall.repo.source_rows([m.id for m in markers])  # the batch read the row
    recall.host.delete_message(message)  # the host deletes it before the batch commits
    with recall.unit_of_work.transaction() as writer:
        writer.put([d for row in rows if (d := build_document(row, recall.policy))])
        writer.clear(markers)
    assert found(recall, "inflight") == []
    assert recall.index.documents(APP, [message]) == []
    # The delete removed the marker, so the batch could not claim it and wrote nothing.
    assert recall.index.remove_orphans() == 0


def test_deleting_a_large_chat_costs_the_host_one_tombstone(
    recall: ChatRecall, postgres_dsn: str
) -> None:
    chat_id = recall.host.create_chat(APP, "big", 1)
    with psycopg.connect(postgres_dsn) as connection:
        connection.execute(
            "INSERT INTO messages (chat_id, role, content, created_at) "
            "SELECT %s, 'user', 'word ' || g, g FROM generate_series(1, 2000) AS g",
            (chat_id,),
        )
    recall.indexer.run_until_idle()
    assert recall.index.stats(APP).documents == 2000
    with psycopg.connect(postgres_dsn) as connection:
        connection.execute("DELETE FROM chats WHERE id = %s", (chat_id,))
        purges, tombstones = connection.execute(
            "SELECT (SELECT count(*) FROM chat_recall_purge), "
            "(SELECT count(*) FROM chat_recall_deleted_chats)"
        ).fetchone() or (None, None)
    assert (purges, tombstones) == (0, 1)  # no per-message work in the host's transaction
    assert found(recall, "word") == []
    assert recall.index.stats(APP).unreclaimed == 2000
    while recall.index.maintain().more:
        pass
    assert recall.index.stats(APP).documents == 0
    assert recall.index.stats(APP).unreclaimed == 0


def test_a_lost_connection_is_retried_not_raised(recall: ChatRecall, postgres_dsn: str) -> None:
    chat_id = recall.host.create_chat(APP, "c", 1)
    recall.host.add_message(chat_id, Role.USER, "survives restarts", 2)
    recall.indexer.run_until_idle()
    assert len(found(recall, "survives")) == 1
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        killed = connection.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE usename = current_user AND pid <> pg_backend_pid() "
            "AND datname = current_database()"
        ).fetchone()
    assert killed is not None
    assert killed[0] >= 1  # the pool's connections are gone
    assert len(found(recall, "survives")) == 1  # the read was tried again, fresh
    output = recall.search_chats(CallContext(APP), {"query": "survives"})
    assert '"error"' not in output
