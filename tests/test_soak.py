"""The host's writes never fail or stall because of chat-recall: a 20-second soak (see
`tests/benchmarks/soak.py`; the README runs a longer one). A host writer process at its
own pace (100 writes/s, busy_timeout 5000 ms) alternates phase by phase between a copy
of the history without chat-recall and one with it, while an embedded chat-recall
(background indexer, four searchers) and `index` / `status` commands work on the
latter; the large chat is renamed twice (5,000 messages re-indexed each time).

The baseline is measured in the same run: the phases alternate (plain, recall, recall,
plain, ...), so the machine's own load falls on both alike; no timing rests on sleeps.

The bounds. A host write's latency is the time its statement takes (what the host's
write call blocks for), and, from the time it was due, what a stall costs every write
it delays. The issue's bound holds on the first: p99 with chat-recall within 2x of
without, where the baseline counts as at least 25 ms, the budget of one indexer batch
(SQLite has one writer at a time and its busy handler sleeps 1, 2, 5, 10 ms between
tries; below that, a shared 2-core machine's scheduling decides, not chat-recall). The
second, which also carries the writer's own scheduling on a loaded machine, gets 3x:
generous, but a stall of hundreds of ms (p99 was 7x the baseline in this very test
before, with 2.4 s stalls in the longer soak) still fails it. No write may take a
second, and zero BUSY errors is exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.benchmarks.soak import SoakConfig, print_report, run_soak

CI = SoakConfig(messages=10_000, large_chat=5_000, phases=20, writes_per_phase=100)
BASELINE_FLOOR_MS = 25.0


def test_the_host_never_fails_or_stalls_because_of_chat_recall(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = run_soak(CI, tmp_path)
    with capsys.disabled():
        print_report(report)
    plain, recall = report["host"]["plain"], report["host"]["recall"]
    assert plain["writes"] == recall["writes"] == CI.phases * CI.writes_per_phase // 2
    assert plain["busy_errors"] == recall["busy_errors"] == 0
    assert recall["statement_p99_ms"] <= 2 * max(plain["statement_p99_ms"], BASELINE_FLOOR_MS)
    assert recall["p99_ms"] <= 3 * max(plain["p99_ms"], BASELINE_FLOOR_MS)
    assert recall["statement_max_ms"] < 1000
    # chat-recall did its work meanwhile, without failing
    assert report["chat_recall"]["searches"] > 0
    assert report["chat_recall"]["errors"] == 0
    assert {c["command"] for c in report["commands"]} == {"index", "status"}
    assert all(c["exit_code"] == 0 for c in report["commands"]), report["commands"]
