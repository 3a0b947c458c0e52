"""What the PostgreSQL adapter promises beyond the contracts: a batch applied at most
once across indexer processes, deleted is deleted even for a batch in flight, a chat's
delete costs the host one tombstone, a lost connection is retried, a stored schema
version this release cannot use is refused as on SQLite and never re-stamped."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import attrs
import psycopg
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.cli.exits import Exit
from chat_recall.adapters.cli.main import main
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.errors import IndexUnavailable
from chat_recall.domain.indexing import build_document
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId
from chat_recall.domain.query import MatchQuery, ScopedQuery
from tests.postgres_server import terminate_other_connections

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


def test_bulk_host_statements_are_marked_and_deleted_as_single_rows_are(
    recall: ChatRecall, postgres_dsn: str
) -> None:
    """The insert and delete triggers run once per statement, over its transition table:
    every row of a bulk INSERT is marked with its own chat's app, and every row of a
    bulk DELETE is hidden at once and reclaimed later."""
    mine = recall.host.create_chat(APP, "mine", 1)
    theirs = recall.host.create_chat(AppId(2), "theirs", 1)
    with psycopg.connect(postgres_dsn) as connection:
        connection.execute(
            "INSERT INTO messages (chat_id, role, content, created_at) "
            "SELECT CASE WHEN g %% 2 = 0 THEN %s ELSE %s END, 'user', 'dugong ' || g, g "
            "FROM generate_series(1, 300) AS g",
            (mine, theirs),
        )
        marked = dict(
            connection.execute(
                "SELECT app_id, count(*) FROM chat_recall_dirty_messages GROUP BY app_id"
            ).fetchall()
        )
    assert marked == {1: 150, 2: 150}
    recall.indexer.run_until_idle()
    assert recall.index.stats(APP).documents == 150
    assert recall.index.stats(AppId(2)).documents == 150
    with psycopg.connect(postgres_dsn) as connection:
        connection.execute(
            "DELETE FROM messages WHERE chat_id = %s AND created_at %% 4 = 0", (mine,)
        )
        kept = {
            row[0]
            for row in connection.execute("SELECT id FROM messages WHERE chat_id = %s", (mine,))
        }
    assert len(kept) == 75
    query = ScopedQuery(MatchQuery.of_words("dugong"), APP, window=500)
    assert {c.message_id for c in recall.index.search(query)} == kept
    assert recall.index.stats(APP).unreclaimed == 75
    while recall.index.maintain().more:
        pass
    assert set(recall.index.document_ids(APP)) == kept
    assert recall.index.stats(AppId(2)).documents == 150


def test_an_id_deleted_and_written_again_in_one_statement_is_indexed_as_it_is_now(
    recall: ChatRecall, postgres_dsn: str
) -> None:
    """The delete trigger runs once per statement, after its row triggers: it removed
    the marker an insert under the same id had just left, and the tombstone never
    cleared (the backlog never emptied). Found by a red-team."""
    chat_id = recall.host.create_chat(APP, "c", 1)
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute(
            "INSERT INTO messages (id, chat_id, role, content, created_at) "
            "SELECT g, %s, 'user', 'base' || g, g FROM generate_series(1, 8) AS g",
            (chat_id,),
        )
    recall.indexer.run_until_idle()
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute(  # a host trigger that leaves a placeholder under the id
            "CREATE FUNCTION placeholder() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "IF OLD.content NOT LIKE 'placeholder%%' THEN INSERT INTO messages "
            "(id, chat_id, role, content, created_at) VALUES (OLD.id, OLD.chat_id, "
            "OLD.role, 'placeholder' || OLD.id, OLD.created_at); END IF; RETURN NULL; END $$"
        )
        connection.execute(
            "CREATE TRIGGER placeholder AFTER DELETE ON messages FOR EACH ROW "
            "EXECUTE FUNCTION placeholder()"
        )
        connection.execute("DELETE FROM messages WHERE id = 2")
        connection.execute("DROP TRIGGER placeholder ON messages")
        connection.execute(
            "WITH d AS (DELETE FROM messages WHERE id = 3 RETURNING id) "
            "INSERT INTO messages (id, chat_id, role, content, created_at) "
            "SELECT 3, %s, 'user', 'fresh3', 9 WHERE EXISTS (SELECT 1 FROM d)",
            (chat_id,),
        )
        connection.execute(
            "WITH d AS (DELETE FROM messages WHERE id = 5 RETURNING id) "
            "UPDATE messages SET id = 5 WHERE id = 6 AND EXISTS (SELECT 1 FROM d)"
        )
    assert found(recall, "base2") == found(recall, "base3") == found(recall, "base5") == []
    recall.indexer.run_until_idle(max_batches=50)  # unbounded, it never returned
    for _ in range(50):
        if not recall.index.maintain().more:
            break
    assert recall.dirty.backlog().is_empty
    assert found(recall, "placeholder2") == [2]
    assert found(recall, "fresh3") == [3]
    assert found(recall, "base6") == [5]
    assert found(recall, "base2") == found(recall, "base3") == found(recall, "base5") == []


def test_a_statement_that_holds_an_id_twice_under_a_deferrable_key_succeeds(
    recall: ChatRecall, postgres_dsn: str
) -> None:
    """The host's statement succeeds (a set-based marker upsert refused it: "ON
    CONFLICT DO UPDATE command cannot affect row a second time")."""
    chat_id = recall.host.create_chat(APP, "c", 1)
    with psycopg.connect(postgres_dsn) as connection:
        connection.execute("ALTER TABLE messages DROP CONSTRAINT messages_pkey CASCADE")
        connection.execute(
            "ALTER TABLE messages ADD PRIMARY KEY (id) DEFERRABLE INITIALLY DEFERRED"
        )
        connection.commit()
        connection.execute(
            "INSERT INTO messages (id, chat_id, role, content, created_at) "
            "VALUES (30, %s, 'user', 'first', 1), (30, %s, 'user', 'second', 2)",
            (chat_id, chat_id),
        )
        connection.execute("DELETE FROM messages WHERE id = 30 AND content = 'second'")
        connection.commit()
        kept = connection.execute("SELECT content FROM messages WHERE id = 30").fetchall()
    assert kept == [("first",)]


