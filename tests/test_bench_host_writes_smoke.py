"""The host-write benchmark stays runnable: a tiny run, checked for its shape and for
doing what it says (the same writes on both copies, cascading chat deletes). Timings
are printed by the benchmark itself, never asserted here."""

from __future__ import annotations

from tests.benchmarks.bench_host_writes import OPERATIONS, run


def test_a_small_host_write_benchmark_run_is_complete() -> None:
    results = run(2_000, 500, rounds=2, per_round=40)
    assert set(results["single_row"]) == set(OPERATIONS)
    for row in results["single_row"].values():
        assert row["plain_per_second"] > 0
        assert row["recall_per_second"] > 0
    assert [row["messages"] for row in results["chat_delete"]] == [50, 500]
