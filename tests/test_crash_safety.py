"""Crash safety stays proven: `index`, `import` and `rebuild` SIGKILLed at random points,
50 times in total, with host writes between the runs; after every restart the index
equals a rebuild, the backlog drains (no marker lost) and FTS5's integrity check passes.
The procedure lives in `tests/benchmarks/crash_kills.py` (runnable for more kills)."""

from __future__ import annotations

from tests.benchmarks.crash_kills import run

KILLS = {"index": 18, "import": 16, "rebuild": 16}


def test_kills_at_random_points_never_lose_or_corrupt_anything() -> None:
    reports = run(KILLS)
    assert {report.command: report.kills for report in reports} == KILLS
    assert sum(KILLS.values()) >= 50
    for report in reports:
        assert report.problems == (), report.problems[:5]
