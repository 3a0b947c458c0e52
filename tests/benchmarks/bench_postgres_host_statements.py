"""What chat-recall's PostgreSQL triggers cost the host's own statements, bulk and
single-row, measured in one run.

Two schemas of one throwaway server (or `--dsn`): `plain` (the host tables only) and
`recall` (chat-recall installed). In alternating rounds, the same host session does, on
each: a bulk INSERT ... SELECT of `--messages` messages into one chat, a bulk UPDATE of
their content, 500 single-row inserts and 500 single-row updates (one transaction
each), a bulk DELETE of the chat's messages, and the DELETE of the chat holding as many
again (its messages go by the foreign key's cascade). The messages are not indexed between
(the bulk DELETE removes their pending markers; after a backfill it would write their
purge rows instead, the same number of rows). Prints the median time per operation of
each schema and the ratio; asserts nothing.

Run: python -m tests.benchmarks.bench_postgres_host_statements [--messages 20000]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Iterator
from typing import Any

import psycopg

from chat_recall.adapters import bootstrap

SINGLE = 500
OPERATIONS = (
    "bulk insert",
    "bulk update",
    "single inserts",
    "single updates",
    "bulk delete",
    "chat delete",
)


def prepare(admin: str, dsn_of: Any, name: str, *, triggers: bool) -> str:
    """A fresh schema with the host tables, chat-recall installed only with `triggers`
    (installed and its triggers dropped otherwise: the same tables and indexes)."""
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        connection.execute(f"CREATE SCHEMA {name}")
    dsn: str = dsn_of(name)
    bootstrap.postgres(dsn, create_host_schema=True).close()
    if not triggers:
        with psycopg.connect(dsn, autocommit=True) as connection:
            rows = connection.execute(
                "SELECT t.tgname, t.tgrelid::regclass::text FROM pg_trigger AS t "
                "JOIN pg_class AS r ON r.oid = t.tgrelid "
                "WHERE t.tgname LIKE 'chat\\_recall\\_%%' AND NOT t.tgisinternal "
                "AND r.relnamespace = current_schema()::regnamespace"
            ).fetchall()
            for trigger, table in rows:
                connection.execute(f"DROP TRIGGER {trigger} ON {table}")
    return dsn


def timed(connection: psycopg.Connection[Any], statement: str, *params: object) -> float:
    started = time.perf_counter()
    connection.execute(statement, params)
    connection.commit()
    return time.perf_counter() - started


def one_round(dsn: str, messages: int) -> dict[str, float]:
    took: dict[str, float] = {}
    with psycopg.connect(dsn) as connection:
        row = connection.execute(
            "INSERT INTO chats(app_id, title, created_at) VALUES (1, 'bench', 1) RETURNING id"
        ).fetchone()
        assert row is not None
        chat = row[0]
        connection.commit()
        took["bulk insert"] = timed(
            connection,
            "INSERT INTO messages(chat_id, role, content, created_at) "
            "SELECT %s, 'user', 'a message about ' || g, g FROM generate_series(1, %s) AS g",
            chat,
            messages,
        )
        took["bulk update"] = timed(
            connection,
            "UPDATE messages SET content = content || ' (edited)' WHERE chat_id = %s",
            chat,
        )
        started = time.perf_counter()
        for _ in range(SINGLE):
            connection.execute(
                "INSERT INTO messages(chat_id, role, content, created_at) "
                "VALUES (%s, 'user', 'one more', 1)",
                (chat,),
            )
            connection.commit()
        took["single inserts"] = time.perf_counter() - started
        ids = [
            r[0]
            for r in connection.execute(
                "SELECT id FROM messages WHERE chat_id = %s ORDER BY id DESC LIMIT %s",
                (chat, SINGLE),
            )
        ]
        connection.commit()
        started = time.perf_counter()
        for message_id in ids:
            connection.execute(
                "UPDATE messages SET content = 'changed' WHERE id = %s", (message_id,)
            )
            connection.commit()
        took["single updates"] = time.perf_counter() - started
        took["bulk delete"] = timed(connection, "DELETE FROM messages WHERE chat_id = %s", chat)
        connection.execute(
            "INSERT INTO messages(chat_id, role, content, created_at) "
            "SELECT %s, 'user', 'a message about ' || g, g FROM generate_series(1, %s) AS g",
            (chat, messages),
        )
        connection.commit()
        took["chat delete"] = timed(connection, "DELETE FROM chats WHERE id = %s", chat)
    with psycopg.connect(dsn, autocommit=True) as connection:  # the next round starts alike
        connection.execute(
            "TRUNCATE chat_recall_dirty_messages, chat_recall_dirty_chats, chat_recall_purge, "
            "chat_recall_deleted_chats"
        )
    return took


@contextlib.contextmanager
def server(dsn: str | None) -> Iterator[tuple[str, Any]]:
    if dsn is not None:
        yield dsn, lambda name: f"{dsn} options=-csearch_path={name}"
        return
    from tests.postgres_server import running_server

    with running_server() as running:
        yield running.dsn(), lambda name: running.dsn(options=f"-csearch_path%3D{name}")


def measure(
    admin: str, dsn_of: Any, messages: int, rounds: int
) -> dict[str, dict[str, list[float]]]:
    """Seconds per operation and round, by schema (`plain`, `recall`)."""
    schemas = {
        "plain": prepare(admin, dsn_of, "bench_plain", triggers=False),
        "recall": prepare(admin, dsn_of, "bench_recall", triggers=True),
    }
    times: dict[str, dict[str, list[float]]] = {
        name: {operation: [] for operation in OPERATIONS} for name in schemas
    }
    for number in range(rounds):
        order = list(schemas) if number % 2 == 0 else list(reversed(schemas))
        for name in order:
            for operation, seconds in one_round(schemas[name], messages).items():
                times[name][operation].append(seconds)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dsn", help="a PostgreSQL server to use (default: a throwaway one)")
    arguments = parser.parse_args()
    with server(arguments.dsn) as (admin, dsn_of):
        times = measure(admin, dsn_of, arguments.messages, arguments.rounds)
    print(
        f"PostgreSQL host statements, {arguments.messages:,} messages in bulk, "
        f"{SINGLE} single-row statements, median of {arguments.rounds} rounds"
    )
    for operation in OPERATIONS:
        plain = statistics.median(times["plain"][operation])
        recall = statistics.median(times["recall"][operation])
        print(
            f"  {operation:15s} plain {plain * 1000:9.1f} ms   with chat-recall "
            f"{recall * 1000:9.1f} ms   ratio {recall / plain:5.2f}x"
        )


if __name__ == "__main__":
    main()
