"""The live-host benchmark stays runnable: a tiny run (a host thread writing, every
phase), checked for its shape and for doing what it says. Its timings are printed by
the benchmark itself and never asserted here."""

from __future__ import annotations

from tests.benchmarks.live_host import run


def test_a_small_live_host_run_measures_every_phase() -> None:
    printed: list[str] = []
    results = run(
        messages=600,
        rates=[40],
        placements=["thread"],
        steady_seconds=1.0,
        without_seconds=0.3,
        large_chat=200,
        backfill_timeout=60,
        report=printed.append,
    )
    assert results["messages"] >= 600
    assert results["quiet_backfill"]["messages_per_second"] > 0
    (entry,) = results["runs"].values()
    assert entry["without"]["writes"] > 0
    fill = entry["backfill"]
    assert fill["messages_per_second"] > 0
    assert fill["of_quiet_rate"] is not None
    assert fill["host_during_backfill"]["database_is_locked"] == 0
    assert "sleep_overshoot_p99_ms" in fill["host_during_backfill"]  # the host's thread
    assert fill["steady"]["searches"] > 0
    assert set(fill["steady"]["wrong_status"]) == {
        "indexing_with_nothing_older",
        "ready_with_older",
    }
    assert entry["rebuild"]["command"]["exit_code"] == 0
    assert entry["rebuild"]["known_words"] > 0  # words found before, looked for during
    for case in ("nothing_pending", "large_chat_renamed"):
        assert entry["index"][case]["exited"]
        assert entry["index"][case]["exit_code"] == 0
    assert {row["target"] for row in results["targets"]} >= {
        "backfill >= 25% of quiet",
        "searchable p95 <= 2 s",
        "rebuild exits <= 5 s after catching up",
        "words found before stay found during rebuild",
    }
    assert any("targets (issue 35)" in text for text in printed)