def test_a_lost_connection_is_retried_not_raised(recall: ChatRecall, postgres_dsn: str) -> None:
    chat_id = recall.host.create_chat(APP, "c", 1)
    recall.host.add_message(chat_id, Role.USER, "survives restarts", 2)
    recall.indexer.run_until_idle()
    assert len(found(recall, "survives")) == 1
    assert terminate_other_connections(postgres_dsn) >= 1  # the pool's connections are gone
    assert len(found(recall, "survives")) == 1  # the read was tried again, fresh
    output = recall.search_chats(CallContext(APP), {"query": "survives"})
    assert '"error"' not in output


def test_odd_host_values_are_quarantined_and_every_other_row_indexed(postgres_dsn: str) -> None:
    """A host whose times are text (ISO, milliseconds, or junk) and whose flag is an
    integer: readable rows are indexed, the rest set aside with their reason, and
    read_chat shows the chat with placeholders instead of failing."""
    with psycopg.connect(postgres_dsn) as connection:
        connection.execute(
            "CREATE TABLE chats (id bigint PRIMARY KEY, app_id bigint, title text, created_at text)"
        )
        connection.execute(
            "CREATE TABLE messages (id bigint PRIMARY KEY, chat_id bigint REFERENCES chats "
            "ON DELETE CASCADE, role text, content text, created_at text, "
            "is_compaction_summary integer)"
        )
        connection.execute("INSERT INTO chats VALUES (1, 1, 'odd', '2024-01-01 10:00:00')")
        connection.execute(
            "INSERT INTO messages VALUES "
            "(1, 1, 'user', 'iso words', '2024-01-01T10:00:00Z', 0), "
            "(2, 1, 'user', 'millis words', '1704103200000', 1), "
            "(3, 1, 'user', 'junk words', 'yesterday', 0), "
            "(4, 1, 'user', 'empty words', '', 0), "
            "(5, 1, 'user', 'missing words', NULL, 0)"
        )
    with bootstrap.postgres(postgres_dsn) as recall:
        recall.indexer.run_until_idle()
        assert found(recall, "words") == [1, 2]
        quarantine = recall.index.quarantine(10)
        assert [(row.message_id, row.reason.value) for row in quarantine.rows] == [
            (3, "timestamp_unparseable"),
            (4, "timestamp_unparseable"),
            (5, "timestamp_missing"),
        ]
        output = recall.read_chat(CallContext(APP), {"chat_id": 1})
        assert '"error"' not in output
        assert recall.dirty.backlog().messages == 0


