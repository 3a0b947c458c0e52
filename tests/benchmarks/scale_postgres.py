"""The scale benchmark on PostgreSQL (`bench_scale --engine postgres`): the same
generated fixture, copied into a PostgreSQL database (a throwaway server the run starts,
or `--dsn`), then install, backfill through the indexer, search_chats per query class
(p50/p95, with the raw GIN statement chat-recall's score runs on as the floor),
read_chat, correctness of planted terms; and what the triggers cost the host's own
single-row inserts, updates and deletes and a large chat's delete, with and without
chat-recall, in alternating rounds on two copies of the same data. Asserts nothing.
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import tempfile
import time
from contextlib import AbstractContextManager, nullcontext
from functools import partial
from pathlib import Path
from typing import Any

import psycopg

from chat_recall.adapters import bootstrap
from chat_recall.adapters.postgres import setup
from chat_recall.adapters.postgres.database import PostgresDatabase
from chat_recall.adapters.sqlite_host.schema import HostSchema
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.search.query_builder import build_query
from tests.benchmarks import bench_scale
from tests.benchmarks.fixture import generate
from tests.postgres_server import running_server

COPY_ROWS = 5_000


def _schema_dsn(dsn: str, schema: str) -> str:
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        connection.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in dsn else "?"
    return f"{dsn}{separator}options=-csearch_path%3D{schema}"


def load(sqlite_path: Path, dsn: str, *, limit: int | None = None) -> int:
    """The reference host tables in PostgreSQL with the fixture's rows (COPY)."""
    database = PostgresDatabase(dsn, HostSchema.reference())
    setup.create_reference_schema(database)
    database.close()
    source = sqlite3.connect(sqlite_path)
    bound = "" if limit is None else f"WHERE id <= {int(limit)}"
    chats_bound = (
        "" if limit is None else f"WHERE id IN (SELECT chat_id FROM messages WHERE id <= {limit})"
    )
    with psycopg.connect(dsn) as connection:
        with connection.cursor().copy(
            "COPY chats (id, app_id, title, created_at) FROM STDIN"
        ) as copy:
            for row in source.execute(
                f"SELECT id, app_id, title, created_at FROM chats {chats_bound}"
            ):
                copy.write_row(row)
        with connection.cursor().copy(
            "COPY messages (id, chat_id, role, content, is_compaction_summary, created_at) "
            "FROM STDIN"
        ) as copy:
            for row in source.execute(
                "SELECT id, chat_id, role, content, is_compaction_summary != 0, created_at "
                f"FROM messages {bound}"
            ):
                copy.write_row(row)
        for table in ("chats", "messages"):
            connection.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT max(id) FROM {table}))"
            )
        count = connection.execute("SELECT count(*) FROM messages").fetchone()
    source.close()
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute("VACUUM ANALYZE chats")
        connection.execute("VACUUM ANALYZE messages")
    return int(count[0]) if count else 0


def _floor(dsn: str, app_id: int, match: str) -> Any:
    """The raw statement under chat-recall's score: GIN match in the app, ts_rank of
    the whole OR query, top 200."""
    from chat_recall.adapters.postgres import text_search

    query = text_search.in_app(app_id, match)  # type: ignore[arg-type]
    connection = psycopg.connect(dsn, autocommit=True)

    def run() -> int:
        rows = connection.execute(
            "SELECT message_id FROM chat_recall_docs WHERE tsv @@ %s::tsquery AND app_id = %s "
            "ORDER BY ts_rank('{0.1,0,0,1}', tsv, %s::tsquery) DESC, message_id LIMIT 200",
            (query, app_id, match),
        ).fetchall()
        return len(rows)

    return connection, run


def search_classes(
    recall: Any, dsn: str, manifest: dict[str, Any], classes: dict[str, str | None], repeats: int
) -> dict[str, Any]:
    from chat_recall.adapters.postgres import text_search

    app_id = 1
    rare = [entry for entry in manifest["rare_terms"] if entry["app_id"] == app_id]
    analysis = recall.index.analysis
    results = {}
    for name, query in classes.items():
        text = query or rare[0]["term"]
        plan = build_query(text)
        phrases = [
            q for q in (text_search.phrase_query(analysis, p) for p in plan.match.phrases) if q
        ]
        match = text_search.any_of(phrases)
        product = bench_scale.timed(
            partial(bench_scale._search, recall, CallContext(app_id), text), repeats
        )
        connection, floor = _floor(dsn, app_id, match)
        matches = connection.execute(
            "SELECT count(*) FROM chat_recall_docs WHERE tsv @@ %s::tsquery AND app_id = %s",
            (text_search.in_app(app_id, match), app_id),
        ).fetchone()
        floor_timings = bench_scale.timed(floor, repeats)
        connection.close()
        results[name] = {
            "query": text,
            "matches_sent": int(matches[0]) if matches else 0,
            "search_chats": bench_scale._summary(product),
            "floor_sent": bench_scale._summary(floor_timings),
            "overhead_ratio_p50": round(
                statistics.median(product) / max(statistics.median(floor_timings), 1e-6), 2
            ),
        }
    return results


