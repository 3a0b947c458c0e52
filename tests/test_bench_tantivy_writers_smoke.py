"""The tantivy writers benchmark stays runnable: a tiny run finds every message, with
the bound on writers open at once and without it. Memory and time are printed by the
benchmark itself, never asserted here."""

from __future__ import annotations

from chat_recall.adapters.tantivy import index_store
from tests.benchmarks.bench_tantivy_writers import UNBOUNDED, one


def test_a_small_writers_benchmark_run_finds_every_message() -> None:
    bound = vars(index_store)["MAX_OPEN_WRITERS"]
    for cap in (3, UNBOUNDED):
        result = one(apps=10, messages=100, cap=cap)
        assert result["found_in_first_and_last_app"] == result["expected"] == 20
    assert vars(index_store)["MAX_OPEN_WRITERS"] == bound  # restored
