"""The PostgreSQL host-statement benchmark stays runnable: a tiny run, checked for its
shape and for comparing what it says (triggers in one schema, none in the other).
Timings are printed by the benchmark itself, never asserted here."""

from __future__ import annotations

import psycopg

from tests.benchmarks.bench_postgres_host_statements import OPERATIONS, measure
from tests.postgres_server import Server


def test_a_small_postgres_host_statement_benchmark_run_is_complete(
    postgres_server: Server,
) -> None:
    def dsn_of(name: str) -> str:
        return postgres_server.dsn(options=f"-csearch_path%3D{name}")

    times = measure(postgres_server.dsn(), dsn_of, messages=200, rounds=2)
    assert {name: sorted(by_operation) for name, by_operation in times.items()} == {
        "plain": sorted(OPERATIONS),
        "recall": sorted(OPERATIONS),
    }
    assert all(len(seconds) == 2 for by in times.values() for seconds in by.values())
    triggers = {}
    for name in ("bench_plain", "bench_recall"):
        with psycopg.connect(dsn_of(name)) as connection:
            row = connection.execute(
                "SELECT count(*) FROM pg_trigger AS t JOIN pg_class AS r ON r.oid = t.tgrelid "
                "WHERE t.tgname LIKE 'chat\\_recall\\_%' AND NOT t.tgisinternal "
                "AND r.relnamespace = current_schema()::regnamespace"
            ).fetchone()
        triggers[name] = row[0] if row else None
    assert triggers == {"bench_plain": 0, "bench_recall": 6}