def reads(recall: Any, dsn: str, repeats: int) -> dict[str, Any]:
    with psycopg.connect(dsn) as connection:
        row = connection.execute(
            "SELECT c.id, count(*) FROM chats c JOIN messages m ON m.chat_id = c.id "
            "WHERE c.app_id = 1 GROUP BY c.id ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()
        assert row is not None
        chat_id, count = row
        ids = [
            r[0]
            for r in connection.execute("SELECT id FROM messages WHERE chat_id = %s", (chat_id,))
        ]
    generator = random.Random(5)
    context = CallContext(1)
    around = bench_scale.timed(
        lambda: recall.read_chat(
            context, {"chat_id": chat_id, "around_message_id": generator.choice(ids)}
        ),
        repeats,
    )
    page = bench_scale.timed(
        lambda: recall.read_chat(
            context, {"chat_id": chat_id, "offset": generator.randrange(count), "limit": 10}
        ),
        repeats,
    )
    return {
        "chat_messages": count,
        "around": bench_scale._summary(around),
        "page": bench_scale._summary(page),
    }


def index_size(dsn: str) -> dict[str, Any]:
    with psycopg.connect(dsn) as connection:
        rows = connection.execute(
            "SELECT relname, pg_total_relation_size(oid) FROM pg_class "
            "WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p')"
        ).fetchall()
        gin = connection.execute("SELECT pg_relation_size('chat_recall_docs_tsv')").fetchone()
    ours = sum(size for name, size in rows if name.startswith("chat_recall_"))
    host = sum(size for name, size in rows if not name.startswith("chat_recall_"))
    return {
        "index_mb": round(ours / 1e6, 1),
        "gin_mb": round((gin[0] if gin else 0) / 1e6, 1),
        "host_mb": round(host / 1e6, 1),
    }


# -- the host's write cost -----------------------------------------------------------------


def _host_statements(
    dsn: str, operation: str, count: int, rng: random.Random, state: dict[str, Any]
) -> list[tuple[str, tuple[Any, ...]]]:
    statements: list[tuple[str, tuple[Any, ...]]] = []
    for _ in range(count):
        if operation == "insert":
            statements.append(
                (
                    "INSERT INTO messages (id, chat_id, role, content, created_at) "
                    "VALUES (%s, %s, 'user', %s, %s)",
                    (state["next_id"], rng.choice(state["chats"]), rng.choice(state["texts"]), 1),
                )
            )
            state["next_id"] += 1
        elif operation == "update":
            statements.append(
                (
                    "UPDATE messages SET content = %s WHERE id = %s",
                    (rng.choice(state["texts"]) + " (edited)", rng.choice(state["ids"])),
                )
            )
        else:
            statements.append(("DELETE FROM messages WHERE id = %s", (state["ids"].pop(),)))
    return statements


def host_writes(
    base_dsn: str, sqlite_path: Path, messages: int, rounds: int, per_round: int, chat_size: int
) -> dict[str, Any]:
    """Single-row host writes (each its own transaction, autocommit) on two copies of
    the same data, `plain` and `recall` (installed and indexed), statement by statement
    in alternating order; then the delete of a chat of `chat_size` messages in each.
    Every round deletes `per_round` messages: a small fixture gets fewer per round, so
    the deletes never run out of messages."""
    per_round = max(1, min(per_round, messages // (rounds + 1)))
    dsns = {variant: _schema_dsn(base_dsn, f"bench_{variant}") for variant in ("plain", "recall")}
    for dsn in dsns.values():
        load(sqlite_path, dsn, limit=messages)
    with bootstrap.postgres(dsns["recall"]) as recall:
        recall.indexer.run_until_idle()
    with psycopg.connect(dsns["plain"]) as connection:
        chats = [r[0] for r in connection.execute("SELECT id FROM chats")]
        ids = [r[0] for r in connection.execute("SELECT id FROM messages ORDER BY id")]
        texts = [
            r[0]
            for r in connection.execute(
                "SELECT content FROM messages WHERE length(content) < 4000 LIMIT 500"
            )
        ]
        next_id = int(max(ids)) + 1_000_000
    random.Random(3).shuffle(ids)
    seconds: dict[str, dict[str, float]] = {
        v: {"insert": 0.0, "update": 0.0, "delete": 0.0} for v in dsns
    }
    connections = {v: psycopg.connect(dsn, autocommit=True) for v, dsn in dsns.items()}
    for round_number in range(rounds):
        for operation in ("insert", "update", "delete"):
            state = {"next_id": next_id, "chats": chats, "texts": texts, "ids": list(ids)}
            statements = _host_statements(
                "", operation, per_round, random.Random(round_number), state
            )
            if operation == "delete":
                del ids[-per_round:]
            elif operation == "insert":
                next_id += per_round
            # Statement by statement, alternating which copy goes first: the machine's
            # load (a shared 2-core box) hits both copies alike.
            for index, (sql, parameters) in enumerate(statements):
                order = ("plain", "recall") if index % 2 == 0 else ("recall", "plain")
                for variant in order:
                    started = time.perf_counter()
                    connections[variant].execute(sql, parameters)
                    seconds[variant][operation] += time.perf_counter() - started
    total = rounds * per_round
    throughput = {
        variant: {op: round(total / s) for op, s in ops.items()} for variant, ops in seconds.items()
    }
    ratios = {
        op: round(throughput["recall"][op] / throughput["plain"][op], 2)
        for op in ("insert", "update", "delete")
    }
    chat_delete: dict[str, float] = {}
    for variant, connection in connections.items():
        chat_id = 900_000_000
        connection.execute(
            "INSERT INTO chats (id, app_id, title, created_at) VALUES (%s, 1, 'big', 1)", (chat_id,)
        )
        connection.execute(
            "INSERT INTO messages (id, chat_id, role, content, created_at) "
            "SELECT 2000000000 + g, %s, 'user', 'filler text of a long chat', 1 "
            "FROM generate_series(1, %s) AS g",
            (chat_id, chat_size),
        )
        connection.execute("VACUUM ANALYZE messages")
        started = time.perf_counter()
        connection.execute("DELETE FROM chats WHERE id = %s", (chat_id,))
        chat_delete[variant] = round((time.perf_counter() - started) * 1000, 1)
    for connection in connections.values():
        connection.close()
    return {
        "messages": messages,
        "rounds": rounds,
        "per_round": per_round,
        "throughput_per_second": throughput,
        "ratio_with_to_without": ratios,
        "chat_delete_ms": {"messages": chat_size, **chat_delete},
    }


def run(
    messages: int, repeats: int, profile: str, dsn: str | None, host_messages: int
) -> dict[str, Any]:
    server: AbstractContextManager[Any] = nullcontext() if dsn else running_server()
    with (
        tempfile.TemporaryDirectory(prefix="chat-recall-bench-pg-") as directory,
        server as started_server,
    ):
        path = Path(directory) / "fixture.db"
        base = dsn or started_server.dsn()
        manifest = generate(path, messages=messages, profile=profile)
        target = _schema_dsn(base, "bench_scale")
        loading = time.perf_counter()
        load(path, target)
        loaded = time.perf_counter() - loading
        installing = time.perf_counter()
        recall = bootstrap.postgres(target)
        install = time.perf_counter() - installing
        results: dict[str, Any] = {
            "engine": "postgres",
            "profile": profile,
            "fixture": {"messages": manifest["messages"], "apps": manifest["apps"]},
            "load_seconds": round(loaded, 1),
            "install_seconds": round(install, 2),
        }
        results["backfill"] = bench_scale.backfill(recall, manifest["messages"])
        with psycopg.connect(target, autocommit=True) as connection:
            connection.execute("VACUUM ANALYZE chat_recall_docs")
        results["search"] = search_classes(
            recall, target, manifest, bench_scale.QUERY_CLASSES[profile], repeats
        )
        results["read_chat"] = reads(recall, target, repeats * 5)
        results["correctness"] = bench_scale.correctness(recall, manifest)
        recall.close()
        results["size"] = index_size(target)
        results["host_writes"] = host_writes(
            base, path, min(host_messages, messages), rounds=6, per_round=300, chat_size=20_000
        )
    return results


def print_table(results: dict[str, Any]) -> None:
    backfill = results["backfill"]
    print(
        f"PostgreSQL, {results['fixture']['messages']:,} messages ({results['profile']}): "
        f"install {results['install_seconds']} s; backfill {backfill['messages_per_second']:,} "
        f"messages/s, longest batch {backfill['longest_batch_ms']} ms"
    )
    print(f"{'query class':<22}{'matches':>9}{'p50 ms':>9}{'p95 ms':>9}{'floor p50':>11}")
    for name, row in results["search"].items():
        print(
            f"{name:<22}{row['matches_sent']:>9,}{row['search_chats']['p50_ms']:>9}"
            f"{row['search_chats']['p95_ms']:>9}{row['floor_sent']['p50_ms']:>11}"
        )
    reads_ = results["read_chat"]
    print(
        f"read_chat around p50 {reads_['around']['p50_ms']} ms, "
        f"page p50 {reads_['page']['p50_ms']} ms"
    )
    writes = results["host_writes"]
    print(
        f"host writes with/without chat-recall: {writes['ratio_with_to_without']}; "
        f"chat delete {writes['chat_delete_ms']}"
    )
    print(f"correctness: {results['correctness']}; size: {results['size']}")
