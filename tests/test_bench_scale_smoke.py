"""The scale benchmark stays runnable: a tiny run, checked for its correctness part
(planted rare terms found, terms only inside dropped bodies never found) and its shape.
Timings are printed by the benchmark itself, never asserted here."""

from __future__ import annotations

from tests.benchmarks.bench_scale import QUERY_CLASSES, run


def test_a_small_benchmark_run_is_correct_and_complete() -> None:
    results = run(4_000, None, repeats=2)
    correctness = results["correctness"]
    assert correctness["planted_rare_terms"] > 0
    assert correctness["rare_terms_missed"] == []
    assert correctness["hidden_terms_found"] == []
    assert set(results["search"]) == set(QUERY_CLASSES)
    assert results["backfill"]["messages"] >= 4_000
    assert results["fixture"]["largest_app_messages"] > results["fixture"]["messages"] / 10
