"""Installing into a host's PostgreSQL database never makes a host write fail or wait:
triggers that work whatever the host session's search path, text ids refused before
any trigger exists, and a start that changes nothing takes no lock on the host's
tables (found by a red-team of the PostgreSQL adapter)."""

from __future__ import annotations

import psycopg
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.domain.errors import IndexUnavailable, SchemaMismatch
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId
from chat_recall.domain.query import MatchQuery, ScopedQuery
from tests.postgres_server import Server

APP = AppId(1)


def _schema_of(dsn: str) -> str:
    with psycopg.connect(dsn) as connection:
        row = connection.execute("SELECT current_schema()").fetchone()
    assert row is not None
    return str(row[0])


def _our_triggers(dsn: str) -> int:
    with psycopg.connect(dsn) as connection:
        row = connection.execute(
            "SELECT count(*) FROM pg_trigger AS t JOIN pg_class AS r ON r.oid = t.tgrelid "
            "WHERE t.tgname LIKE 'chat\\_recall\\_%' "
            "AND r.relnamespace = current_schema()::regnamespace"
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_host_sessions_with_another_search_path_write_as_before(
    postgres_dsn: str, postgres_server: Server
) -> None:
    """Installed with the host's schema on the search path (as the README says); the
    host's own sessions write with the default path and qualified names."""
    recall = bootstrap.postgres(postgres_dsn, create_host_schema=True)
    namespace = _schema_of(postgres_dsn)
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as host:  # default path
        chat = host.execute(
            f"INSERT INTO {namespace}.chats (app_id, title) VALUES (1, 'Storage') RETURNING id"
        ).fetchone()
        assert chat is not None
        message = host.execute(
            f"INSERT INTO {namespace}.messages (chat_id, role, content) "
            "VALUES (%s, 'user', 'first words') RETURNING id",
            (chat[0],),
        ).fetchone()
        assert message is not None
        host.execute(
            f"UPDATE {namespace}.messages SET content = 'narwhal' WHERE id = %s", (message[0],)
        )
        host.execute(f"UPDATE {namespace}.chats SET title = 'Renamed' WHERE id = %s", (chat[0],))
        gone = host.execute(
            f"INSERT INTO {namespace}.messages (chat_id, role, content) "
            "VALUES (%s, 'user', 'narwhal too') RETURNING id",
            (chat[0],),
        ).fetchone()
        assert gone is not None
        host.execute(f"DELETE FROM {namespace}.messages WHERE id = %s", (gone[0],))
    recall.indexer.run_until_idle()
    query = ScopedQuery(MatchQuery.of_words("narwhal"), APP)
    assert [c.message_id for c in recall.index.search(query)] == [message[0]]
    recall.close()


@pytest.mark.parametrize("id_type", ["uuid", "text"])
def test_a_host_with_text_ids_is_refused_before_any_trigger_exists(
    postgres_dsn: str, id_type: str
) -> None:
    default = "gen_random_uuid()" if id_type == "uuid" else "md5(random()::text)"
    with psycopg.connect(postgres_dsn, autocommit=True) as host:
        host.execute(
            f"CREATE TABLE chats (id {id_type} PRIMARY KEY DEFAULT {default}, "
            "app_id bigint NOT NULL, title text, created_at bigint)"
        )
        host.execute(
            f"CREATE TABLE messages (id {id_type} PRIMARY KEY DEFAULT {default}, "
            f"chat_id {id_type} NOT NULL, role text, content text, created_at bigint, "
            "is_compaction_summary boolean)"
        )
    with pytest.raises(SchemaMismatch, match=f"chats.id is declared {id_type}"):
        bootstrap.postgres(postgres_dsn)
    assert _our_triggers(postgres_dsn) == 0
    with psycopg.connect(postgres_dsn, autocommit=True) as host:  # the host writes as before
        chat = host.execute("INSERT INTO chats (app_id) VALUES (1) RETURNING id").fetchone()
        assert chat is not None
        host.execute("INSERT INTO messages (chat_id, role) VALUES (%s, 'user')", (chat[0],))


def test_a_start_that_changes_nothing_takes_no_lock_on_the_hosts_tables(
    postgres_dsn: str,
) -> None:
    """Every start dropped and created the triggers: behind an open host transaction on
    `messages` it waited 5 s (queueing every other host statement behind it), then
    failed. Unchanged triggers are now left alone."""
    first = bootstrap.postgres(postgres_dsn, create_host_schema=True)
    chat_id = first.host.create_chat(1, "c", 1_700_000_000)
    first.close()
    with psycopg.connect(postgres_dsn) as host:
        host.execute(
            "INSERT INTO messages (chat_id, role, content) VALUES (%s, 'user', 'x')", (chat_id,)
        )  # open: holds its lock on messages until the end of the block
        again = bootstrap.postgres(postgres_dsn)  # with lock_timeout 5 s, it raised here
        again.close()
        host.rollback()
    assert _our_triggers(postgres_dsn) == 6


def test_an_id_the_host_deleted_and_used_again_never_returns_the_deleted_text(
    postgres_dsn: str,
) -> None:
    """The live-row join found the new message under the old id, so the document of
    the deleted one came back as its excerpt until the indexer ran, and after a
    maintenance step that dropped the tombstone too."""
    recall = bootstrap.postgres(postgres_dsn, create_host_schema=True)
    chat_id = recall.host.create_chat(1, "c", 1_700_000_000)
    with psycopg.connect(postgres_dsn, autocommit=True) as host:
        host.execute(
            "INSERT INTO messages (id, chat_id, role, content) "
            "VALUES (5, %s, 'user', 'the unseal phrase is purple elephant')",
            (chat_id,),
        )
    recall.indexer.run_until_idle()
    query = ScopedQuery(MatchQuery.of_words("elephant"), APP)
    assert [c.message_id for c in recall.index.search(query)] == [5]
    with psycopg.connect(postgres_dsn, autocommit=True) as host:
        host.execute("DELETE FROM messages WHERE id = 5")
        host.execute(
            "INSERT INTO messages (id, chat_id, role, content) VALUES (5, %s, 'user', 'harmless')",
            (chat_id,),
        )
    assert recall.index.search(query) == []
    assert recall.index.documents(APP, [5]) == []
    while recall.index.maintain().more:
        pass
    assert recall.index.search(query) == []
    recall.indexer.run_until_idle()
    assert recall.index.search(query) == []
    harmless = ScopedQuery(MatchQuery.of_words("harmless"), APP)
    assert [c.message_id for c in recall.index.search(harmless)] == [5]
    recall.close()


def test_a_batch_skips_a_marker_a_host_transaction_holds(postgres_dsn: str) -> None:
    """The claim waited for the host's lock on one marker while holding the others it
    had deleted: host writes to those messages waited 5 s each. It skips it now; the
    message stays dirty and is indexed once the host commits."""
    recall = bootstrap.postgres(postgres_dsn, create_host_schema=True)
    chat_id = recall.host.create_chat(1, "c", 1_700_000_000)
    ids = [
        recall.host.add_message(chat_id, Role.USER, f"word{n}", 1_700_000_000 + n) for n in range(5)
    ]
    recall.indexer.run_until_idle()
    with psycopg.connect(postgres_dsn, autocommit=True) as host:
        host.execute("UPDATE messages SET content = content || ' quokka'")  # all dirty
    with psycopg.connect(postgres_dsn) as holder:
        holder.execute("UPDATE messages SET content = 'wombat' WHERE id = %s", (ids[-1],))
        report = recall.indexer.run_batch()  # waited, then failed on the lock timeout
        assert report.indexed == 4
        holder.commit()
    recall.indexer.run_until_idle()
    quokka = ScopedQuery(MatchQuery.of_words("quokka"), APP)
    assert sorted(c.message_id for c in recall.index.search(quokka)) == ids[:-1]
    wombat = ScopedQuery(MatchQuery.of_words("wombat"), APP)
    assert [c.message_id for c in recall.index.search(wombat)] == [ids[-1]]
    recall.close()


@pytest.mark.parametrize(
    ("dsn", "reason"),
    [
        ("postgresql://chat_recall:Sekr3tPassw0rd@[::1/db", "IPv6 host address"),
        ("postgresql://chat_recall@127.0.0.1:1/postgres", "connect"),
    ],
)
def test_a_connection_that_cannot_work_fails_at_once_naming_why(
    dsn: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A malformed URL or a server that is not there: one line with libpq's reason and
    no password, at once (the pool retried for 27 s, warning five times)."""
    from chat_recall.adapters.cli.exits import Exit
    from chat_recall.adapters.cli.main import main

    with pytest.raises(IndexUnavailable, match=f"cannot connect to PostgreSQL: .*{reason}"):
        bootstrap.postgres(dsn)
    assert main(["status", "--db", dsn]) == Exit.FAILED
    assert main(["search", "--db", dsn, "--app", "1", "x"]) == Exit.FAILED
    output = capsys.readouterr()
    assert "Sekr3tPassw0rd" not in output.out + output.err
    assert output.err.count("cannot connect to PostgreSQL") == 2


def test_status_counts_the_host_messages_no_index_holds(
    postgres_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """As on SQLite (it said `not_indexed: []` on PostgreSQL whatever the host held)."""
    import json

    from chat_recall.adapters.cli.main import main

    recall = bootstrap.postgres(postgres_dsn, create_host_schema=True)
    chat_id = recall.host.create_chat(1, "c", 1_700_000_000)
    recall.close()
    with psycopg.connect(postgres_dsn, autocommit=True) as host:
        for role in ("User", "User", "system", "user"):
            host.execute(
                "INSERT INTO messages (chat_id, role, content) VALUES (%s, %s, 'x')",
                (chat_id, role),
            )
    assert main(["index", "--db", postgres_dsn, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["status", "--db", postgres_dsn, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["not_indexed"] == [
        {"reason": "role 'User' is not indexed", "messages": 2},
        {"reason": "role 'system' is not indexed", "messages": 1},
    ]