def _stamp_and_triggers(dsn: str) -> tuple[object, list[tuple[str, int]], int]:
    """The stored schema version, our triggers with their oids (a recreated trigger
    gets a new one), and the host's message count."""
    with psycopg.connect(dsn) as connection:
        stamp = connection.execute(
            "SELECT value FROM chat_recall_meta WHERE key = 'schema_version'"
        ).fetchone()
        triggers = connection.execute(
            "SELECT tgname, oid::bigint FROM pg_trigger WHERE tgname LIKE 'chat\\_recall\\_%' "
            "AND tgrelid = ANY (ARRAY['messages'::regclass, 'chats'::regclass]) ORDER BY 1"
        ).fetchall()
        host = connection.execute("SELECT count(*) FROM messages").fetchone()
    assert stamp is not None
    assert host is not None
    return stamp[0], [(str(name), int(oid)) for name, oid in triggers], int(host[0])


@pytest.mark.parametrize(
    ("stored", "fix", "message"),
    [
        ("99", "upgrade", "written by a newer chat-recall (schema version 99"),
        ("abc", "rebuild", "holds schema_version 'abc', which is no chat-recall version"),
        ("-1", "rebuild", "which is no chat-recall version"),
    ],
)
def test_an_unusable_schema_version_is_a_clear_error_never_restamped(
    postgres_dsn: str, capsys: pytest.CaptureFixture[str], stored: str, fix: str, message: str
) -> None:
    with bootstrap.postgres(postgres_dsn, create_host_schema=True) as recall:
        chat_id = recall.host.create_chat(APP, "c", 1)
        recall.host.add_message(chat_id, Role.USER, "stamped words", 2)
        recall.indexer.run_until_idle()
    with psycopg.connect(postgres_dsn) as connection:
        connection.execute(
            "UPDATE chat_recall_meta SET value = %s WHERE key = 'schema_version'", (stored,)
        )
    before = _stamp_and_triggers(postgres_dsn)
    assert before[0] == stored
    assert len(before[1]) == 6
    with pytest.raises(IndexUnavailable, match=re.escape(message)):
        bootstrap.postgres(postgres_dsn)  # install
    with pytest.raises(IndexUnavailable, match=re.escape(message)):
        bootstrap.postgres(postgres_dsn, install=False)  # read-only start
    capsys.readouterr()
    code = main(["status", "--db", postgres_dsn, "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == Exit.UNHEALTHY
    assert report["schema_version"] == (int(stored) if stored.isdigit() else stored)
    assert report["checks"] == [
        {
            "check": "schema_version",
            "subject": f"version {stored}",
            "ok": False,
            "problem": report["checks"][0]["problem"],
            "fix": fix,
        }
    ]
    assert message in report["problems"][0]
    for command in ("index", "install", "repair"):
        assert main([command, "--db", postgres_dsn]) == Exit.FAILED
        assert message in capsys.readouterr().err
    assert _stamp_and_triggers(postgres_dsn) == before  # never re-stamped nor recreated
    assert main(["rebuild", "--db", postgres_dsn, "--quiet"]) == Exit.OK
    assert main(["status", "--db", postgres_dsn]) == Exit.OK
    after = _stamp_and_triggers(postgres_dsn)
    assert (after[0], after[2]) == ("1", before[2])  # host rows untouched
    with bootstrap.postgres(postgres_dsn, install=False) as recall:
        assert len(found(recall, "stamped")) == 1
